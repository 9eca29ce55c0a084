// ACT's explorable: the reader sets h_1..h_M and eps; the page shows N, R, p_n, rho and the
// gradient of rho, as numbers and as a bar chart. It calls actHalting (act_halting.js) and the
// helpers of controls.js, which the Python side puts in front of this view: one ES module, saved in
// the widget state.

const NEW_UNIT = 0.1; // h_n of a step the reader adds

const CSS = `
.pe-act tr.pe-halt td { font-weight: 700; }
.pe-act tr.pe-after td { opacity: 0.55; }
`;

function render({ model, el }) {
  const color = model.get("color");
  const units = Array.from({ length: MAX_STEPS }, (_, n) => model.get("halting_units")[n] ?? NEW_UNIT);
  let steps = model.get("halting_units").length;
  let eps = model.get("eps");
  const texts = { eps: String(eps), units: units.map(String) };

  const root = explorableRoot("act", color, CSS);

  const { stepChoice, epsControl } = capAndSlack(root, (value, text) => {
    if (typeof value === "number") eps = value;
    texts.eps = text;
  }, (chosen) => {
    steps = chosen;
    showValues();
    update();
  }, update);
  stepChoice.value = String(steps);

  const unitControls = units.map((_, n) => {
    const control = slider(`halting unit h${n + 1}`, 0, 1, 0.005, "h", n + 1);
    control.row = row(subscripted("h", n + 1), control.range, control.field);
    root.append(control.row);
    return control;
  });

  const message = make("p", { class: "pe-message", role: "alert" });
  const results = make("div", { class: "pe-results" });
  const outputs = {};
  for (const name of ["ponder-steps", "remainder", "ponder-cost"]) {
    outputs[name] = make("output", { "data-quantity": name });
  }
  results.append(make("p", { class: "pe-summary" }, ["N = ", outputs["ponder-steps"], ", R = ",
    outputs.remainder, ", ρ = N + R = ", outputs["ponder-cost"]]));
  const gradientText = make("p", { "data-quantity": "gradient-summary" });
  const chart = svg("svg", { viewBox: "0 0 320 190", role: "img" });
  const table = make("table");
  const header = [["n"], subscripted("h", "n"), ["Σ h"], subscripted("p", "n"),
    ["∂ρ/∂h", make("sub", {}, ["n"])]].map((children) => make("th", {}, children));
  const body = make("tbody");
  table.append(make("thead", {}, [make("tr", {}, header)]), body);
  results.append(make("div", { class: "pe-figures" }, [chart,
    make("div", { style: "overflow-x: auto" }, [table])]), gradientText);
  root.append(message, results);
  el.append(root);

  function draw(halted) {
    const shownUnits = units.slice(0, steps);
    const top = Math.max(1, halted.runningSum[halted.ponderSteps - 1]);
    const [left, right, upper, lower] = [34, 312, 12, 160];
    const x = (n) => left + ((right - left) * n) / steps;
    const y = (value) => lower - ((lower - upper) * value) / top;
    const width = (right - left) / steps;
    chart.replaceChildren();
    chart.setAttribute("aria-label", `bars: p_n for n = 1 to ${steps}; the sum of h reaches `
      + `1 - eps at step ${halted.ponderSteps}`);
    axis(chart, left, right, lower, y, [0, 0.5, 1]);
    shownUnits.forEach((h, n) => {
      const p = halted.haltingProbs[n];
      chart.append(svg("rect", { x: x(n) + width * 0.15, width: width * 0.7, y: y(h),
        height: lower - y(h), fill: "none", stroke: "currentColor", "stroke-dasharray": "3 2" }));
      chart.append(svg("rect", { x: x(n) + width * 0.15, width: width * 0.7, y: y(p),
        height: lower - y(p), fill: color, "fill-opacity": n === halted.ponderSteps - 1 ? 1 : 0.6 }));
      const label = svg("text", { x: x(n) + width / 2, y: lower + 13, "text-anchor": "middle" });
      label.textContent = n === halted.ponderSteps - 1 ? `${n + 1} = N` : String(n + 1);
      chart.append(label);
    });
    const points = halted.runningSum.slice(0, halted.ponderSteps)
      .map((sum, n) => `${x(n) + width / 2},${y(sum)}`).join(" ");
    chart.append(svg("polyline", { points, fill: "none", stroke: "currentColor", "stroke-width": 1.5 }));
    chart.append(svg("line", { x1: left, x2: right, y1: y(1 - eps), y2: y(1 - eps),
      style: "stroke: var(--pe-danger)", "stroke-dasharray": "5 3" }));
    const legend = svg("text", { x: left, y: 184 });
    const part = (text, shift) => {
      const span = svg("tspan", shift ? { "baseline-shift": "sub", "font-size": 8 } : {});
      span.textContent = text;
      return span;
    };
    legend.append(part("filled: p"), part("n", true), part(", dashed: h"), part("n", true),
      part(", line: Σ h, red: 1 − ε"));
    chart.append(legend);
  }

  function tabulate(halted) {
    body.replaceChildren();
    units.slice(0, steps).forEach((h, n) => {
      const cells = [String(n + 1), format(h), format(halted.runningSum[n])];
      const row = make("tr", {}, cells.map((text) => make("td", {}, [text])));
      const p = make("td", { "data-quantity": "p", "data-step": n + 1 }, [format(halted.haltingProbs[n])]);
      const gradient = make("td", { "data-quantity": "gradient", "data-step": n + 1 },
        [format(halted.gradient[n])]);
      row.append(p, gradient);
      if (n === halted.ponderSteps - 1) row.className = "pe-halt";
      if (n >= halted.ponderSteps) row.className = "pe-after";
      body.append(row);
    });
  }

  function explain(halted) {
    const N = halted.ponderSteps;
    if (N === 1) {
      gradientText.replaceChildren("N = 1: R = 1 is a constant, so ρ sends no gradient to any "
        + "halting unit.");
      return;
    }
    const reached = N === 2 ? subscripted("h", 1) : [...subscripted("h", 1), " … ",
      ...subscripted("h", N - 1)];
    gradientText.replaceChildren("The gradient of ρ reaches ", ...reached, " (−1 each) through R; ",
      ...subscripted("h", N), ", the unit at the halting step, and every later unit get none.");
  }

  function update() {
    const halted = computeOrSay(() => actHalting(texts.units.slice(0, steps).map(parse), parse(texts.eps)),
      message, results);
    if (halted === null) return;
    outputs["ponder-steps"].textContent = String(halted.ponderSteps);
    outputs.remainder.textContent = format(halted.remainder);
    outputs["ponder-cost"].textContent = format(halted.ponderCost);
    draw(halted);
    tabulate(halted);
    explain(halted);
    model.set("halting_units", units.slice(0, steps));
    model.set("eps", eps);
    model.save_changes();
  }

  function showValues() {
    unitControls.forEach((control, n) => {
      control.row.hidden = n >= steps;
      control.range.value = String(units[n]);
      control.field.value = texts.units[n];
    });
    epsControl.range.value = String(eps);
    epsControl.field.value = texts.eps;
  }

  unitControls.forEach((control, n) => listen(control, (value, text) => {
    if (typeof value === "number") units[n] = value;
    texts.units[n] = text;
  }, update));
  const redraw = () => { showValues(); update(); };
  follow(model, "halting_units", (given) => given.length === steps && given.every((h, n) => h === units[n]),
    (given) => {
      given.forEach((h, n) => { units[n] = h; texts.units[n] = String(h); });
      steps = given.length;
      stepChoice.value = String(steps);
    }, redraw);
  follow(model, "eps", (given) => given === eps, (given) => { eps = given; texts.eps = String(given); }, redraw);
  showValues();
  update();
}

export default { render };
