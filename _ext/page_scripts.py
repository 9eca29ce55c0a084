"""Fixes to the book's pages, each for something a reader would meet.

1. Sphinx 7.4 writes an inline script that an extension registers after the builder has started
   twice into every page (once as given, once re-read from the registry). For sphinx-thebe's
   ``const THEBE_JS_URL = ...`` the second copy throws "Identifier has already been declared".
2. The ipywidgets html-manager (``@jupyter-widgets/base`` 6) typesets widget labels with MathJax 2's
   ``MathJax.Hub.Queue``; the book loads MathJax 3, which has no ``Hub``. A one-line bridge sends
   that call to MathJax 3's ``typesetPromise``.
3. An image drawn by a widget (a figure with a slider) has no alt text: ipywidgets' ``Image`` has no
   such field. The page gives it its figure's caption.
4. Sphinx's search shows a snippet of the page's text as the HTML holds it, formulas as raw LaTeX
   (``\\(b_h = 3\\)``). The snippet drops display math and shows inline math as plain symbols.
5. A table wider than its column (on a phone) scrolls in its own box; the page puts that box in a
   frame that shows a fade at the edge beyond which more columns lie, so a reader sees that it scrolls.
6. ``static/anywidget_static.js``: the explorables (``ponderlib.figures.explorables``) are anywidget
   widgets, which the html-manager cannot load; this script runs their saved ES modules itself, from
   the page, with no kernel and no network.
7. ``static/book.css``: display math wider than the column scrolls in its own box (on a phone), its
   number above it; figures stay in the column; the fades of 5; widget sliders on a phone.
"""

import pathlib

MATHJAX2_BRIDGE = """
(() => {
  const bridge = () => {
    if (window.MathJax && window.MathJax.startup && !window.MathJax.Hub) {
      window.MathJax.Hub = {
        Queue: ([, , element]) => MathJax.startup.promise.then(() => MathJax.typesetPromise([element])),
      };
    }
  };
  document.addEventListener("DOMContentLoaded", bridge);
  // The widget manager renders on the window's load; a capturing listener runs before it.
  window.addEventListener("load", bridge, { capture: true });
})();
"""

WIDGET_IMAGE_ALT = """
document.addEventListener("DOMContentLoaded", () => {
  const describe = () => {
    document.querySelectorAll("figure img:not([alt])").forEach((image) => {
      const caption = image.closest("figure").querySelector("figcaption .caption-text");
      if (caption) image.alt = caption.textContent.trim();
    });
  };
  describe();
  new MutationObserver(describe).observe(document.body, { childList: true, subtree: true });
});
"""

SEARCH_SNIPPET_MATH = """
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || !Search.htmlToText) return;  // a global const, not on window
  const htmlToText = Search.htmlToText;
  const plain = (latex) => latex.replace(/^\\\\[(\\[]|\\\\[)\\]]$/g, "").replace(/\\\\([a-zA-Z]+)/g, "$1")
                                .replace(/[{}]/g, "").replace(/\\s+/g, " ").trim();
  Search.htmlToText = (htmlString, anchor) => {
    const html = new DOMParser().parseFromString(htmlString, "text/html");
    html.querySelectorAll("div.math").forEach((node) => node.remove());
    html.querySelectorAll("span.math").forEach((node) => { node.textContent = plain(node.textContent); });
    return htmlToText(html.documentElement.outerHTML, anchor);
  };
});
"""


TABLE_SCROLL_HINT = """
document.addEventListener("DOMContentLoaded", () => {
  // Each table of the article sits in a box that scrolls sideways (the theme's, or one made here),
  // inside a frame that shows a fade at each edge beyond which more columns lie.
  const frame = (table) => {
    let box = table.closest(".pst-scrollable-table-container");
    if (!box || !box.closest("article")) {
      box = document.createElement("div");
      box.className = "pst-scrollable-table-container";
      table.replaceWith(box);
      box.append(table);
    }
    if (box.parentElement.classList.contains("table-scroll-frame")) return;
    const outer = document.createElement("div");
    outer.className = "table-scroll-frame";
    box.replaceWith(outer);
    outer.append(box);
    const update = () => {
      const more = box.scrollWidth - box.clientWidth;
      outer.classList.toggle("more-right", more > 1 && box.scrollLeft < more - 1);
      outer.classList.toggle("more-left", more > 1 && box.scrollLeft > 1);
    };
    box.addEventListener("scroll", update, { passive: true });
    new ResizeObserver(update).observe(box);
    update();
  };
  document.querySelectorAll("article table").forEach((table) => {
    if (!table.parentElement.closest("table")) frame(table);
  });
});
"""


def _drop_repeated_scripts(app, pagename, templatename, context, doctree):
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        key = (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def _add_static(app):
    app.config.html_static_path.append(str(pathlib.Path(__file__).parent / "static"))


def setup(app):
    app.add_js_file(None, body=MATHJAX2_BRIDGE)
    app.add_js_file(None, body=WIDGET_IMAGE_ALT)
    app.add_js_file(None, body=SEARCH_SNIPPET_MATH)
    app.add_js_file(None, body=TABLE_SCROLL_HINT)
    app.add_js_file("anywidget_static.js")
    app.add_css_file("book.css")
    app.connect("builder-inited", _add_static)
    app.connect("html-page-context", _drop_repeated_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
