"""The JavaScript the pages load (MathJax, the ipywidgets html-manager) ships inside the built book.

``_config.yml`` names each such file by a path relative to the build's ``_static/`` folder of the
form ``vendor/<package>@<version>/<path in the package>``, e.g.
``vendor/mathjax@3.2.2/es5/tex-chtml.js`` (``mathjax_path``) and
``vendor/@jupyter-widgets/html-manager@1.0.6/dist/embed.js`` (a key of ``nb_ipywidgets_js``). Sphinx
and MyST-NB write those as relative URLs, so a page loads them from the site itself: the book reads
the same offline, behind a proxy, or from a downloaded copy.

When the build starts, this extension checks that every version so named is the one
``package-lock.json`` pins and the one ``node_modules/`` holds (``npm ci``; ``make book`` and
``make html`` run it): a wrong or missing version stops the build. When the build has written the
pages it copies, from ``node_modules/``, the file named and what it loads at run time (MathJax's
fonts and the TeX extensions it loads on demand; the html-manager's chunks and icon fonts), with
each package's licence, into ``_static/vendor/<package>@<version>/``.
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil

from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = pathlib.Path(__file__).resolve().parents[1]
VENDOR = re.compile(r"^vendor/((?:@[^/@]+/)?[^/@]+)@([^/]+)/(.+)$")

# What a page may load of each package, besides the file _config.yml names (globs in the package).
RUNTIME_FILES = {
    # tex-chtml.js combines TeX input, CHTML output and the menu; it loads its fonts, the TeX
    # extensions it autoloads (\boldsymbol, \color, ...), and, when a reader turns them on in the
    # menu, the accessibility components and the speech rule engine.
    "mathjax": [
        "LICENSE",
        "es5/output/chtml/fonts/woff-v2/*",
        "es5/input/tex/extensions/*.js",
        "es5/ui/*.js",
        "es5/a11y/*.js",
        "es5/sre/**/*",
    ],
    # The standalone embed.js finds its own URL (webpack's automatic public path) and loads its
    # chunks and Font Awesome's icon fonts from beside it.
    "@jupyter-widgets/html-manager": [
        "LICENSE",
        "dist/*.embed.js",
        "dist/embed.js.LICENSE.txt",
        "dist/*.woff2",
        "dist/*.woff",
        "dist/*.ttf",
        "dist/*.eot",
        "dist/*.svg",
    ],
}


def locked_versions(root: pathlib.Path = ROOT) -> dict[str, str]:
    """package -> the version package-lock.json pins, for the packages installed at node_modules/ top level."""
    lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    return {
        path.removeprefix("node_modules/"): entry["version"]
        for path, entry in lock["packages"].items()
        if path.startswith("node_modules/") and "/node_modules/" not in path and "version" in entry
    }


def vendored_paths(config) -> list[str]:
    """The _static-relative paths of the vendored files the configuration names."""
    paths = [config.mathjax_path or ""]
    paths += list(getattr(config, "nb_ipywidgets_js", None) or {})
    return [path for path in paths if VENDOR.match(path)]


def external_paths(config) -> list[str]:
    """The scripts the configuration would load from another site."""
    paths = [config.mathjax_path or ""]
    paths += list(getattr(config, "nb_ipywidgets_js", None) or {})
    return [path for path in paths if re.match(r"^(https?:)?//", path)]


def _check(app) -> None:
    outside = external_paths(app.config)
    if outside:
        raise ExtensionError(
            "the book must load its scripts from the site itself, not from "
            + ", ".join(outside)
            + ": name them as vendor/<package>@<version>/<path> (_ext/offline_assets.py)"
        )
    locked = locked_versions()
    app._book_vendored = []
    for path in vendored_paths(app.config):
        package, version, inner = VENDOR.match(path).groups()
        if locked.get(package) != version:
            raise ExtensionError(f"_config.yml names {package}@{version}, package-lock.json pins {locked.get(package)}")
        manifest = ROOT / "node_modules" / package / "package.json"
        if not manifest.is_file():
            raise ExtensionError(f"{package} is not in node_modules/: run `npm ci --ignore-scripts` (make book does)")
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        if installed != version:
            raise ExtensionError(f"node_modules/ holds {package}@{installed}, the lock pins {version}: run `npm ci`")
        if not (ROOT / "node_modules" / package / inner).is_file():
            raise ExtensionError(f"node_modules/{package} has no {inner}")
        app._book_vendored.append((package, version, inner))


def _copy(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for package, version, inner in getattr(app, "_book_vendored", []):
        source = ROOT / "node_modules" / package
        target = pathlib.Path(app.outdir) / "_static" / "vendor" / f"{package}@{version}"
        files = {source / inner}
        for pattern in RUNTIME_FILES.get(package, []):
            files.update(path for path in source.glob(pattern) if path.is_file() and path.suffix != ".map")
        for file in sorted(files):
            destination = target / file.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, destination)
        logger.info(f"offline_assets: {len(files)} files of {package}@{version} in {target}")


def setup(app):
    app.connect("builder-inited", _check)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
