// What the explorables' views share: the controls (large enough for a thumb on a phone), number
// formatting and DOM helpers. The Python side puts this module between the arithmetic and a view.

const MAX_STEPS = 8;
const SVG = "http://www.w3.org/2000/svg";

const BASE_CSS = `
.pe { --pe-line: var(--pst-color-text-muted, #666); --pe-danger: var(--pst-color-danger, #d62728);
  max-width: 40rem; }
.pe [hidden] { display: none !important; }
.pe .pe-row { display: grid; grid-template-columns: 3.2rem 1fr 6rem; gap: 0.5rem;
  align-items: center; min-height: 44px; }
.pe input[type=range] { width: 100%; height: 44px; margin: 0; accent-color: var(--pe-color); }
.pe input[type=number], .pe select { min-height: 44px; font-size: 16px; box-sizing: border-box;
  width: 100%; padding: 0 0.4rem; color: inherit; background: transparent;
  border: 1px solid var(--pe-line); border-radius: 4px; }
.pe select { width: auto; min-width: 4.5rem; }
.pe .pe-message { color: var(--pe-danger); font-weight: 600; min-height: 1.5em; margin: 0.5rem 0; }
.pe .pe-summary { font-size: 1.05rem; margin: 0.5rem 0; }
.pe output { font-weight: 600; font-variant-numeric: tabular-nums; }
.pe .pe-figures { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: flex-start; }
.pe svg { display: block; flex: 1 1 16rem; max-width: 26rem; height: auto; }
.pe svg text { fill: currentColor; font-size: 11px; }
.pe table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.5rem 0; }
.pe th, .pe td { padding: 0.2rem 0.6rem; text-align: right; }
`;

function make(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function subscripted(base, index) {
  return [base, make("sub", {}, [String(index)])];
}

// Up to 6 decimals, trailing zeros dropped: 0.2, 4.2, 0.995; never "-0".
function format(value) {
  const rounded = Number(value.toFixed(6));
  return String(rounded === 0 ? 0 : rounded);
}

// The number a field holds, or the text it holds when that is not a number.
function parse(text) {
  const trimmed = text.trim();
  return trimmed === "" || Number.isNaN(Number(trimmed)) ? trimmed : Number(trimmed);
}

// A field to type a number in (min, the smallest its arrows step to), large enough for a thumb.
function numberField(label, control, index, min = 0) {
  const field = make("input", { type: "number", min, step: "any", inputmode: "decimal",
    "aria-label": label, "data-control": control });
  if (index !== undefined) field.dataset.step = index;
  return field;
}

// A slider and a field for one number in [min, max] (the field also takes what the slider cannot).
function slider(label, min, max, step, control, index) {
  const range = make("input", { type: "range", min, max, step, "aria-label": label,
    "data-control": control });
  if (index !== undefined) range.dataset.step = index;
  return { range, field: numberField(label, control, index, min) };
}

// A row of the controls: a label, then its inputs.
function row(label, ...inputs) {
  return make("div", { class: "pe-row" }, [make("span", {}, label), ...inputs]);
}

// A slider and its number field kept together: either one, moved or typed, passes its value (a number,
// or what parse made of the text) and its text to write, puts the other in step, and calls update.
function listen(control, write, update) {
  control.range.addEventListener("input", () => {
    write(Number(control.range.value), control.range.value);
    control.field.value = control.range.value;
    update();
  });
  control.field.addEventListener("input", () => {
    const value = parse(control.field.value);
    write(value, control.field.value);
    if (typeof value === "number") control.range.value = String(value);
    update();
  });
}

// What calculate() returns, the message cleared and the results shown; or, where it refuses an input
// with an InputError, null, its message shown and the results hidden (never a NaN).
function computeOrSay(calculate, message, results) {
  let computed;
  try {
    computed = calculate();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    message.textContent = `${error.message}: the page computes nothing until it is fixed.`;
    results.hidden = true;
    return null;
  }
  message.textContent = "";
  results.hidden = false;
  return computed;
}

// A trait set from Python while a kernel runs: the page takes it (apply) and redraws, unless it already
// holds it (its own changes come back as the values it holds, and change nothing).
function follow(model, name, holds, apply, redraw) {
  model.on(`change:${name}`, () => {
    const value = model.get(name);
    if (holds(value)) return;
    apply(value);
    redraw();
  });
}

// A picker of 1 to MAX_STEPS ponder steps, in a row labelled by symbol and text.
function stepPicker(label, symbol, text) {
  const choice = make("select", { "aria-label": label, "data-control": "steps" });
  for (let n = 1; n <= MAX_STEPS; n += 1) choice.append(make("option", { value: n }, [String(n)]));
  return { choice, row: row([symbol], make("span", {}, [text]), choice) };
}

// ACT's cap M (a picker) and slack eps (a slider and its field), the first rows of the ACT explorables:
// write(value, text) takes eps as the reader moves or types it, setSteps(M) the cap as they pick it.
function capAndSlack(root, write, setSteps, update) {
  const cap = stepPicker("ponder steps allowed, M", "M", "ponder steps allowed");
  const epsControl = slider("slack eps", 0, 0.5, 0.005, "eps");
  root.append(cap.row, row(["ε"], epsControl.range, epsControl.field));
  listen(epsControl, write, update);
  cap.choice.addEventListener("change", () => setSteps(Number(cap.choice.value)));
  return { stepChoice: cap.choice, epsControl };
}

// A bar chart's baseline from left to right at lower, and the values ticks labelled at y(value).
function axis(chart, left, right, lower, y, ticks) {
  chart.append(svg("line", { x1: left, x2: right, y1: lower, y2: lower, stroke: "currentColor" }));
  for (const value of ticks) {
    const label = svg("text", { x: left - 4, y: y(value) + 4, "text-anchor": "end" });
    label.textContent = format(Number(value.toFixed(2)));
    chart.append(label);
  }
}

// An explorable's root element: its kind (the data-explorable the browser test finds), its colour and
// its style sheet.
function explorableRoot(kind, color, css) {
  const root = make("div", { class: `pe pe-${kind}`, "data-explorable": kind });
  root.style.setProperty("--pe-color", color);
  root.append(make("style", {}, [BASE_CSS + css]));
  return root;
}
