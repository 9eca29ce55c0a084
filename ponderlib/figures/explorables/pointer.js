// The pointer's explorable: the reader edits a short input array x_1..x_n, the scores u_j of one
// decoder step and which positions were already chosen; the page shows the pointer distribution (the
// masked softmax over input positions), the positions the mask removes and greedy decoding's next
// choice. It calls parseArray and pointerStep (pointer_step.js) and the helpers of controls.js, which
// the Python side puts in front of this view: one ES module, saved in the widget state.

const NEW_SCORE = 0; // u_j of a position the reader adds

// Every explorable's style sheet is global to the page: a rule that overrides BASE_CSS names .pe too.
const CSS = `
.pe.pe-pointer .pe-row { grid-template-columns: 3.2rem 1fr 5rem 5.5rem; }
.pe.pe-pointer .pe-row.pe-array { grid-template-columns: 3.2rem 1fr; }
.pe-pointer input[type=text] { min-height: 44px; font-size: 16px; box-sizing: border-box; width: 100%;
  padding: 0 0.4rem; color: inherit; background: transparent; border: 1px solid var(--pe-line);
  border-radius: 4px; }
.pe-pointer label.pe-chosen { display: flex; align-items: center; gap: 0.2rem; font-size: 0.9rem; }
.pe-pointer input[type=checkbox] { width: 44px; height: 44px; margin: 0; accent-color: var(--pe-color); }
.pe-pointer tr.pe-masked td { opacity: 0.55; }
.pe-pointer tr.pe-choice td { font-weight: 700; }
`;

