// ACT's halting arithmetic, as ponderlib.mechanisms.halting.act_halting computes it, for one input
// in the browser's float64; tests/test_explorables.py runs it against the library.

// ACT (Graves 2016, eqs. 6-8, 10, 13, 14), as act_halting for one row of halting units h_1..h_M:
//   N = min{ n' : sum_{n<=n'} h_n >= 1 - eps }, or M (the cap) when no step reaches it,
//   R = 1 - sum_{n<N} h_n,   p_n = h_n (n < N), R (n = N), 0 (n > N),   rho = N + R,
// and the gradient of rho: d rho / d h_n = -1 for n < N, 0 for n >= N (N is piecewise constant).
export function actHalting(haltingUnits, eps) {
  if (!Array.isArray(haltingUnits) || haltingUnits.length === 0) {
    throw new InputError("the halting units must hold at least one h_n, got none");
  }
  haltingUnits.forEach((h, index) => checkUnit(`h_${index + 1}`, h));
  checkUnit("eps", eps, false);
  const cap = haltingUnits.length;
  const runningSum = [];
  let total = 0;
  for (const h of haltingUnits) {
    total += h;
    runningSum.push(total);
  }
  const crossed = runningSum.findIndex((sum) => sum >= 1 - eps);
  const ponderSteps = crossed === -1 ? cap : crossed + 1;
  let before = 0;
  for (let n = 0; n < ponderSteps - 1; n += 1) before += haltingUnits[n];
  const remainder = 1 - before;
  const haltingProbs = haltingUnits.map((h, index) => {
    if (index < ponderSteps - 1) return h;
    return index === ponderSteps - 1 ? remainder : 0;
  });
  const gradient = haltingUnits.map((h, index) => (index < ponderSteps - 1 ? -1 : 0));
  return {
    runningSum,
    ponderSteps,
    remainder,
    haltingProbs,
    ponderCost: ponderSteps + remainder,
    gradient,
  };
}
