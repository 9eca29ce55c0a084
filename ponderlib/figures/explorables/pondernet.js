// PonderNet's explorable: the reader sets lambda_1..lambda_{N-1} (step N takes what is left), the
// prior's lambda_p and truncation, and a loss L_n per step; the page shows p_n beside the truncated
// geometric prior, E[n], both KL directions with their terms and the expected loss L_Rec. It calls
// pondernetQuantities (pondernet_halting.js) and the helpers of controls.js, which the Python side
// puts in front of this view: one ES module, saved in the widget state.

const NEW_LAMBDA = 0.3; // lambda_n of a step the reader adds
const NEW_LOSS = 0.5; // L_n of a step the reader adds

const CSS = `
.pe-pondernet .pe-losses { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; }
.pe-pondernet .pe-losses label { display: flex; align-items: center; gap: 0.3rem; }
.pe-pondernet .pe-losses input { width: 5.5rem; }
.pe-pondernet .pe-terms { margin: 0.25rem 0; }
.pe-pondernet select[data-control=truncation] { grid-column: 2 / 4; justify-self: end; }
`;

function render({ model, el }) {
  const given = { lambdas: model.get("lambdas"), losses: model.get("step_losses") };
  const lambdas = Array.from({ length: MAX_STEPS }, (_, n) => given.lambdas[n] ?? NEW_LAMBDA);
  const losses = Array.from({ length: MAX_STEPS }, (_, n) => given.losses[n] ?? NEW_LOSS);
  let steps = given.lambdas.length;
  let lambdaP = model.get("lambda_p");
  let truncation = model.get("truncation");
  const texts = { lambdaP: String(lambdaP), lambdas: lambdas.map(String), losses: losses.map(String) };

  const root = explorableRoot("pondernet", model.get("color"), CSS);

  const cap = stepPicker("ponder steps N", "N", "ponder steps");
  const stepChoice = cap.choice;
  const truncationChoice = make("select", { "aria-label": "the prior cut at N",
    "data-control": "truncation" });
  for (const name of PRIOR_TRUNCATIONS) truncationChoice.append(make("option", { value: name }, [name]));
  const priorControl = slider("the prior's lambda_p", 0.01, 0.99, 0.01, "lambda-p");
  root.append(cap.row);
  root.append(row(subscripted("λ", "p"), priorControl.range, priorControl.field));
  root.append(row(["cut"], truncationChoice));
  const lambdaControls = lambdas.map((_, n) => {
    const control = slider(`lambda ${n + 1}`, 0, 1, 0.01, "lambda", n + 1);
    control.row = row(subscripted("λ", n + 1), control.range, control.field);
    root.append(control.row);
    return control;
  });
  const lastStep = make("p", {});
  const lossFields = losses.map((_, n) => {
    const field = numberField(`loss L${n + 1}`, "loss", n + 1);
    field.label = make("label", {}, [make("span", {}, subscripted("L", n + 1)), field]);
    return field;
  });
  root.append(lastStep, make("p", {}, ["The loss of each step's prediction:"]),
    make("div", { class: "pe-losses" }, lossFields.map((field) => field.label)));

  const message = make("p", { class: "pe-message", role: "alert" });
  const results = make("div", { class: "pe-results" });
  const out = {};
  for (const name of ["expected-steps", "prior-expected-steps", "reconstruction", "kl-paper", "entropy",
    "step-price", "rest", "kl-reverse", "prior-entropy", "cross-entropy"]) {
    out[name] = make("output", { "data-quantity": name });
  }
  results.append(
    make("p", { class: "pe-summary" }, ["E[n] = ", out["expected-steps"], " (the prior's ",
      out["prior-expected-steps"], "), ", ...subscripted("L", "Rec"), " = Σ p", make("sub", {}, ["n"]),
      " L", make("sub", {}, ["n"]), " = ", out.reconstruction]),
    make("p", { class: "pe-terms" }, ["KL(p ‖ p", make("sub", {}, ["G"]), ") = ", out["kl-paper"],
      " = −H(p) + step price + rest, with H(p) = ", out.entropy, ", step price (E[n] − 1)(−log(1 − λ",
      make("sub", {}, ["p"]), ")) = ", out["step-price"], ", rest = ", out.rest]),
    make("p", { class: "pe-terms" }, ["KL(p", make("sub", {}, ["G"]), " ‖ p) = ", out["kl-reverse"],
      " = −H(p", make("sub", {}, ["G"]), ") + cross-entropy, with H(p", make("sub", {}, ["G"]), ") = ",
      out["prior-entropy"], ", cross-entropy Σ p", make("sub", {}, ["G"]), "(n)(−log p",
      make("sub", {}, ["n"]), ") = ", out["cross-entropy"]]),
  );
  const chart = svg("svg", { viewBox: "0 0 320 190", role: "img" });
  const table = make("table");
  const header = [["n"], subscripted("λ", "n"), subscripted("p", "n"), ["p", make("sub", {}, ["G"]), "(n)"],
    subscripted("L", "n")].map((children) => make("th", {}, children));
  const body = make("tbody");
  table.append(make("thead", {}, [make("tr", {}, header)]), body);
  results.append(make("div", { class: "pe-figures" }, [chart,
    make("div", { style: "overflow-x: auto" }, [table])]));
  root.append(message, results);
  el.append(root);

  function draw(computed) {
    const top = Math.max(...computed.probs, ...computed.prior, 0.05);
    const [left, right, upper, lower] = [34, 312, 12, 160];
    const width = (right - left) / steps;
    const y = (value) => lower - ((lower - upper) * value) / top;
    chart.replaceChildren();
    chart.setAttribute("aria-label", `bars: p_n and the prior p_G(n) for n = 1 to ${steps}`);
    axis(chart, left, right, lower, y, [0, top / 2, top]);
    computed.probs.forEach((p, n) => {
      const x = left + width * n;
      chart.append(svg("rect", { x: x + width * 0.1, width: width * 0.4, y: y(p), height: lower - y(p),
        fill: model.get("color") }));
      const g = computed.prior[n];
      chart.append(svg("rect", { x: x + width * 0.5, width: width * 0.4, y: y(g), height: lower - y(g),
        fill: model.get("prior_color") }));
      const label = svg("text", { x: x + width / 2, y: lower + 13, "text-anchor": "middle" });
      label.textContent = String(n + 1);
      chart.append(label);
    });
    const legend = svg("text", { x: left, y: 184 });
    legend.textContent = "left bar: p_n, right bar: the prior p_G(n)";
    chart.append(legend);
  }

  function tabulate(computed) {
    body.replaceChildren();
    computed.probs.forEach((p, n) => {
      const lambda = n === steps - 1 ? "1 (the rest)" : format(lambdas[n]);
      body.append(make("tr", {}, [
        make("td", {}, [String(n + 1)]),
        make("td", {}, [lambda]),
        make("td", { "data-quantity": "p", "data-step": n + 1 }, [format(p)]),
        make("td", { "data-quantity": "prior", "data-step": n + 1 }, [format(computed.prior[n])]),
        make("td", {}, [format(losses[n])]),
      ]));
    });
  }

  function update() {
    const computed = computeOrSay(() => pondernetQuantities(texts.lambdas.slice(0, steps - 1).map(parse).concat([1]),
      parse(texts.lambdaP), truncation, texts.losses.slice(0, steps).map(parse)), message, results);
    if (computed === null) return;
    const shown = {
      "expected-steps": computed.expectedSteps, "prior-expected-steps": computed.priorExpectedSteps,
      reconstruction: computed.reconstruction, "kl-paper": computed.paper, entropy: computed.entropy,
      "step-price": computed.stepPrice, rest: computed.rest, "kl-reverse": computed.reverse,
      "prior-entropy": computed.priorEntropy, "cross-entropy": computed.crossEntropy,
    };
    for (const [name, value] of Object.entries(shown)) out[name].textContent = format(value);
    draw(computed);
    tabulate(computed);
    model.set("lambdas", lambdas.slice(0, steps - 1).concat([1]));
    model.set("step_losses", losses.slice(0, steps));
    model.set("lambda_p", lambdaP);
    model.set("truncation", truncation);
    model.save_changes();
  }

  function showValues() {
    lambdaControls.forEach((control, n) => {
      control.row.hidden = n >= steps - 1;
      control.range.value = String(lambdas[n]);
      control.field.value = texts.lambdas[n];
    });
    lossFields.forEach((field, n) => {
      field.label.hidden = n >= steps;
      field.value = texts.losses[n];
    });
    lastStep.replaceChildren("Step ", String(steps), " is the last: it takes what is left, λ",
      make("sub", {}, [String(steps)]), " := 1.");
    priorControl.range.value = String(lambdaP);
    priorControl.field.value = texts.lambdaP;
    stepChoice.value = String(steps);
    truncationChoice.value = truncation;
  }

  lambdaControls.forEach((control, n) => listen(control, (value, text) => {
    if (typeof value === "number") lambdas[n] = value;
    texts.lambdas[n] = text;
  }, update));
  listen(priorControl, (value, text) => {
    if (typeof value === "number") lambdaP = value;
    texts.lambdaP = text;
  }, update);
  lossFields.forEach((field, n) => field.addEventListener("input", () => {
    const value = parse(field.value);
    if (typeof value === "number") losses[n] = value;
    texts.losses[n] = field.value;
    update();
  }));
  stepChoice.addEventListener("change", () => {
    steps = Number(stepChoice.value);
    showValues();
    update();
  });
  truncationChoice.addEventListener("change", () => {
    truncation = truncationChoice.value;
    update();
  });
  const redraw = () => { showValues(); update(); };
  follow(model, "lambdas", (given) => given.length === steps
    && given.slice(0, -1).every((lambda, n) => lambda === lambdas[n]), (given) => {
    given.forEach((lambda, n) => { lambdas[n] = lambda; texts.lambdas[n] = String(lambda); });
    steps = given.length;
  }, redraw);
  follow(model, "step_losses", (given) => given.every((loss, n) => loss === losses[n]), (given) => {
    given.forEach((loss, n) => { losses[n] = loss; texts.losses[n] = String(loss); });
  }, redraw);
  follow(model, "lambda_p", (given) => given === lambdaP, (given) => {
    lambdaP = given;
    texts.lambdaP = String(given);
  }, redraw);
  follow(model, "truncation", (given) => given === truncation, (given) => { truncation = given; }, redraw);
  showValues();
  update();
}

export default { render };
