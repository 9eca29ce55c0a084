// PonderNet's halting distribution, prior, KL and expected loss, as ponderlib.mechanisms.halting and
// ponderlib.mechanisms.losses compute them, for one input in the browser's float64;
// tests/test_explorables.py runs it against the library.

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
// lambda_p = 1 is refused, as step_price refuses it: a step would cost -log(0).
export function geometricPrior(lambdaP, steps, truncation) {
  const number = typeof lambdaP === "number" && Number.isFinite(lambdaP);
  if (!number || lambdaP <= 0 || lambdaP >= 1) {
    throw new InputError(`lambda_p must be a number in (0, 1), got ${shown(lambdaP)}`);
  }
  if (!PRIOR_TRUNCATIONS.includes(truncation)) {
    const allowed = PRIOR_TRUNCATIONS.join(", ");
    throw new InputError(`the truncation must be one of ${allowed}, got ${shown(truncation)}`);
  }
  const prior = pondernetHalting(Array(steps).fill(lambdaP));
  if (truncation === "normalised") {
    prior[steps - 1] *= lambdaP;
    const total = prior.reduce((sum, value) => sum + value, 0);
    prior.forEach((value, index) => { prior[index] = value / total; });
  }
  // geometric_prior returns float32: rounded the same way, the KL's terms agree with the library's
  // to the last digits even where a p_n near zero multiplies them by 27.6 nats.
  return prior.map(Math.fround);
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