function render({ model, el }) {
  const color = model.get("color");
  const scores = Array.from({ length: MAX_POSITIONS }, (_, j) => model.get("scores")[j] ?? NEW_SCORE);
  const chosen = Array.from({ length: MAX_POSITIONS }, (_, j) => model.get("emitted").includes(j + 1));
  const texts = { array: model.get("array").join(" "), scores: scores.map(String) };
  const saved = { array: texts.array, emitted: model.get("emitted").join(" ") }; // what update last saved

  const root = explorableRoot("pointer", color, CSS);

  const arrayField = make("input", { type: "text", "aria-label": "the input array x_1 to x_n",
    "data-control": "array", spellcheck: "false" });
  root.append(make("div", { class: "pe-row pe-array" }, [make("span", {}, ["x"]), arrayField]));
  root.append(make("p", {}, ["Each position's score ", ...subscripted("u", "j"),
    " at this decoder step, and whether it was chosen at an earlier step:"]));
  const scoreControls = scores.map((_, j) => {
    const control = slider(`score u${j + 1}`, -6, 6, 0.1, "u", j + 1);
    control.box = make("input", { type: "checkbox", "aria-label": `position ${j + 1} already chosen`,
      "data-control": "chosen", "data-step": j + 1 });
    control.row = make("div", { class: "pe-row" }, [make("span", {}, subscripted("u", j + 1)), control.range,
      control.field, make("label", { class: "pe-chosen" }, [control.box, "chosen"])]);
    root.append(control.row);
    return control;
  });

  const message = make("p", { class: "pe-message", role: "alert" });
  const results = make("div", { class: "pe-results" });
  const out = { choice: make("output", { "data-quantity": "choice" }),
    chosenValue: make("span", {}), masked: make("output", { "data-quantity": "masked" }) };
  const choiceText = make("p", { class: "pe-summary" }, ["Greedy decoding's next choice: position ",
    out.choice, out.chosenValue]);
  const maskText = make("p", {}, ["The mask removes positions: ", out.masked]);
  const chart = svg("svg", { viewBox: "0 0 320 190", role: "img" });
  const table = make("table");
  const header = [["j"], subscripted("x", "j"), subscripted("u", "j"), ["mask"], ["p(C", make("sub", {}, ["i"]),
    " = j)"]].map((children) => make("th", {}, children));
  const body = make("tbody");
  table.append(make("thead", {}, [make("tr", {}, header)]), body);
  results.append(choiceText, maskText, make("div", { class: "pe-figures" }, [chart,
    make("div", { style: "overflow-x: auto" }, [table])]));
  root.append(message, results);
  el.append(root);

  function draw(array, step) {
    const n = array.length;
    const [left, right, upper, lower] = [34, 312, 12, 160];
    const width = (right - left) / n;
    const y = (value) => lower - (lower - upper) * value;
    chart.replaceChildren();
    chart.setAttribute("aria-label", `bars: p(C_i = j) for the ${n} input positions; crosses: masked`);
    axis(chart, left, right, lower, y, [0, 0.5, 1]);
    array.forEach((x, j) => {
      const middle = left + width * (j + 0.5);
      const p = step.probs[j];
      chart.append(svg("rect", { x: middle - width * 0.35, width: width * 0.7, y: y(p), height: lower - y(p),
        fill: color, "fill-opacity": j === step.choice ? 1 : 0.6 }));
      if (chosen[j]) {
        const cross = svg("text", { x: middle, y: lower - 6, "text-anchor": "middle", style: "fill: var(--pe-danger)" });
        cross.textContent = "×";
        chart.append(cross);
      }
      const label = svg("text", { x: middle, y: lower + 13, "text-anchor": "middle" });
      label.textContent = format(x);
      chart.append(label);
    });
    const legend = svg("text", { x: left, y: 184 });
    legend.textContent = "bars: p(C_i = j) above each x_j; ×: masked";
    chart.append(legend);
  }

  function tabulate(array, values, step) {
    body.replaceChildren();
    array.forEach((x, j) => {
      const cells = [String(j + 1), format(x), format(values[j]), chosen[j] ? "removed" : "open"];
      const row = make("tr", {}, cells.map((text) => make("td", {}, [text])));
      row.append(make("td", { "data-quantity": "p", "data-step": j + 1 }, [format(step.probs[j])]));
      if (chosen[j]) row.className = "pe-masked";
      if (j === step.choice) row.className = "pe-choice";
      body.append(row);
    });
  }

  function update() {
    const computed = computeOrSay(() => {
      const given = parseArray(texts.array);
      const scored = texts.scores.slice(0, given.length).map(parse);
      return [given, scored, pointerStep(scored, chosen.slice(0, given.length).map((used) => !used))];
    }, message, results);
    if (computed === null) return;
    const [array, values, step] = computed;
    scoreControls.forEach((control, j) => { control.row.hidden = j >= array.length; });
    const masked = array.map((_, j) => j + 1).filter((j) => chosen[j - 1]);
    out.masked.textContent = masked.length ? masked.join(", ") : "none";
    if (step.choice === -1) {
      out.choice.textContent = "none";
      out.chosenValue.textContent = ": every position is masked, so this sample has finished (the library "
        + "writes -1 for its step).";
    } else {
      out.choice.textContent = String(step.choice + 1);
      out.chosenValue.textContent = `, x = ${format(array[step.choice])}, with p = ${format(step.probs[step.choice])}; `
        + "its embedding is the decoder's next input.";
    }
    draw(array, step);
    tabulate(array, values, step);
    Object.assign(saved, { array: array.join(" "), emitted: masked.join(" ") });
    model.set("array", array);
    model.set("scores", scores.slice(0, array.length));
    model.set("emitted", masked);
    model.save_changes();
  }

  function showValues() {
    arrayField.value = texts.array;
    scoreControls.forEach((control, j) => {
      control.range.value = String(scores[j]);
      control.field.value = texts.scores[j];
      control.box.checked = chosen[j];
    });
  }

  arrayField.addEventListener("input", () => {
    texts.array = arrayField.value;
    update();
  });
  scoreControls.forEach((control, j) => {
    listen(control, (value, text) => {
      if (typeof value === "number") scores[j] = value;
      texts.scores[j] = text;
    }, update);
    control.box.addEventListener("change", () => {
      chosen[j] = control.box.checked;
      update();
    });
  });
  // Set from Python while a kernel runs (the page's own changes come back as the values it last saved).
  const redraw = () => { showValues(); update(); };
  follow(model, "array", (given) => given.join(" ") === saved.array, (given) => { texts.array = given.join(" "); }, redraw);
  follow(model, "scores", (given) => given.every((u, j) => u === scores[j]), (given) => {
    given.forEach((u, j) => { scores[j] = u; texts.scores[j] = String(u); });
  }, redraw);
  follow(model, "emitted", (given) => given.join(" ") === saved.emitted, (given) => {
    chosen.forEach((_, j) => { chosen[j] = given.includes(j + 1); });
  }, redraw);
  showValues();
  update();
}

export default { render };
