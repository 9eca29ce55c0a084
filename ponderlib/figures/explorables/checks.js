// The explorables' arithmetic refuses what the equations do not allow with an InputError, whose
// message names the input and its range; the views show it instead of numbers. The Python side
// (ponderlib.figures.explorables) puts this module first in every explorable's module.

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
