// The Universal Transformer's explorable: per-position halting on a short program. The reader sets the
// cap M, eps and each position's halting units h^1_i..h^M_i (one position at a time), and picks a ponder
// step n; the page shows each position's N_i, R_i, p^n_i and rho_i, the steps the loop runs, which
// positions are frozen at step n and how many of the block's applications go to frozen positions. It
// calls positionHalting (ut_halting.js, over actHalting of act_halting.js) and the helpers of
// controls.js, which the Python side puts in front of this view: one ES module, saved in the widget state.

const NEW_UNIT = 0.5; // h^n_i of a step the reader adds

const CSS = `
.pe-ut td.pe-line { text-align: left; white-space: nowrap; }
.pe-ut tr.pe-frozen td { opacity: 0.55; }
.pe-ut td.pe-halt { font-weight: 700; }
`;

function render({ model, el }) {
  const color = model.get("color");
  const program = model.get("program");
  const units = program.map((_, i) => Array.from({ length: MAX_STEPS },
    (_, n) => model.get("halting_units")[i][n] ?? NEW_UNIT));
  let steps = model.get("halting_units")[0].length;
  let eps = model.get("eps");
  let step = model.get("step");
  let position = 0;
  const texts = { eps: String(eps), units: units.map((row) => row.map(String)) };

  const root = explorableRoot("ut", color, CSS);

  const { stepChoice, epsControl } = capAndSlack(root, (value, text) => {
    if (typeof value === "number") eps = value;
    texts.eps = text;
  }, (chosen) => {
    steps = chosen;
    step = Math.min(step, steps);
    showValues();
    update();
  }, update);
  const positionChoice = make("select", { "aria-label": "the position whose halting units you set",
    "data-control": "position" });
  program.forEach((line, i) => positionChoice.append(make("option", { value: i }, [`${i + 1}: ${line}`])));
  root.append(row(["i"], make("span", {}, ["position to set"]), positionChoice));
  const unitControls = Array.from({ length: MAX_STEPS }, (_, n) => {
    const control = slider(`halting unit h${n + 1} of the position`, 0, 1, 0.005, "h", n + 1);
    control.row = row(["h", make("sup", {}, [String(n + 1)]), make("sub", {}, ["i"])], control.range, control.field);
    root.append(control.row);
    return control;
  });
  const viewControl = { range: make("input", { type: "range", min: 1, max: steps, step: 1,
    "aria-label": "the ponder step n shown", "data-control": "step" }) };
  viewControl.field = make("output", { "data-quantity": "step" });
  root.append(make("div", { class: "pe-row" }, [make("span", {}, ["step n"]), viewControl.range,
    viewControl.field]));

  const message = make("p", { class: "pe-message", role: "alert" });
  const results = make("div", { class: "pe-results" });
  const stepText = make("span");
  const out = {};
  for (const name of ["steps-run", "frozen", "running", "block-runs", "frozen-runs"]) {
    out[name] = make("output", { "data-quantity": name });
  }
  results.append(
    make("p", { class: "pe-summary" }, ["At step n = ", stepText, "frozen (state copied): ",
      out.frozen, "; still running: ", out.running, "."]),
    make("p", {}, ["The loop runs ", out["steps-run"], " steps, until the last position halts: ",
      out["block-runs"], " applications of the block, ", out["frozen-runs"], " of them to frozen positions."]),
  );
  const chart = svg("svg", { viewBox: "0 0 320 230", role: "img" });
  const table = make("table");
  const body = make("tbody");
  const head = make("tr");
  table.append(make("thead", {}, [head]), body);
  results.append(make("div", { class: "pe-figures" }, [chart, make("div", { style: "overflow-x: auto" }, [table])]));
  root.append(message, results);
  el.append(root);

  function draw(computed) {
    const [left, right, upper, lower] = [44, 316, 22, 200];
    const width = (right - left) / program.length;
    const height = (lower - upper) / steps;
    chart.replaceChildren();
    chart.setAttribute("aria-label", `grid: ponder steps 1 to ${steps} down, positions across; `
      + `each cell h^n_i, solid at the halting step N_i, faint where frozen`);
    program.forEach((line, i) => {
      const label = svg("text", { x: left + width * (i + 0.5), y: upper - 8, "text-anchor": "middle",
        style: "font-size: 9px" });
      label.textContent = line.length > 9 ? `${i + 1}` : line;
      chart.append(label);
      const halted = computed.positions[i].ponderSteps;
      for (let n = 1; n <= steps; n += 1) {
        const cell = { x: left + width * i + 1, y: upper + height * (n - 1) + 1, width: width - 2, height: height - 2 };
        const frozen = n > halted;
        if (n > computed.stepsRun) continue; // the loop has stopped: no step n at all
        chart.append(svg("rect", { ...cell, fill: frozen ? "none" : color, "fill-opacity": n === halted ? 0.95 : 0.35,
          stroke: "currentColor", "stroke-opacity": frozen ? 0.3 : 0, "stroke-dasharray": "3 2" }));
        const value = svg("text", { x: cell.x + cell.width / 2, y: cell.y + cell.height / 2 + 4, "text-anchor": "middle",
          "fill-opacity": frozen ? 0.45 : 1 });
        value.textContent = frozen ? "copied" : format(Number(units[i][n - 1].toFixed(3)));
        chart.append(value);
      }
    });
    for (let n = 1; n <= steps; n += 1) {
      const label = svg("text", { x: left - 6, y: upper + height * (n - 0.5) + 4, "text-anchor": "end" });
      label.textContent = `n = ${n}`;
      chart.append(label);
      if (n > computed.stepsRun) {
        const note = svg("text", { x: (left + right) / 2, y: upper + height * (n - 0.5) + 4, "text-anchor": "middle",
          "fill-opacity": 0.6 });
        note.textContent = "not run: every position has halted";
        chart.append(note);
      }
    }
    chart.append(svg("rect", { x: left - 2, y: upper + height * (step - 1), width: right - left + 4, height,
      fill: "none", style: "stroke: var(--pe-danger)", "stroke-width": 2 }));
    const legend = svg("text", { x: left, y: 220 });
    legend.textContent = "cells: h^n_i; solid: the halting step N_i; red: step n";
    chart.append(legend);
  }

  function tabulate(computed) {
    head.replaceChildren(...[["i"], ["line"], subscripted("N", "i"), subscripted("R", "i"), ["ρ", make("sub", {}, ["i"])],
      ...Array.from({ length: steps }, (_, n) => ["p", make("sup", {}, [String(n + 1)]), make("sub", {}, ["i"])])]
      .map((children) => make("th", {}, children)));
    body.replaceChildren();
    computed.positions.forEach((halted, i) => {
      const cells = [make("td", {}, [String(i + 1)]), make("td", { class: "pe-line" }, [program[i]]),
        make("td", { "data-quantity": "ponder-steps", "data-step": i + 1 }, [String(halted.ponderSteps)]),
        make("td", { "data-quantity": "remainder", "data-step": i + 1 }, [format(halted.remainder)]),
        make("td", { "data-quantity": "ponder-cost", "data-step": i + 1 }, [format(halted.ponderCost)])];
      halted.haltingProbs.forEach((p, n) => {
        const cell = make("td", { "data-quantity": "p", "data-step": i + 1 }, [format(p)]);
        if (n === halted.ponderSteps - 1) cell.className = "pe-halt";
        cells.push(cell);
      });
      const line = make("tr", {}, cells);
      if (halted.ponderSteps < step) line.className = "pe-frozen";
      body.append(line);
    });
  }

  function update() {
    const computed = computeOrSay(() => positionHalting(texts.units.map((row) => row.slice(0, steps).map(parse)),
      parse(texts.eps)), message, results);
    if (computed === null) return;
    const frozen = computed.frozenAt(step);
    const running = program.map((_, i) => i + 1).filter((i) => !frozen.includes(i));
    stepText.textContent = `${step}, `;
    out.frozen.textContent = frozen.length ? frozen.join(", ") : "none";
    out.running.textContent = running.length ? running.join(", ") : "none (the loop has stopped)";
    out["steps-run"].textContent = String(computed.stepsRun);
    out["block-runs"].textContent = String(computed.blockRuns);
    out["frozen-runs"].textContent = String(computed.frozenRuns);
    viewControl.field.textContent = String(step);
    draw(computed);
    tabulate(computed);
    model.set("halting_units", units.map((row) => row.slice(0, steps)));
    model.set("eps", eps);
    model.set("step", step);
    model.save_changes();
  }

  function showValues() {
    unitControls.forEach((control, n) => {
      control.row.hidden = n >= steps;
      control.range.value = String(units[position][n]);
      control.field.value = texts.units[position][n];
    });
    epsControl.range.value = String(eps);
    epsControl.field.value = texts.eps;
    stepChoice.value = String(steps);
    positionChoice.value = String(position);
    viewControl.range.max = String(steps);
    viewControl.range.value = String(step);
  }

  unitControls.forEach((control, n) => listen(control, (value, text) => {
    if (typeof value === "number") units[position][n] = value;
    texts.units[position][n] = text;
  }, update));
  positionChoice.addEventListener("change", () => {
    position = Number(positionChoice.value);
    showValues();
  });
  viewControl.range.addEventListener("input", () => {
    step = Number(viewControl.range.value);
    update();
  });
  // Set from Python while a kernel runs.
  const redraw = () => { showValues(); update(); };
  follow(model, "halting_units", (given) => given[0].length === steps
    && given.every((row, i) => row.every((h, n) => h === units[i][n])), (given) => {
    given.forEach((row, i) => row.forEach((h, n) => { units[i][n] = h; texts.units[i][n] = String(h); }));
    steps = given[0].length;
    step = Math.min(step, steps);
  }, redraw);
  follow(model, "eps", (given) => given === eps, (given) => { eps = given; texts.eps = String(given); }, redraw);
  follow(model, "step", (given) => given === step, (given) => { step = given; }, redraw);
  showValues();
  update();
}

export default { render };
