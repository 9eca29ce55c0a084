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
5. ``static/book.css``: display math wider than the column scrolls in its own box (on a phone), its
   number above it; figures stay in the column.
"""

import pathlib

MATHJAX2_BRIDGE = """
document.addEventListener("DOMContentLoaded", () => {
  if (window.MathJax && window.MathJax.startup && !window.MathJax.Hub) {
    window.MathJax.Hub = {
      Queue: ([, , element]) => MathJax.startup.promise.then(() => MathJax.typesetPromise([element])),
    };
  }
});
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
    app.add_css_file("book.css")
    app.connect("builder-inited", _add_static)
    app.connect("html-page-context", _drop_repeated_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
