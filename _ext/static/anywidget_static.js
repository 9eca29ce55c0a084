// The book's explorables (ponderlib.figures.explorables) are anywidget widgets: their view is an ES
// module saved in the widget state (the model's "_esm"). The ipywidgets html-manager the pages load
// (the standalone embed.js of @jupyter-widgets/html-manager 1.0.6) builds its manager with no module
// loader, so it renders only ipywidgets' own models and logs "Could not load module
// anywidget@~0.9.*" for the others, without a request. So this script takes
// anywidget's models out of the page's widget state before the manager reads it (the manager
// renders on the window's load, this runs on DOMContentLoaded), and runs each saved module itself,
// in place of its view, with the part of anywidget's model interface a page without a kernel can
// offer: get, set, on, off, save_changes (which has no kernel to send to) and send.
(() => {
  const STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
  const VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';

  function pageModel(saved) {
    const values = { ...saved };
    const listeners = new Map();
    return {
      get: (name) => values[name],
      set: (name, value) => {
        values[name] = value;
        for (const callback of listeners.get(`change:${name}`) || []) callback();
      },
      on: (event, callback) => listeners.set(event, [...(listeners.get(event) || []), callback]),
      off: (event, callback) => listeners.set(event, (listeners.get(event) || []).filter((c) => c !== callback)),
      save_changes: () => {},
      send: () => {},
    };
  }

  async function run(saved, element) {
    const url = URL.createObjectURL(new Blob([saved._esm], { type: "text/javascript" }));
    try {
      const module = await import(url);
      const widget = typeof module.default === "function" ? module.default() : module.default ?? module;
      const model = pageModel(saved);
      if (saved._css) element.append(Object.assign(document.createElement("style"), { textContent: saved._css }));
      if (widget.initialize) await widget.initialize({ model });
      await widget.render({ model, el: element });
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    const anywidgets = new Map();
    for (const script of document.querySelectorAll(STATE)) {
      const state = JSON.parse(script.textContent);
      for (const [id, model] of Object.entries(state.state || {})) {
        if (model.model_module !== "anywidget") continue;
        anywidgets.set(id, model.state);
        delete state.state[id];
      }
      if (anywidgets.size) script.textContent = JSON.stringify(state);
    }
    for (const view of document.querySelectorAll(VIEW)) {
      const saved = anywidgets.get(JSON.parse(view.textContent).model_id);
      if (!saved) continue;
      const element = Object.assign(document.createElement("div"), { className: "anywidget-static" });
      view.replaceWith(element);
      // data-rendered says when the view is drawn (or failed): the PDF printer waits for it.
      run(saved, element).then(
        () => { element.dataset.rendered = "yes"; },
        (error) => { element.dataset.rendered = "failed"; console.error("an explorable did not render:", error); },
      );
    }
  });
})();
