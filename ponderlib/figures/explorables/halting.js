// The halting arithmetic of ponderlib.mechanisms.halting, for the book's explorables: the same
// equations as the library, for one input at a time, in the browser's float64. The Python side
// (ponderlib.figures.explorables) puts this module in front of each explorable's view, so the view
// calls these functions by name; tests/test_explorables.py runs them against the library's.

// An input the equations do not allow: the view shows its message instead of numbers.
export class InputError extends Error {}

function shown(value) {
  return typeof value === "number" ? String(value) : JSON.stringify(value) ?? String(value);
}

// A number in [0, 1] (or [0, 1) when includeOne is false), else an InputError naming it.
export function checkUnit(name, value, includeOne = true) {
  const number = typeof value === "number" && Number.isFinite(value);
  if (!number || value < 0 || value > 1 || (!includeOne && value === 1)) {
    const range = includeOne ? "[0, 1]" : "[0, 1)";
    throw new InputError(`${name} must be a number in ${range}, got ${shown(value)}`);
  }
}

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

// The prior's two truncations at N steps (ponderlib.mechanisms.halting.PRIOR_TRUNCATIONS).
export const PRIOR_TRUNCATIONS = ["normalised", "last"];
// kl_to_geometric takes log p_n of p_n clamped here, so a zero costs a finite 27.6 nats.
const TINY = 1e-12;

function checkSteps(name, values) {
  if (!Array.isArray(values) || values.length === 0) {
    throw new InputError(`${name} must hold at least one value, got none`);
  }
}

// PonderNet (Banino et al. 2021, eq. 2), as pondernet_halting for one row lambda_1..lambda_N:
// p_n = lambda_n prod_{j<n}(1 - lambda_j) for n < N, and p_N = prod_{j<N}(1 - lambda_j) (the last
// step takes what is left; lambda_N itself is not used and may be left out of checks).
export function pondernetHalting(lambdas) {
  checkSteps("the lambdas", lambdas);
  lambdas.slice(0, -1).forEach((lambda, index) => checkUnit(`lambda_${index + 1}`, lambda));
  const probs = [];
  let notHalted = 1;
  lambdas.forEach((lambda, index) => {
    const last = index === lambdas.length - 1;
    probs.push(notHalted * (last ? 1 : lambda));
    if (!last) notHalted *= 1 - lambda;
  });
  return probs;
}

// The geometric prior p_G(n) = lambda_p (1 - lambda_p)^(n-1) truncated at N, as geometric_prior:
// "normalised" divides p_G(1..N) by their sum, "last" puts the tail (1 - lambda_p)^(N-1) on step N.
export function geometricPrior(lambdaP, steps, truncation) {
  const number = typeof lambdaP === "number" && Number.isFinite(lambdaP);
  if (!number || lambdaP <= 0 || lambdaP >= 1) {
    throw new InputError(`lambda_p must be a number in (0, 1), got ${shown(lambdaP)}`);
  }
  if (!PRIOR_TRUNCATIONS.includes(truncation)) {
    throw new InputError(`the truncation must be one of ${PRIOR_TRUNCATIONS.join(", ")}, got ${shown(truncation)}`);
  }
  const prior = pondernetHalting(Array(steps).fill(lambdaP));
  if (truncation === "last") return prior;
  prior[steps - 1] *= lambdaP;
  const total = prior.reduce((sum, value) => sum + value, 0);
  return prior.map((value) => value / total);
}

// E[n] = sum_n n p_n (expected_ponder_steps).
export function expectedSteps(probs) {
  return probs.reduce((sum, p, index) => sum + (index + 1) * p, 0);
}

// Both KL directions (kl_to_geometric) and their terms (chapter 2's eq. kl-decomposed):
//   KL(p || p_G) = -H(p) + (E[n] - 1)(-log(1 - lambda_p)) + the rest,
// the rest being -log lambda_p + log(1 - q^N) for the normalised prior and -(1 - p_N) log lambda_p
// with the tail on the last step (q = 1 - lambda_p); and KL(p_G || p) = -H(p_G) + H(p_G, p), the
// prior's entropy and the cross-entropy sum_n p_G(n) (-log p_n).
export function klTerms(probs, prior, lambdaP) {
  const log = (value) => Math.log(Math.max(value, TINY));
  let paper = 0;
  let reverse = 0;
  let entropy = 0;
  let priorEntropy = 0;
  let crossEntropy = 0;
  probs.forEach((p, index) => {
    const g = prior[index];
    paper += p * (log(p) - log(g));
    reverse += g * (log(g) - log(p));
    if (p > 0) entropy -= p * Math.log(p);
    if (g > 0) priorEntropy -= g * Math.log(g);
    crossEntropy -= g * log(p);
  });
  const stepPrice = (expectedSteps(probs) - 1) * -Math.log1p(-lambdaP);
  return {
    paper,
    reverse,
    entropy,
    stepPrice,
    rest: paper + entropy - stepPrice,
    priorEntropy,
    crossEntropy,
  };
}

// L_Rec = sum_n p_n L_n, the expected loss (reconstruction_loss) for per-step losses L_n >= 0.
export function expectedLoss(probs, stepLosses) {
  checkSteps("the step losses", stepLosses);
  stepLosses.forEach((loss, index) => {
    if (typeof loss !== "number" || !Number.isFinite(loss) || loss < 0) {
      throw new InputError(`L_${index + 1} must be a finite number >= 0, got ${shown(loss)}`);
    }
  });
  return probs.reduce((sum, p, index) => sum + p * stepLosses[index], 0);
}

// Everything chapter 2's explorable shows, from lambda_1..lambda_N (lambda_N unused), lambda_p, the
// prior's truncation and the per-step losses L_1..L_N.
export function pondernetQuantities(lambdas, lambdaP, truncation, stepLosses) {
  const probs = pondernetHalting(lambdas);
  const prior = geometricPrior(lambdaP, lambdas.length, truncation);
  if (stepLosses.length !== lambdas.length) {
    throw new InputError(`there must be one L_n per step: ${lambdas.length}, got ${stepLosses.length}`);
  }
  return {
    probs,
    prior,
    expectedSteps: expectedSteps(probs),
    priorExpectedSteps: expectedSteps(prior),
    reconstruction: expectedLoss(probs, stepLosses),
    ...klTerms(probs, prior, lambdaP),
  };
}
