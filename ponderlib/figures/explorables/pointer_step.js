// One decoder step of the pointer, as ponderlib.mechanisms.pointer.pointer_step computes it, for one
// input in the browser's float64; tests/test_explorables.py runs it against the library.

// The most positions the explorable offers (an array of 1 to 8 elements).
export const MAX_POSITIONS = 8;

// The array x_1..x_n from what the reader typed ("4 1 3 1" or "4, 1, 3, 1"), or an InputError naming
// the element that is not a number.
export function parseArray(text) {
  const items = String(text).split(/[\s,;]+/).filter((item) => item !== "");
  if (items.length === 0 || items.length > MAX_POSITIONS) {
    throw new InputError(`the array must hold 1 to ${MAX_POSITIONS} numbers, got ${items.length}`);
  }
  return items.map((item, index) => {
    const value = Number(item);
    if (!Number.isFinite(value)) throw new InputError(`x_${index + 1} must be a number, got ${shown(item)}`);
    return value;
  });
}

// The pointer (Vinyals et al. 2015, eq. 3 and sec. 2.3), as pointer_step for one row:
//   p(C_i = j) = exp(u_j) / sum_{k available} exp(u_k) at an available position j, 0 where the mask
//   removes it (already chosen, or padding), computed as masked_log_softmax does (the largest
//   available score subtracted first); greedy decoding's choice is argmax_j p(C_i = j), the first of
//   equals, and none (-1) when nothing is available.
export function pointerStep(scores, available) {
  if (!Array.isArray(scores) || scores.length === 0) {
    throw new InputError("the scores must hold at least one u_j, got none");
  }
  scores.forEach((u, index) => {
    if (typeof u !== "number" || !Number.isFinite(u)) {
      throw new InputError(`u_${index + 1} must be a finite number, got ${shown(u)}`);
    }
  });
  if (!Array.isArray(available) || available.length !== scores.length) {
    throw new InputError(`the mask must have one entry per position: ${scores.length}`);
  }
  const allowed = scores.filter((_, j) => available[j]);
  if (allowed.length === 0) {
    return { probs: scores.map(() => 0), logProbs: scores.map(() => -Infinity), choice: -1 };
  }
  const top = Math.max(...allowed);
  const logTotal = Math.log(allowed.reduce((sum, u) => sum + Math.exp(u - top), 0));
  const logProbs = scores.map((u, j) => (available[j] ? u - top - logTotal : -Infinity));
  let choice = -1;
  logProbs.forEach((value, j) => {
    if (available[j] && (choice === -1 || value > logProbs[choice])) choice = j;
  });
  return { probs: logProbs.map(Math.exp), logProbs, choice };
}
