"""Two fixes to the JavaScript of the book's pages, each for a console error a reader would see.

1. Sphinx 7.4 writes an inline script that an extension registers after the builder has started
   twice into every page (once as given, once re-read from the registry). For sphinx-thebe's
   ``const THEBE_JS_URL = ...`` the second copy throws "Identifier has already been declared".
2. The ipywidgets html-manager (``@jupyter-widgets/base`` 6) typesets widget labels with MathJax 2's
   ``MathJax.Hub.Queue``; the book loads MathJax 3, which has no ``Hub``. A one-line bridge sends
   that call to MathJax 3's ``typesetPromise``.
"""

MATHJAX2_BRIDGE = """
document.addEventListener("DOMContentLoaded", () => {
  if (window.MathJax && window.MathJax.startup && !window.MathJax.Hub) {
    window.MathJax.Hub = {
      Queue: ([, , element]) => MathJax.startup.promise.then(() => MathJax.typesetPromise([element])),
    };
  }
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


def setup(app):
    app.add_js_file(None, body=MATHJAX2_BRIDGE)
    app.connect("html-page-context", _drop_repeated_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
