// Per-position ACT in a Universal Transformer, as ponderlib.mechanisms.universal_transformer computes
// it, for one program in the browser's float64: actHalting (act_halting.js) for each position's row of
// halting units, as UniversalTransformer._collect calls act_halting on one row per position;
// tests/test_explorables.py runs it against the library.

// The most positions the explorable offers.
export const MAX_POSITIONS = 6;

// Each position i's N_i, R_i, p^n_i and rho_i (chapter 4's eq. ut-act) from its h^1_i..h^M_i, and what
// the loop does with them (eq. ut-frozen): it runs until the last position halts, max_i N_i steps; at
// step n a position with N_i < n is frozen, its state copied; every step applies the block to every
// position, so sum_i (steps run - N_i) applications go to frozen positions.
export function positionHalting(unitsByPosition, eps) {
  if (!Array.isArray(unitsByPosition) || unitsByPosition.length === 0) {
    throw new InputError("the program must hold at least one position, got none");
  }
  if (unitsByPosition.length > MAX_POSITIONS) {
    throw new InputError(`the program must hold at most ${MAX_POSITIONS} positions, got ${unitsByPosition.length}`);
  }
  const positions = unitsByPosition.map((units, index) => {
    try {
      return actHalting(units, eps);
    } catch (error) {
      if (error instanceof InputError && !error.message.startsWith("eps")) {
        throw new InputError(`position ${index + 1}: ${error.message}`);
      }
      throw error;
    }
  });
  const ponderSteps = positions.map((halted) => halted.ponderSteps);
  const stepsRun = Math.max(...ponderSteps);
  return {
    positions,
    stepsRun,
    blockRuns: positions.length * stepsRun,
    frozenRuns: ponderSteps.reduce((sum, steps) => sum + stepsRun - steps, 0),
    // the positions (counted from 1) frozen at ponder step n: halted at an earlier step
    frozenAt: (n) => ponderSteps.map((steps, index) => (steps < n ? index + 1 : 0)).filter(Boolean),
  };
}
