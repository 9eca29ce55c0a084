"""The built HTML book, opened page by page in a real browser, with no kernel and no network.

The book is built from the committed, executed chapters (``execute_notebooks: off`` in
``_config.yml``) into a temporary folder, served on 127.0.0.1 and opened in headless Debian
Chromium through Playwright, with the network cut off: every request that leaves the local server
is refused and reported as a failure. So the book must carry what its pages load (MathJax and the
ipywidgets html-manager, copied from ``node_modules/`` by ``_ext/offline_assets.py`` at the
versions ``package-lock.json`` pins), as a reader offline, behind a proxy or with a downloaded copy
of the site would need it.

Nothing here names a chapter: pages are discovered from the build, widgets from each page's
embedded widget state. Screenshots of every control before and after it is moved are written to
``test-output/browser/``.
"""

from __future__ import annotations

import functools
import html as html_module
import http.server
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
import torch
import yaml

from ponderlib.figures import style
from ponderlib.figures.explorables import PointerExplorable, PonderNetExplorable, UTHaltingExplorable
from ponderlib.mechanisms.halting import act_halting
from tests.explorable_cases import ACT_CASES, POINTER_CASES, PONDERNET_CASES, UT_CASES, UT_PROGRAM

pytestmark = pytest.mark.slow  # builds the book and drives Chromium: `make test` runs it, `make test-fast` does not

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPOSITORY = urlparse(CONFIG["repository"]["url"]).path.strip("/")  # "owner/name"
BRANCH = CONFIG["repository"]["branch"]
NODE_MODULES = ROOT / "node_modules"
OUTPUT = ROOT / "test-output" / "browser"
CHROMIUM = pathlib.Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The versions package-lock.json pins (what `npm ci` installs and the build copies into _static/vendor/).
LOCKED = {
    path.removeprefix("node_modules/"): entry["version"]
    for path, entry in json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"].items()
    if path.startswith("node_modules/") and "/node_modules/" not in path
}
VENDORED = re.compile(r"(?:^|/)_static/vendor/((?:@[^/@]+/)?[^/@]+)@([^/]+)/([^?#]+)")
# Widget models a reader moves; a page must render one control per such model in its state.
CONTROL_MODELS = {
    "SelectionSliderModel": ".widget-slider .noUi-handle",
    "IntSliderModel": ".widget-slider .noUi-handle",
    "FloatSliderModel": ".widget-slider .noUi-handle",
    "FloatLogSliderModel": ".widget-slider .noUi-handle",
    "DropdownModel": ".widget-dropdown select",
}
CONTROL_SELECTOR = ", ".join(sorted(set(CONTROL_MODELS.values())))
# How long a page may take to load or a step to happen, on a busy 2-core machine (Playwright's default
# is 30 s; a chapter's page with its widget state is 2 MB).
BROWSER_TIMEOUT_MS = 120_000
WIDGET_STATE = 'script[type="application/vnd.jupyter.widget-state+json"]'
WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'


def _unavailable(reason: str) -> None:
    """Under CI a missing browser is a failure; elsewhere the test says why it skips."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the browser test must run; .ci/run installs what it needs)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[pathlib.Path, str]:
    """Build the book as committed, without executing it; return the HTML folder and the log.

    ``BOOK_BROWSER_HTML=<folder>`` checks a book already built there instead (an author's quick look at
    ``_build/html``; its build log is not checked then)."""
    assert CONFIG["execute"]["execute_notebooks"] == "off", "the browser test must not re-execute chapters"
    if not (NODE_MODULES / "@jupyter-widgets" / "html-manager").is_dir():
        _unavailable("the widget and math JavaScript the build copies is not in node_modules/ (run `npm ci`)")
    if os.environ.get("BOOK_BROWSER_HTML"):
        return pathlib.Path(os.environ["BOOK_BROWSER_HTML"]), ""
    out = tmp_path_factory.mktemp("book")
    result = subprocess.run(
        # Strict, as `make book` and `make html` build: a warning fails the build.
        [pathlib.Path(sys.executable).with_name("jupyter-book"), "build", str(ROOT), "--path-output", str(out),
         "--warningiserror", "--keep-going"],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"jupyter-book build failed:\n{log[-6000:]}"
    return out / "_build" / "html", log


@pytest.fixture(scope="module")
def server(build):
    """Serve the built book on an ephemeral loopback port."""
    html, _ = build
    handler = functools.partial(_QuietHandler, directory=str(html))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
        httpd.shutdown()


# Paths the local server answers only after a delay (seconds), by the end of their path: a test sets it.
SLOW = {}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def do_GET(self):  # noqa: N802 - the base class's name
        path = urlparse(self.path).path
        for suffix, seconds in list(SLOW.items()):
            if path.endswith(suffix):
                time.sleep(seconds)
        return super().do_GET()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.is_file():
        _unavailable(f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    if sync_playwright is None:
        _unavailable("the playwright Python package is not installed")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def test_book_builds_without_warnings(build):
    _, log = build
    plain = re.sub(r"\x1b\[[0-9;]*m", "", log)  # Sphinx colours its log even when piped
    warnings = [line for line in plain.splitlines() if "WARNING:" in line]
    assert not warnings, "the book builds with warnings:\n" + "\n".join(warnings)


def _pages(html: pathlib.Path) -> list[pathlib.Path]:
    """Every page of the build: the HTML files outside Sphinx's asset folders."""
    return sorted(
        page.relative_to(html)
        for page in html.rglob("*.html")
        if not page.relative_to(html).parts[0].startswith("_")
    )


def _settle(page) -> None:
    """Let the page's requests finish: network idle, waited for at most 30 s. Not a check in itself (what a
    page must load, each test checks); two CI runs waited 120 s for it on a page that had loaded."""
    try:
        page.wait_for_load_state("networkidle", timeout=30_000)
    except PlaywrightTimeoutError:
        pass


class _Network:
    """The network cut off: the local server answers, every other request is refused and recorded."""

    def __init__(self, base: str):
        self.base = base
        self.blocked: list[str] = []

    def __call__(self, route):
        url = route.request.url
        if url.startswith(self.base):
            return route.continue_()
        self.blocked.append(url)
        return route.abort("internetdisconnected")

    def problems(self) -> list[str]:
        """One line per refused request (the first 20), then empties the record."""
        found = [f"a request left the site (refused): {url[:160]}" for url in dict.fromkeys(self.blocked)]
        self.blocked.clear()
        return found[:20] + ([f"... and {len(found) - 20} more"] if len(found) > 20 else [])


def _launch_problems(page, relative: pathlib.Path) -> list[str]:
    """A chapter page offers Binder and Colab on this repository, and no live code.

    Jupyter Book 1 loads Thebe 0.8, which speaks the ipywidgets 7 protocol while the kernel runs
    ipywidgets 8: re-running a figure cell would replace a working static slider with "Error
    displaying widget". So Live Code is not offered (``launch_buttons.thebe: false``).
    """
    notebook = relative.with_suffix(".ipynb").as_posix()
    binder = f"https://mybinder.org/v2/gh/{REPOSITORY}/{BRANCH}?urlpath=tree/{notebook}"
    colab = f"https://colab.research.google.com/github/{REPOSITORY}/blob/{BRANCH}/{notebook}"
    problems = []
    for name, url in [("Binder", binder), ("Colab", colab)]:
        if page.locator(f'a[href="{url}"]').count() != 1:
            problems.append(f"no {name} launch button pointing at {url}")
    # (sphinx-thebe, which Jupyter Book always loads, still writes an inert configuration; only a
    # button would start Thebe.)
    if page.locator("button.btn-launch-thebe, .thebe-launch-button").count():
        problems.append("a live code (Thebe) button: Thebe 0.8 cannot show ipywidgets 8")
    return problems


def _footer_problems(page) -> list[str]:
    """Every page names both licences and the citation file, linked on the repository."""
    base = f"{CONFIG['repository']['url']}/blob/{BRANCH}/"
    problems = []
    for name in ("LICENSE-CC-BY-4.0.txt", "LICENSE", "CITATION.cff"):
        if not page.locator(f'footer a[href="{base}{name}"]').count():
            problems.append(f"the footer does not link {base}{name}")
        elif not (ROOT / name).is_file():
            problems.append(f"the footer links {name}, which the repository does not hold")
    return problems


def _setup_cell_problems(page) -> list[str]:
    """The set-up cell (for Colab) is not in the page, and the chapter's numbered title comes first."""
    problems = []
    if "google.colab" in page.locator("article").inner_text():
        problems.append("the set-up cell is shown (tag it remove-cell)")
    title = page.locator("article h1").first.inner_text()
    if not re.match(r"^\d+\. \S", title):
        problems.append(f"the title {title!r} is not numbered as 'N. Title'")
    first = page.locator("article section").first.locator("h1, .cell").first
    if first.evaluate("node => node.tagName") != "H1":
        problems.append("a cell comes before the chapter's title")
    return problems


def _wait_for_images(page) -> list[str]:
    """Sources of the images that did not load (natural size 0)."""
    return page.evaluate(
        """async () => {
            const images = [...document.images];
            images.forEach((image) => { image.loading = "eager"; });
            await Promise.all(images.map((image) => image.complete ? null :
                new Promise((done) => { image.onload = image.onerror = done; setTimeout(done, 10000); })));
            return images.filter((image) => !(image.naturalWidth > 0 && image.naturalHeight > 0))
                         .map((image) => image.currentSrc || image.src || image.outerHTML.slice(0, 120));
        }"""
    )


def _math_problems(page) -> list[str]:
    """Every formula typeset, by the MathJax package-lock.json pins; else how many are left as raw TeX."""
    if page.locator(".math").count() == 0:
        return []
    rendered = page.evaluate(
        """async ([version]) => {
            const untypeset = (document.querySelector("article") || document.body).innerText.split("\\(").length - 1;
            if (!window.MathJax || !MathJax.startup) return `MathJax did not load: ${untypeset} raw \\( in the page`;
            if (MathJax.version !== version) return `MathJax ${MathJax.version} loaded, package-lock.json pins ${version}`;
            await MathJax.startup.promise;
            const math = [...document.querySelectorAll(".math")];
            const raw = math.filter((node) => !node.querySelector("mjx-container"));
            if (raw.length) return `${raw.length} of ${math.length} formulas not typeset, e.g. ${raw[0].textContent.slice(0, 60)}`;
            const errors = document.querySelectorAll("mjx-merror");
            if (errors.length) return `MathJax error: ${errors[0].textContent.slice(0, 80)}`;
            return "";
        }""",
        [LOCKED["mathjax"]],
    )
    return [rendered] if rendered else []


def _visible_images(page, container) -> list[str]:
    return container.evaluate(
        """(node) => [...node.querySelectorAll("img")]
            .filter((image) => image.getBoundingClientRect().width > 0 && image.naturalWidth > 0)
            .map((image) => image.src)"""
    )


def _widget_problems(page, slug: str) -> list[str]:
    """Every control in the embedded widget state renders, and moving it changes the figure."""
    states = [json.loads(text) for text in page.locator(WIDGET_STATE).all_text_contents()]
    models = {model_id: model for state in states for model_id, model in state["state"].items()}
    views = [json.loads(text)["model_id"] for text in page.locator(WIDGET_VIEW).all_text_contents()]
    problems = [f"widget view {view} has no embedded state" for view in views if view not in models]
    expected = sum(model["model_name"] in CONTROL_MODELS for model in models.values())
    if not views:
        return problems
    controls = page.locator(CONTROL_SELECTOR)
    _wait_for_drawn(page, expected)  # a shortfall is reported below with the counts
    if controls.count() != expected:
        return problems + [f"{expected} controls in the widget state, {controls.count()} rendered"]
    for index in range(expected):
        control = controls.nth(index)
        container = control.locator("xpath=ancestor::*[.//img][1]")
        before = _visible_images(page, container)
        container.screenshot(path=str(OUTPUT / f"{slug}-control{index}-before.png"))
        control.focus()
        key = "ArrowDown" if control.evaluate("(node) => node.tagName") == "SELECT" else "ArrowRight"
        page.keyboard.press(key)
        try:
            page.wait_for_function(
                """([node, before]) => {
                    const shown = [...node.querySelectorAll("img")]
                        .filter((image) => image.getBoundingClientRect().width > 0 && image.naturalWidth > 0)
                        .map((image) => image.src);
                    return shown.length > 0 && JSON.stringify(shown) !== JSON.stringify(before);
                }""",
                arg=[container.element_handle(), before],
                timeout=10_000,
            )
        except PlaywrightTimeoutError:
            problems.append(f"control {index}: pressing {key} did not change the displayed figure")
        container.screenshot(path=str(OUTPUT / f"{slug}-control{index}-after.png"))
    return problems


def test_every_page_works_without_a_kernel(build, server, browser):
    html, _ = build
    shutil.rmtree(OUTPUT, ignore_errors=True)
    OUTPUT.mkdir(parents=True)
    network = _Network(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    context.route("**/*", network)
    problems: dict[str, list[str]] = {}
    citations: list[tuple[str, str]] = []
    bibliography_ids: dict[str, set[str]] = {}
    pages = _pages(html)
    assert pages, "the build holds no pages"
    chapters = [page for page in pages if (html / "_sources" / page.with_suffix(".ipynb")).is_file()]
    assert len(chapters) == len(list((ROOT / "book").glob("*.ipynb"))), "a chapter is missing from the build"

    for relative in pages:
        url = urljoin(server, relative.as_posix())
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        network.blocked.clear()
        page.goto(url, wait_until="load")
        _settle(page)
        slug = relative.with_suffix("").as_posix().replace("/", "-")

        found = [f"image did not load: {src}" for src in _wait_for_images(page)]
        found += _math_problems(page)
        found += _widget_problems(page, slug) + _footer_problems(page)
        if relative in chapters:
            found += _launch_problems(page, relative) + _setup_cell_problems(page)
        for selector, what in [(".output.traceback", "a Python traceback"), (".output.stderr", "a stderr box")]:
            if page.locator(selector).count():
                found.append(f"shows {what}: {page.locator(selector).first.inner_text()[:300]}")
        if "Traceback (most recent call last)" in page.inner_text("body"):
            found.append("shows a Python traceback")
        _settle(page)
        found += [f"JavaScript error: {error}" for error in errors]
        found += network.problems()

        bibliography_ids[url] = set(page.eval_on_selector_all('[role="doc-biblioentry"]', "(nodes) => nodes.map((n) => n.id)"))
        citations += [(url, href) for href in page.eval_on_selector_all("a.reference.internal[href*='#']", "(nodes) => nodes.map((n) => n.href)")]
        if found:
            problems[relative.as_posix()] = found
        page.close()

    for url, href in citations:
        target, fragment = urldefrag(href)
        if target != url and bibliography_ids.get(target) and fragment not in bibliography_ids[target]:
            problems.setdefault(url, []).append(f"citation {href} points at no bibliography entry")
    assert any(bibliography_ids.values()), "no page holds the bibliography"
    context.close()
    report = "\n".join(f"{page}:\n  " + "\n  ".join(found) for page, found in problems.items())
    assert not problems, f"problems in the built book (screenshots in {OUTPUT}):\n{report}"


# What a reader sees, at a desktop's width and at a phone's (390 px, an iPhone 12 to 15's viewport).
READER_WIDTHS = {"desktop": 1280, "phone": 390}
SCREENSHOTS = ROOT / "test-output" / "pages"
# A raw Markdown table rule ("|---|", "| :--- |") or "$...$" left in a page's text means generated
# Markdown was printed as text, not rendered.
RAW_TABLE = re.compile(r"\|\s*:?-{3,}:?\s*\|")
RAW_MATH = re.compile(r"(?<![\w$\\])\$[^\s$][^$\n]{0,80}?(?<!\s)\$(?![\w$])")


def _reader_text_problems(page) -> list[str]:
    """Generated tables and formulas rendered: no Markdown table rule or $...$ in the page's prose."""
    text = page.evaluate(
        """() => {
            const article = document.querySelector("article").cloneNode(true);
            article.querySelectorAll("pre, code, .highlight, .math, mjx-container, script, style, .cell_input")
                   .forEach((node) => node.remove());
            return article.innerText;
        }"""
    )
    problems = []
    for pattern, what in [(RAW_TABLE, "a Markdown table printed as text"), (RAW_MATH, "a formula printed as $...$")]:
        found = pattern.search(text)
        if found:
            context = text[max(found.start() - 40, 0) : found.end() + 40].replace("\n", " ")
            problems.append(f"{what}: ...{context}...")
    return problems


def _visible_code_problems(page) -> list[str]:
    """No visible code cell asserts: checks run out of the reader's way (remove-cell, remove-input)."""
    asserts = page.evaluate(
        """() => [...document.querySelectorAll("article .cell_input pre, article div.highlight pre")]
            .filter((node) => node.checkVisibility({ contentVisibilityAuto: true }))
            .filter((node) => /^\\s*assert\\b/m.test(node.textContent))
            .map((node) => node.textContent.match(/^\\s*assert\\b.*$/m)[0].trim().slice(0, 100))"""
    )
    return [f"a visible assert: {line}" for line in asserts]


def _figure_problems(page) -> list[str]:
    """Every figure has a numbered caption and alt text, and its smallest text is about 9 px or more as
    displayed (the library draws FONT_SIZE-point text at DPI; the page may shrink the image)."""
    found = page.evaluate(
        """([fontPx]) => {
            const problems = [];
            for (const image of document.querySelectorAll("article img")) {
                if (image.closest(".sd-card, .header-article, .prev-next-area")) continue;
                const figure = image.closest("figure");
                const caption = figure && figure.querySelector("figcaption");
                const number = caption && caption.querySelector(".caption-number");
                const name = (image.getAttribute("src") || "").slice(-40);
                if (!caption || !caption.textContent.trim()) problems.push(`an image with no caption (${name})`);
                else if (!number) problems.push(`a caption with no figure number: ${caption.textContent.trim().slice(0, 60)}`);
                const alt = image.getAttribute("alt") || "";
                if (!alt.trim() || /(^|\\/)[0-9a-f]{32,}\\.(png|jpe?g|svg)$/.test(alt)) problems.push(`an image whose alt text is ${alt ? "its file name" : "missing"} (${name})`);
                const shown = image.getBoundingClientRect().width;
                if (shown > 0 && image.naturalWidth > 0) {
                    const px = fontPx * shown / image.naturalWidth;
                    if (px < 8.5) problems.push(`figure text about ${px.toFixed(1)} px high as displayed (${name}: ${image.naturalWidth} px shown at ${Math.round(shown)} px)`);
                }
            }
            return problems;
        }""",
        [style.FONT_SIZE * style.DPI / 72],
    )
    return sorted(set(found))


def _width_problems(page, width: int) -> list[str]:
    """No equation or code block wider than the column on a desktop; on a phone, the page never scrolls
    sideways and a wide one scrolls inside its own box, its equation number clear of it."""
    return page.evaluate(
        """([phone]) => {
            const problems = [];
            const article = document.querySelector("article");
            const label = (node) => node.textContent.replace(/\\s+/g, " ").trim().slice(0, 60);
            // A display equation is measured on MathJax's own box, which scrolls beside its number.
            const boxes = [...article.querySelectorAll("div.math, pre")]
                .map((node) => node.querySelector(":scope > mjx-container") || node);
            for (const node of boxes) {
                // Shown to the reader: not inside a closed toggle (<details>) nor hidden by the theme.
                if (!node.checkVisibility({ contentVisibilityAuto: true })) continue;
                const overflow = getComputedStyle(node).overflowX;
                const wider = node.scrollWidth > node.clientWidth + 1;
                const what = node.tagName === "PRE" ? "a code block" : "an equation";
                const container = node.tagName === "PRE" ? node : node.closest("div.math");
                if (wider && !phone) problems.push(`${what} wider than its column (${node.scrollWidth} > ${node.clientWidth} px): ${label(container)}`);
                if (wider && phone && !["auto", "scroll"].includes(overflow)) problems.push(`${what} cut off on a phone: ${label(container)}`);
                if (node.tagName !== "PRE") {
                    const number = container.querySelector(".eqno");
                    const math = container.querySelector("mjx-container");
                    if (number && math) {
                        const a = number.getBoundingClientRect(), b = math.getBoundingClientRect();
                        const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
                        if (overlap && math.querySelector("mjx-math").getBoundingClientRect().right > a.left + 1)
                            problems.push(`an equation number drawn over its equation: ${number.textContent.trim()}`);
                    }
                }
            }
            // (A phone widens its layout to the content, so innerWidth grows with it: compare with the
            // root's clientWidth, the screen's width.)
            const root = document.documentElement;
            if (root.scrollWidth > root.clientWidth + 1) {
                const wide = [...article.querySelectorAll("*")]
                    .find((node) => node.getBoundingClientRect().right > root.clientWidth + 1
                                    && !node.closest("pre, mjx-container"));
                problems.push(`the page scrolls sideways (${root.scrollWidth} px wide on a ${root.clientWidth} px screen)`
                              + (wide ? `: ${wide.tagName.toLowerCase()} ${label(wide)}` : ""));
            }
            return problems;
        }""",
        [width < 600],
    )


def _solution_problems(page) -> list[str]:
    """An exercise's solution is hidden until its dropdown is opened, and opens when clicked."""
    problems = []
    solutions = page.locator("article .admonition").filter(has=page.locator(".admonition-title", has_text=re.compile(r"^\s*Solution")))
    for index in range(solutions.count()):
        solution = solutions.nth(index)
        body = solution.locator(":scope > :not(.admonition-title)").first
        if body.count() == 0:
            continue
        if body.is_visible():
            problems.append(f"solution {index + 1} is shown before the reader opens it")
            continue
        solution.locator(".admonition-title").first.click()
        try:
            body.wait_for(state="visible", timeout=5_000)
        except PlaywrightTimeoutError:
            problems.append(f"solution {index + 1} does not open when its title is clicked")
    return problems


def _wait_for_widgets(page) -> int:
    """Wait until every control in the page's embedded widget state is drawn; the number expected."""
    states = [json.loads(text) for text in page.locator(WIDGET_STATE).all_text_contents()]
    expected = sum(
        model["model_name"] in CONTROL_MODELS for state in states for model in state["state"].values()
    )
    _wait_for_drawn(page, expected)  # the controls that are missing show up in the checks that follow
    return expected


def _wait_for_drawn(page, expected: int) -> None:
    """Wait (up to 30 s) until ``expected`` widget controls are drawn; return either way, the callers
    report a shortfall with its counts."""
    if not expected:
        return
    try:
        page.wait_for_function(
            "([selector, n]) => document.querySelectorAll(selector).length >= n",
            arg=[CONTROL_SELECTOR, expected],
            timeout=30_000,
        )
    except PlaywrightTimeoutError:
        pass


def _table_problems(page) -> list[str]:
    """A table wider than its column scrolls in its own box, and shows that it does: where more columns
    lie past the box's edge, a fade or shadow (a ::before/::after of the box or of the frame around it)
    is drawn, and it goes once the reader has scrolled to the end."""
    return page.evaluate(
        """async () => {
            const problems = [];
            // Two frames and 0.4 s: time for a sign that fades in or out.
            const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 400))));
            const sign = (box) => [box, box.parentElement].some((node) => ["::before", "::after"].some((pseudo) => {
                const style = getComputedStyle(node, pseudo);
                return style.content !== "none" && parseFloat(style.opacity) > 0.5 && parseFloat(style.width) >= 8
                    && (style.backgroundImage !== "none" || style.boxShadow !== "none");
            }));
            const tables = [...document.querySelectorAll("article table")]
                .filter((table) => !table.parentElement.closest("table"))
                .filter((table) => table.checkVisibility({ contentVisibilityAuto: true }));
            for (const table of tables) {
                const name = table.innerText.replace(/\\s+/g, " ").trim().slice(0, 50);
                let box = table;
                while (box && box.tagName !== "ARTICLE" && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
                const wide = table.scrollWidth > (box && box.tagName !== "ARTICLE" ? box : table.parentElement).clientWidth + 1;
                if (!wide) continue;
                if (!box || box.tagName === "ARTICLE") { problems.push(`a wide table cut off, with no box that scrolls: ${name}`); continue; }
                box.scrollLeft = 0; await frame();
                if (!sign(box)) problems.push(`a wide table with no sign that it scrolls (${table.scrollWidth} px in ${box.clientWidth}): ${name}`);
                box.scrollLeft = box.scrollWidth; await frame();
                const atEnd = [box, box.parentElement].some((node) => {
                    const after = getComputedStyle(node, "::after");
                    return after.content !== "none" && parseFloat(after.opacity) > 0.5;
                });
                if (atEnd) problems.push(`a table still signals more columns once scrolled to its end: ${name}`);
                box.scrollLeft = 0;
            }
            return problems;
        }"""
    )


# On a phone a slider's stops lie at least this far apart (px), so a finger picks one (about 40 px).
SLIDER_STOP_PX = 40


def _slider_problems(page) -> list[str]:
    """Slider stops far enough apart to be touched one by one. A noUiSlider handle says its range
    (aria-valuemin, aria-valuemax); the book's sliders (ponderlib.figures.widgets) step by one over
    their options' indices."""
    spacing = page.evaluate(
        """() => [...document.querySelectorAll(".widget-slider .noUi-handle")].map((handle) => {
            const track = handle.closest(".noUi-target").getBoundingClientRect().width;
            const stops = Number(handle.getAttribute("aria-valuemax")) - Number(handle.getAttribute("aria-valuemin"));
            const label = handle.closest(".widget-slider").querySelector(".widget-label");
            return [label ? label.textContent.trim() : "?", stops > 0 ? track / stops : Infinity];
        })"""
    )
    return [f"slider {label}: stops {gap:.0f} px apart (at least {SLIDER_STOP_PX})" for label, gap in spacing if gap < SLIDER_STOP_PX]


def _readout_problems(page) -> list[str]:
    """A control's readout (the value a slider stands at) shows whole: "paper KL, +1 entries", not clipped."""
    clipped = page.evaluate(
        """() => [...document.querySelectorAll(".widget-slider .widget-readout")]
            .filter((node) => node.checkVisibility() && node.scrollWidth > node.clientWidth + 1)
            .map((node) => `${node.textContent.trim()} (${node.scrollWidth} px in ${node.clientWidth})`)"""
    )
    return [f"a slider's readout is clipped: {text}" for text in clipped]


def _toggle_problems(page) -> list[str]:
    """A toggle over printed library source says whose: "Show the source of `name`", not MyST-NB's
    "Show code cell outputs". The name is the listing's own (its first def or class)."""
    toggles = page.evaluate(
        """() => [...document.querySelectorAll("article details.hide")].map((toggle) => {
            const code = toggle.querySelector(".cell_output div.highlight-python pre, .cell_output div.highlight pre");
            const defined = code && code.textContent.match(/^\\s*(?:async\\s+)?(?:def|class)\\s+(\\w+)/m);
            const label = toggle.querySelector("summary .collapsed") || toggle.querySelector("summary");
            return [label.textContent.replace(/\\s+/g, " ").trim(), defined ? defined[1] : null];
        })"""
    )
    problems = []
    for label, name in toggles:
        if name and not (label.startswith("Show the source of") and re.search(rf"\b{re.escape(name)}\b", label)):
            problems.append(f"the toggle over the source of {name} reads {label!r}")
    return problems


def _phone_navigation_problems(page, chapter: bool) -> list[str]:
    """On a phone, the chapter list and the page's contents open from the header's buttons."""
    problems = []
    toggles = [("primary", "the chapter list", "#pst-primary-sidebar-modal", "a.reference.internal")]
    if chapter:
        toggles.append(("secondary", "the page contents", "#pst-secondary-sidebar-modal", "a.nav-link"))
    for side, what, dialog, link in toggles:
        button = page.locator(f"button.{side}-toggle:visible").first
        if button.count() == 0:
            problems.append(f"no visible button opens {what}")
            continue
        button.tap()
        try:
            page.locator(f"{dialog} {link}").first.wait_for(state="visible", timeout=5_000)
        except PlaywrightTimeoutError:
            problems.append(f"tapping the {side} toggle does not open {what}")
        page.keyboard.press("Escape")
        page.wait_for_timeout(300)
    return problems


@pytest.mark.parametrize("device", list(READER_WIDTHS))
def test_every_page_reads_well(build, server, browser, device):
    """What a reader sees, page by page, at a desktop's width and a phone's: tables and formulas
    rendered, no visible assert, every figure captioned, numbered, described and legible (the widgets'
    images too, once drawn), no equation or code block running past the column, a wide table scrolling
    in its own box with a sign that it does, slider readouts whole, each toggle over library source
    naming it, solutions hidden until opened, and on a phone a navigation that opens and slider stops
    at least SLIDER_STOP_PX apart. No request leaves the site. A full-page screenshot of every page is
    saved under test-output/pages/."""
    html, _ = build
    width = READER_WIDTHS[device]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    network = _Network(server)
    phone = dict(is_mobile=True, has_touch=True, device_scale_factor=1) if device == "phone" else {}
    context = browser.new_context(viewport={"width": width, "height": 900}, **phone)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    context.route("**/*", network)
    pages = _pages(html)
    chapters = {page for page in pages if (html / "_sources" / page.with_suffix(".ipynb")).is_file()}
    problems: dict[str, list[str]] = {}
    for relative in pages:
        if relative.parts[0] in ("genindex.html", "search.html", "py-modindex.html"):
            continue
        page = context.new_page()
        page.goto(urljoin(server, relative.as_posix()), wait_until="load")
        _settle(page)
        _wait_for_widgets(page)  # the widget images are figures too: measured once drawn
        _wait_for_images(page)
        page.evaluate("async () => { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; }")
        slug = relative.with_suffix("").as_posix().replace("/", "-")
        page.screenshot(path=str(SCREENSHOTS / f"{slug}-{device}.png"), full_page=True)
        found = _reader_text_problems(page) + _figure_problems(page)
        found += _width_problems(page, width) + _table_problems(page) + _readout_problems(page)
        if relative in chapters:
            found += _visible_code_problems(page) + _solution_problems(page) + _toggle_problems(page)
        if device == "phone":
            found += _phone_navigation_problems(page, chapter=relative in chapters)
            found += _slider_problems(page)
        found += network.problems()
        if found:
            problems[relative.as_posix()] = found
        page.close()
    context.close()
    report = "\n".join(f"{page}:\n  " + "\n  ".join(found) for page, found in problems.items())
    assert not problems, f"what a reader meets at {width} px (screenshots in {SCREENSHOTS}):\n{report}"


# The shape of a lesson (the README's opening: each chapter a lesson that teaches and a reproduction
# report beside it; these targets are where it is written down), measured at a desktop's width: a lesson
# is a chapter of the table of contents whose reproduction report (chN_report) is listed beside it.
LESSON_TARGETS = {"screens": 20, "tables": 6, "rows": 12, "first_code": 3, "first_live_result": 8}
SCREEN = {"width": 1280, "height": 900}


def _lessons() -> list[str]:
    """The chapters (book/chN_...) whose report (book/chN_report) the table of contents lists."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    reports = {name.split("/")[-1].split("_")[0] for name in files if name.endswith("_report")}
    return [name for name in files if not name.endswith("_report") and name.split("/")[-1].split("_")[0] in reports]


def test_every_lesson_meets_its_targets(build, server, browser):
    """Every lesson, at 1280 x 900: at most 20 screens long, at most 6 tables of at most 12 rows, its
    first visible code within 3 screens and its first live result (the cell tagged ``live-result``)
    within 8."""
    lessons = _lessons()
    assert lessons, "no chapter has a reproduction report listed in _toc.yml"
    context = browser.new_context(viewport=SCREEN)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    network = _Network(server)
    context.route("**/*", network)
    problems = {}
    for lesson in lessons:
        page = context.new_page()
        page.goto(urljoin(server, f"{lesson}.html"), wait_until="load")
        _settle(page)
        _wait_for_images(page)
        page.evaluate("async () => { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; }")
        shape = page.evaluate(
            """([height]) => {
                const top = (node) => node ? (node.getBoundingClientRect().top + window.scrollY) / height : null;
                const shown = (node) => node.checkVisibility({ contentVisibilityAuto: true });
                const tables = [...document.querySelectorAll("article table")].filter(shown);
                return {
                    screens: document.documentElement.scrollHeight / height,
                    tables: tables.length,
                    rows: Math.max(0, ...tables.map((t) => t.querySelectorAll("tbody tr").length)),
                    first_code: top([...document.querySelectorAll("article .cell_input")].find(shown)),
                    first_live_result: top(document.querySelector("article .tag_live-result")),
                };
            }""",
            [SCREEN["height"]],
        )
        found = [f"{name} {value if value is None else round(value, 1)}: the target is at most {LESSON_TARGETS[name]}"
                 for name, value in shape.items() if value is None or value > LESSON_TARGETS[name]]
        found += network.problems()
        if found:
            problems[lesson] = found
        page.close()
    context.close()
    assert not problems, "lessons over their targets:\n" + "\n".join(f"{k}: {v}" for k, v in problems.items())


# The site carries what its pages load --------------------------------------------------------------

RESOURCE = re.compile(r"<(script|link|img|iframe|source|video|audio)\b([^>]*)>", re.I)
ATTRIBUTE = re.compile(r"""\b(src|href|rel)\s*=\s*("[^"]*"|'[^']*')""", re.I)
CSS_URL = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])([^"')\s]+)""")


def _resources(text: str) -> list[tuple[str, str]]:
    """(tag, URL) of everything a page loads: scripts, style sheets, icons, images, frames."""
    found = []
    for tag, attributes in RESOURCE.findall(text):
        values = {name.lower(): value[1:-1] for name, value in ATTRIBUTE.findall(attributes)}
        if tag.lower() == "link":
            if not {"stylesheet", "icon", "preload", "modulepreload", "manifest"} & set(values.get("rel", "").lower().split()):
                continue
            url = values.get("href")
        else:
            url = values.get("src")
        if url:
            found.append((tag.lower(), html_module.unescape(url)))
    return found


def test_the_site_carries_every_script_style_sheet_and_font_it_loads(build):
    """Read from the built HTML and CSS: every script, style sheet, icon and image a page names, and every
    font or image a style sheet names, is a file of the site (a relative URL to a file that exists).
    MathJax and the widget manager are those package-lock.json pins, byte for byte what npm installed,
    and the widget manager is deferred (it renders on the window's load), so it never holds up the first
    paint. A chapter offers its notebook, as committed, for download."""
    html, _ = build
    problems: list[str] = []
    vendored: dict[str, set[str]] = {}
    for relative in _pages(html):
        text = (html / relative).read_text(encoding="utf-8")
        for tag, url in _resources(text):
            if re.match(r"^(data|blob|about):", url):
                continue
            if re.match(r"^([a-z][a-z0-9+.-]*:)?//", url, re.I):
                problems.append(f"{relative}: <{tag}> loads {url} from another site")
                continue
            target = ((html / relative).parent / urlparse(url).path).resolve()
            if not target.is_file():
                problems.append(f"{relative}: <{tag}> loads {url}, which the site does not hold")
            match = VENDORED.search(urlparse(url).path)
            if match:
                vendored.setdefault(match.group(1), set()).add(match.group(2))
                package, version, inner = match.groups()
                if LOCKED.get(package) != version:
                    problems.append(f"{relative}: loads {package}@{version}, package-lock.json pins {LOCKED.get(package)}")
                elif target.is_file() and target.read_bytes() != (NODE_MODULES / package / inner).read_bytes():
                    problems.append(f"{relative}: {url} is not the file npm installed")
        notebook = html / "_sources" / relative.with_suffix(".ipynb")
        if notebook.is_file():  # a chapter: the theme's download button offers its notebook, as committed
            link = re.search(r'href="([^"]*_sources/' + re.escape(relative.with_suffix(".ipynb").as_posix()) + r')"', text)
            if not link:
                problems.append(f"{relative}: no download link to its notebook")
            elif not ((html / relative).parent / link.group(1)).resolve().is_file():
                problems.append(f"{relative}: its notebook download {link.group(1)} is not in the site")
            elif notebook.read_bytes() != (ROOT / relative.with_suffix(".ipynb")).read_bytes():
                problems.append(f"{relative}: the notebook it offers is not the one committed")
        for script in re.findall(r"<script\b[^>]*\bsrc=\"[^\"]*html-manager[^\"]*\"[^>]*>", text):
            if not re.search(r"\b(defer|async)\b", script):
                problems.append(f"{relative}: the widget manager blocks the first paint: {script}")
    for sheet in html.rglob("*.css"):
        for url in CSS_URL.findall(sheet.read_text(encoding="utf-8", errors="replace")):
            if re.match(r"^(data:|#)", url):
                continue
            if re.match(r"^([a-z][a-z0-9+.-]*:)?//", url, re.I):
                problems.append(f"{sheet.relative_to(html)} loads {url} from another site")
            elif not (sheet.parent / urlparse(url).path).is_file():
                problems.append(f"{sheet.relative_to(html)} loads {url}, which the site does not hold")
    for package in ("mathjax", "@jupyter-widgets/html-manager"):
        if vendored.get(package) != {LOCKED[package]}:
            problems.append(f"the pages load {package} at {sorted(vendored.get(package, [])) or 'no version'} from the site, "
                            f"package-lock.json pins {LOCKED[package]}")
    assert not problems, "the site does not carry what it loads:\n" + "\n".join(sorted(set(problems))[:60])


def test_the_widget_manager_does_not_hold_up_the_first_paint(build, server, browser):
    """With the widget manager (3 MB) answered 4 s late, a chapter's text is painted before it arrives,
    and its widgets are drawn once it has."""
    html, _ = build
    chapter = next((page for page in _pages(html) if WIDGET_STATE.split("[")[1].split('"')[1] in (html / page).read_text(encoding="utf-8")), None)
    assert chapter is not None, "no page embeds widget state"
    network = _Network(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    context.route("**/*", network)
    SLOW["/embed.js"] = 4.0
    try:
        page = context.new_page()
        page.goto(urljoin(server, chapter.as_posix()), wait_until="commit")
        page.wait_for_load_state("load", timeout=60_000)
        timing = page.evaluate(
            """() => {
                const paint = performance.getEntriesByName("first-contentful-paint")[0];
                const manager = performance.getEntriesByType("resource")
                    .find((entry) => entry.name.startsWith(location.origin) && /html-manager.*\\/embed\\.js/.test(entry.name));
                return { paint: paint ? paint.startTime : null, manager: manager ? manager.responseEnd : null,
                         from: manager ? manager.name : null };
            }"""
        )
        expected = _wait_for_widgets(page)
        drawn = page.locator(CONTROL_SELECTOR).count()
    finally:
        SLOW.clear()
    problems = network.problems()
    if timing["manager"] is None:
        problems.append("the page did not load the widget manager from the site")
    elif timing["paint"] is None or timing["paint"] >= timing["manager"]:
        problems.append(f"first paint at {timing['paint']} ms, after the widget manager arrived ({timing['manager']:.0f} ms): it blocks")
    if drawn < expected:
        problems.append(f"{expected} controls in the widget state, {drawn} drawn")
    context.close()
    assert not problems, f"{chapter}:\n" + "\n".join(problems)


# Dark mode --------------------------------------------------------------------------------------------

# A figure's ground, as displayed on the dark theme, is at most this light (relative luminance, 0 to 1):
# a dark figure, not the light-grey box a dimmed white PNG makes (about 0.6). Text reads at WCAG's 4.5:1.
DARK_GROUND = 0.2
CONTRAST = 4.5


def _luminance(rgb) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(value) for value in rgb[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _ground(png: bytes) -> float:
    """The relative luminance of an image's ground: the median of its four 6 x 6 corners."""
    from PIL import Image  # matplotlib's dependency

    image = Image.open(io.BytesIO(png)).convert("RGB")
    width, height = image.size
    corners = [(x, y) for x0 in (0, width - 6) for y0 in (0, height - 6) for x in range(x0, x0 + 6) for y in range(y0, y0 + 6)]
    values = sorted(_luminance(image.getpixel((x, y))) for x, y in corners if 0 <= x < width and 0 <= y < height)
    return values[len(values) // 2]


def test_every_chapter_reads_in_dark_mode(build, server, browser):
    """On the dark theme (a reader whose system asks for it), every chapter is screenshot whole (under
    test-output/pages/, ``-dark``); each figure and widget image shows a dark ground, not a light box, and
    every caption, widget label and readout reads at 4.5:1 against what lies behind it."""
    html, _ = build
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    network = _Network(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    context.route("**/*", network)
    chapters = [page for page in _pages(html) if (html / "_sources" / page.with_suffix(".ipynb")).is_file()]
    problems: dict[str, list[str]] = {}
    for relative in chapters:
        page = context.new_page()
        page.goto(urljoin(server, relative.as_posix()), wait_until="load")
        _settle(page)
        _wait_for_widgets(page)
        _wait_for_images(page)
        page.evaluate("async () => { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; }")
        slug = relative.with_suffix("").as_posix().replace("/", "-")
        page.screenshot(path=str(SCREENSHOTS / f"{slug}-dark.png"), full_page=True)
        found = []
        if page.evaluate("document.documentElement.dataset.theme") != "dark":
            found.append("the page is not on the dark theme when the reader's system asks for it")
        images = page.locator("article figure img")
        for index in range(images.count()):
            image = images.nth(index)
            box = image.bounding_box()
            if not box or box["width"] < 40 or not image.is_visible():
                continue
            image.scroll_into_view_if_needed()
            ground = _ground(image.screenshot())
            if ground > DARK_GROUND:
                name = (image.get_attribute("src") or "")[-40:]
                found.append(f"a figure shown as a light box on the dark page (ground luminance {ground:.2f}): {name}")
        colours = page.evaluate(
            """() => {
                const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
                const behind = (node) => {
                    for (let at = node; at; at = at.parentElement) {
                        const colour = rgb(getComputedStyle(at).backgroundColor);
                        if (colour.length >= 3 && (colour.length < 4 || colour[3] > 0.5)) return colour;
                    }
                    return rgb(getComputedStyle(document.body).backgroundColor);
                };
                return [...document.querySelectorAll("article figcaption, article .widget-label, article .widget-readout")]
                    .filter((node) => node.checkVisibility() && node.textContent.trim())
                    .map((node) => [node.textContent.trim().slice(0, 50), rgb(getComputedStyle(node).color), behind(node)]);
            }"""
        )
        for text, colour, ground in colours:
            lighter, darker = sorted([_luminance(colour), _luminance(ground)], reverse=True)
            ratio = (lighter + 0.05) / (darker + 0.05)
            if ratio < CONTRAST:
                found.append(f"text at {ratio:.1f}:1 against its ground: {text}")
        found += network.problems()
        if found:
            problems[relative.as_posix()] = sorted(set(found))
        page.close()
    context.close()
    report = "\n".join(f"{page}:\n  " + "\n  ".join(found) for page, found in problems.items())
    assert not problems, f"on the dark theme (screenshots in {SCREENSHOTS}):\n{report}"


# What a reader searches for, and the page that must come first: the chapter that teaches it.
SEARCHES = {"PonderNet": "book/ch2_pondernet.html", "halting": "book/ch1_act.html", "pointer": "book/ch3_pointer_attention.html"}


@pytest.mark.parametrize("device", list(READER_WIDTHS))
def test_search_finds_the_chapters_first_with_snippets_that_read(build, server, browser, device):
    """The site's search, offline, at both widths: for each of :data:`SEARCHES` the chapter that
    teaches it is the first result and no API object is listed above a page of the book; each of the
    first ten results (pages and API objects) shows a snippet of body text (not the page's title, launch
    buttons and list of sections); no result title breaks inside a word."""
    network = _Network(server)
    phone = dict(is_mobile=True, has_touch=True, device_scale_factor=1) if device == "phone" else {}
    context = browser.new_context(viewport={"width": READER_WIDTHS[device], "height": 900}, **phone)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    context.route("**/*", network)
    page = context.new_page()
    problems = []
    for query, expected in SEARCHES.items():
        page.goto(urljoin(server, f"search.html?q={query}"), wait_until="load")
        page.wait_for_function(
            "() => document.querySelectorAll('#search-results li p.context').length >= 10"
            " || /finished|did not match/i.test(document.querySelector('#search-results')?.textContent || '')"
        )
        page.wait_for_timeout(1000)  # the last snippets are fetched page by page
        results = page.evaluate(
            """() => [...document.querySelectorAll('#search-results li')].map((item) => {
                const link = item.querySelector('a');
                const snippet = item.querySelector('p.context');
                // a word drawn on two lines has two boxes
                const broken = [];
                const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                    for (const match of node.textContent.matchAll(/[^\\s\\u200b]+/g)) {  // a zero-width space may break
                        const range = document.createRange();
                        range.setStart(node, match.index);
                        range.setEnd(node, match.index + match[0].length);
                        if (new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size > 1) broken.push(match[0]);
                    }
                }
                return {href: new URL(link.href).pathname.replace(/^\\//, ''), title: link.textContent.trim(),
                        broken, snippet: snippet ? snippet.textContent.trim() : ''};
            })"""
        )
        if not results:
            problems.append(f"{query!r}: no results")
            continue
        if results[0]["href"] != expected:
            problems.append(f"{query!r}: the first result is {results[0]['href']} ({results[0]['title']}), not {expected}")
        kinds = ["api" if "autoapi/" in result["href"] else "book" for result in results]
        if "api" in kinds and "book" in kinds[kinds.index("api"):]:
            problems.append(f"{query!r}: an API object is listed above a page of the book")
        for result in results[:10]:
            snippet = result["snippet"].strip(". ")
            if len(snippet) < 60:
                problems.append(f"{query!r}: {result['href']} has no snippet that reads: {snippet!r}")
            elif snippet.startswith(result["title"][:30]) or re.search(r"Open issue|\.ipynb \.pdf|^Contents", snippet):
                problems.append(f"{query!r}: {result['href']}'s snippet is its title or page furniture: {snippet[:80]!r}")
            if result["broken"]:
                problems.append(f"{query!r}: the title {result['title']!r} breaks inside {result['broken']}")
    problems += network.problems()
    context.close()
    assert not problems, "\n".join(problems)


def test_the_book_prints_to_one_pdf(build, browser, tmp_path):
    """``make pdf`` (scripts/book_pdf.py) on the built book: one PDF with a bookmark per page of the table
    of contents, in its order and under its title; every slider or menu figure printed with the note
    that says so, every explorable printed open with its own; the launch buttons not printed."""
    pypdf = pytest.importorskip("pypdf")
    sys.path.insert(0, str(ROOT / "scripts"))
    import book_pdf

    html, _ = build
    output = tmp_path / "book.pdf"
    pages = book_pdf.print_book(html, output, browser=browser)  # the module's Chromium: one Playwright per thread
    reader = pypdf.PdfReader(str(output))
    assert len(reader.pages) == pages and pages > 20 * len(_lessons())
    documents = book_pdf.toc_pages(ROOT / "_toc.yml")
    bookmarks = [(item.title, reader.get_destination_page_number(item)) for item in reader.outline]
    assert len(bookmarks) == len(documents) and [page for _, page in bookmarks] == sorted(page for _, page in bookmarks)
    for (title, _), document in zip(bookmarks, documents):
        page = (html / f"{document}.html").read_text(encoding="utf-8")
        assert html_module.escape(title, quote=False) in page, f"bookmark {title!r} is not {document}'s title"
    text = "\n".join(page.extract_text() for page in reader.pages)
    state = re.compile(r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S)
    with_controls = sum(  # pages whose widget state holds a control a reader moves
        any(model["model_name"] in CONTROL_MODELS for model in json.loads(found)["state"].values())
        for document in documents
        for found in state.findall((html / f"{document}.html").read_text(encoding="utf-8"))
    )
    assert with_controls and text.count("Printed at its default setting") >= with_controls
    explorables = sum(  # the explorables the pages' widget states hold, printed open with their note
        model["model_module"] == "anywidget"
        for document in documents
        for found in state.findall((html / f"{document}.html").read_text(encoding="utf-8"))
        for model in json.loads(found)["state"].values()
    )
    assert explorables and text.count("Printed with its default inputs") == explorables
    assert "Open issue" not in text  # the launch buttons are not printed


# The explorables ----------------------------------------------------------------------------------------

# Inputs the equations do not allow, as a reader types them: (step or "eps", text, what the message names).
def _field(control: str, step: int | None = None) -> str:
    """The selector of an explorable's number field: its data-control, and its data-step where it has one."""
    return f'input[type=number][data-control="{control}"]' + ("" if step is None else f'[data-step="{step}"]')


ACT_EXPLORABLE_REFUSED = [(_field("h", 2), "1.5", "h_2 must be a number in [0, 1]"),
                          (_field("h", 1), "", "h_1 must be a number in [0, 1]"),
                          (_field("h", 3), "-0.2", "h_3 must be a number in [0, 1]"),
                          (_field("eps"), "1", "eps must be a number in [0, 1)")]
# A control a thumb can hit: at least this tall (px), as Apple's and Google's guidelines ask (44 and 48).
THUMB_PX = 44


def _act_library(units: list[float], eps: float) -> dict:
    """What the page must show for ``units`` and ``eps``: ponderlib's act_halting and autograd's d rho / d h."""
    halting_units = torch.tensor([units], dtype=torch.float64, requires_grad=True)
    halted = act_halting(halting_units, eps)
    halted.ponder_cost.sum().backward()
    return {
        "ponder-steps": [float(halted.ponder_steps.item())],
        "remainder": [halted.remainder.item()],
        "ponder-cost": [halted.ponder_cost.item()],
        "p": halted.halting_probs[0].tolist(),
        "gradient": halting_units.grad[0].tolist(),
    }


def _shown(explorable) -> dict:
    """The numbers the explorable shows, by quantity (per step where it has one)."""
    return explorable.evaluate(
        """(root) => {
            const shown = {};
            for (const node of root.querySelectorAll("[data-quantity]")) {
                if (node.dataset.quantity === "gradient-summary") continue;
                (shown[node.dataset.quantity] ||= []).push(Number(node.textContent.trim()));
            }
            return shown;
        }"""
    )


def _mismatches(shown: dict, expected: dict, case: object) -> list[str]:
    """Where the numbers the page shows (by quantity) differ from ponderlib's by more than 1e-6."""
    problems = []
    for name, values in expected.items():
        values = values if isinstance(values, list) else [values]
        found = shown.get(name, [])
        if len(found) != len(values) or any(abs(a - b) > 1e-6 for a, b in zip(found, values)):
            problems.append(f"{case}: the page shows {name} = {found}, ponderlib {values}")
    return problems


def _refusal_problems(explorable, refused: list) -> list[str]:
    """Typing each (field, text, message) of ``refused`` shows a message naming the input, hides the numbers and
    shows no NaN; putting the field's text back computes again."""
    problems = []
    for selector, text, message in refused:
        field = explorable.locator(selector)
        before = field.input_value()
        field.fill(text)
        said = explorable.locator(".pe-message").inner_text()
        visible = explorable.evaluate("(root) => root.innerText")
        if message not in said or "NaN" in visible or explorable.locator(".pe-results").is_visible():
            problems.append(f"typing {text!r} in {selector}: the page says {said!r} and still shows results or NaN")
        field.fill(before)
        if explorable.locator(".pe-message").inner_text().strip() or not explorable.locator(".pe-results").is_visible():
            problems.append(f"after {text!r} in {selector} was put back to {before}, the page does not compute again")
    return problems


def _drag_to_right_end(page, track) -> None:
    """Drag a slider's thumb from its middle past its right end, as a reader's mouse or finger does."""
    track.scroll_into_view_if_needed()
    box = track.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] + 20, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()


def _act_explorable_problems(page) -> list[str]:
    problems = []
    explorable = page.locator('[data-explorable="act"]')
    for units, eps in ACT_CASES:
        explorable.locator('select[data-control="steps"]').select_option(str(len(units)))
        for step, value in enumerate(units, start=1):
            explorable.locator(_field("h", step)).fill(repr(value))
        explorable.locator(_field("eps")).fill(repr(eps))
        problems += _mismatches(_shown(explorable), _act_library(units, eps), f"h = {units}, eps = {eps}")
    # Dragging a slider computes too: h_1 dragged to its right end (h_1 = 1) halts after one step.
    _drag_to_right_end(page, explorable.locator('input[type=range][data-control="h"][data-step="1"]'))
    dragged = [float(v) for v in explorable.evaluate('(root) => [...root.querySelectorAll("[data-control=h][data-step]")]'
                                                     '.filter((node) => node.type === "number" && node.checkVisibility())'
                                                     '.map((node) => node.value)')]
    eps = float(explorable.locator(_field("eps")).input_value())
    if dragged[0] != 1.0 or _shown(explorable)["ponder-steps"] != _act_library(dragged, eps)["ponder-steps"]:
        problems.append(f"dragging h_1 to the right end gave h = {dragged} and N = {_shown(explorable)['ponder-steps']}")
    return problems + _refusal_problems(explorable, ACT_EXPLORABLE_REFUSED) + _thumb_problems(explorable)


def _thumb_problems(explorable) -> list[str]:
    """Every control of an explorable is large enough for a thumb, and the explorable fits its column."""
    small = explorable.evaluate(
        """(root, px) => [...root.querySelectorAll("input, select")]
            .filter((node) => node.checkVisibility() && node.getBoundingClientRect().height < px)
            .map((node) => `${node.getAttribute("aria-label")} (${Math.round(node.getBoundingClientRect().height)} px)`)""",
        THUMB_PX,
    )
    problems = [f"a control smaller than a thumb: {name}" for name in small]
    if explorable.evaluate("(root) => root.scrollWidth > root.clientWidth + 1"):
        problems.append("the explorable is wider than its column")
    return problems


# Inputs the equations do not allow, as a reader types them: (the field, the text, what the message names).
PONDERNET_EXPLORABLE_REFUSED = [
    (_field("lambda", 1), "1.2", "lambda_1 must be a number in [0, 1]"),
    (_field("lambda-p"), "1", "lambda_p must be a number in (0, 1)"),
    (_field("loss", 1), "-1", "L_1 must be a finite number >= 0"),
]
# What the PonderNet explorable shows (data-quantity) -> the key of PonderNetExplorable.quantities().
PONDERNET_SHOWN = {
    "expected-steps": "expected_steps", "prior-expected-steps": "prior_expected_steps",
    "reconstruction": "reconstruction", "kl-paper": "kl_paper", "entropy": "entropy", "step-price": "step_price",
    "rest": "rest", "kl-reverse": "kl_reverse", "prior-entropy": "prior_entropy", "cross-entropy": "cross_entropy",
    "p": "p", "prior": "prior",
}


def _pondernet_explorable_problems(page) -> list[str]:
    problems = []
    explorable = page.locator('[data-explorable="pondernet"]')
    for lambdas, lambda_p, truncation, losses in PONDERNET_CASES:
        explorable.locator('select[data-control="steps"]').select_option(str(len(lambdas)))
        explorable.locator('select[data-control="truncation"]').select_option(truncation)
        for step, value in enumerate(lambdas[:-1], start=1):
            explorable.locator(_field("lambda", step)).fill(repr(value))
        for step, value in enumerate(losses, start=1):
            explorable.locator(_field("loss", step)).fill(repr(value))
        explorable.locator(_field("lambda-p")).fill(repr(lambda_p))
        library = PonderNetExplorable(lambdas, lambda_p, truncation, losses).quantities()
        expected = {name: library[key] for name, key in PONDERNET_SHOWN.items()}
        problems += _mismatches(_shown(explorable), expected, (lambdas, lambda_p, truncation, losses))
    explorable.locator('select[data-control="steps"]').select_option("2")  # lambda_1 and two L_n shown
    return problems + _refusal_problems(explorable, PONDERNET_EXPLORABLE_REFUSED) + _thumb_problems(explorable)


# Inputs the pointer's equations do not allow, as a reader types them: (the field, the text, what the message names).
POINTER_EXPLORABLE_REFUSED = [
    ('input[data-control="array"]', "4 x 1", "x_2 must be a number"),
    ('input[data-control="array"]', " ", "the array must hold 1 to 8 numbers, got 0"),
    (_field("u", 1), "", "u_1 must be a finite number"),
]


def _pointer_explorable_problems(page) -> list[str]:
    """The pointer's explorable: p(C_i = j), the positions the mask removes and greedy decoding's next choice,
    against ponderlib's pointer_step, typed and dragged."""
    problems = []
    explorable = page.locator('[data-explorable="pointer"]')

    def check(array, scores, emitted):
        step = PointerExplorable(array, scores, emitted).step()
        choice = "none" if step.choice.item() == -1 else str(step.choice.item() + 1)
        masked = ", ".join(map(str, sorted(emitted))) or "none"
        shown = (explorable.locator('[data-quantity="choice"]').inner_text(), explorable.locator('[data-quantity="masked"]').inner_text())
        found = _mismatches(_shown(explorable), {"p": step.probs[0].tolist()}, (array, scores, emitted))
        if shown != (choice, masked):
            found.append(f"{(array, scores, emitted)}: the page's choice and mask are {shown}, ponderlib's {(choice, masked)}")
        return found

    for array, scores, emitted in POINTER_CASES:
        explorable.locator('input[data-control="array"]').fill(" ".join(map(repr, array)))
        for step, value in enumerate(scores, start=1):
            explorable.locator(_field("u", step)).fill(repr(value))
            explorable.locator(f'input[data-control="chosen"][data-step="{step}"]').set_checked(step in emitted)
        problems += check(array, scores, emitted)
    # Dragging computes too: u_1 dragged to the right end of its slider (6) of the last case.
    array, scores, emitted = POINTER_CASES[-1]
    explorable.locator('input[data-control="chosen"][data-step="1"]').set_checked(False)
    _drag_to_right_end(page, explorable.locator('input[type=range][data-control="u"][data-step="1"]'))
    problems += check(array, [6.0] + scores[1:], [j for j in emitted if j != 1])
    return problems + _refusal_problems(explorable, POINTER_EXPLORABLE_REFUSED) + _thumb_problems(explorable)


UT_EXPLORABLE_REFUSED = [
    (_field("h", 2), "1.5", "position 1: h_2 must be a number in [0, 1]"),
    (_field("h", 1), "", "position 1: h_1 must be a number in [0, 1]"),
    (_field("eps"), "1", "eps must be a number in [0, 1)"),
]


def _ut_explorable_problems(page) -> list[str]:
    """Chapter 4's explorable: every position's N_i, R_i, rho_i and p^n_i against ponderlib's act_halting per
    position, the steps the loop runs, and the positions frozen at step n."""
    problems = []
    explorable = page.locator('[data-explorable="ut"]')
    for rows, eps, n in UT_CASES:
        explorable.locator('select[data-control="steps"]').select_option(str(len(rows[0])))
        for position, row in enumerate(rows):
            explorable.locator('select[data-control="position"]').select_option(str(position))
            for step, value in enumerate(row, start=1):
                explorable.locator(_field("h", step)).fill(repr(value))
        explorable.locator(_field("eps")).fill(repr(eps))
        explorable.locator('input[type=range][data-control="step"]').evaluate(
            "(node, n) => { node.value = String(n); node.dispatchEvent(new Event('input')); }", n)
        library = UTHaltingExplorable(UT_PROGRAM, rows, eps, n)
        halted = library.halting()
        steps = halted.ponder_steps.tolist()
        expected = {"ponder-steps": [float(s) for s in steps], "remainder": halted.remainder.tolist(),
                    "ponder-cost": halted.ponder_cost.tolist(), "p": [p for row in halted.halting_probs.tolist() for p in row],
                    "steps-run": max(steps), "block-runs": len(rows) * max(steps),
                    "frozen-runs": sum(max(steps) - s for s in steps), "step": n}
        problems += _mismatches(_shown(explorable), expected, (rows, eps, n))
        frozen = explorable.locator('[data-quantity="frozen"]').inner_text()
        if frozen != (", ".join(map(str, library.frozen_at(n))) or "none"):
            problems.append(f"{(rows, eps, n)}: the page shows {frozen} frozen at step {n}, ponderlib {library.frozen_at(n)}")
    explorable.locator('select[data-control="position"]').select_option("0")
    return problems + _refusal_problems(explorable, UT_EXPLORABLE_REFUSED) + _thumb_problems(explorable)


@pytest.mark.parametrize("device", list(READER_WIDTHS))
def test_the_explorables_compute_what_ponderlib_computes(build, server, browser, device):
    """Every explorable in the book (found by its ``data-explorable`` root), driven through fixed inputs and
    edge cases by typing, and by dragging a slider, shows the numbers ponderlib computes for them (to 1e-6);
    an input the equations do not allow shows a message naming it, never NaN; every control is large
    enough for a thumb; nothing leaves the site and nothing logs an error."""
    html, _ = build
    width = READER_WIDTHS[device]
    phone = dict(is_mobile=True, has_touch=True, device_scale_factor=1) if device == "phone" else {}
    context = browser.new_context(viewport={"width": width, "height": 900}, **phone)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    network = _Network(server)
    context.route("**/*", network)
    checks = {"act": _act_explorable_problems, "pondernet": _pondernet_explorable_problems,
              "pointer": _pointer_explorable_problems, "ut": _ut_explorable_problems}
    problems: dict[str, list[str]] = {}
    seen = set()
    for relative in _pages(html):
        if "AnyModel" not in (html / relative).read_text(encoding="utf-8"):
            continue  # no explorable saved in this page's widget state
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(urljoin(server, relative.as_posix()), wait_until="load")
        # What the checks read: every explorable drawn (or failed), as anywidget_static.js marks it. Not
        # "networkidle", which one CI run waited 120 s for on an idle page.
        page.wait_for_function("() => [...document.querySelectorAll('.anywidget-static')].every((e) => e.dataset.rendered)")
        saved = page.evaluate("() => document.querySelectorAll('.anywidget-static').length")
        try:
            page.wait_for_function("(n) => document.querySelectorAll('[data-explorable]').length >= n", arg=saved, timeout=30_000)
        except PlaywrightTimeoutError:
            pass
        kinds = page.eval_on_selector_all("[data-explorable]", "(nodes) => nodes.map((node) => node.dataset.explorable)")
        found = [] if len(kinds) == saved else [f"{saved} explorables saved in the page, {len(kinds)} drawn"]
        for kind in kinds:
            seen.add(kind)
            # An explorable in a closed toggle (a cell tagged hide-output) opens as a reader opens it.
            toggle = page.locator(f'details:has([data-explorable="{kind}"]):not([open]) > summary')
            if toggle.count():
                toggle.first.click()
                page.locator(f'[data-explorable="{kind}"]').wait_for(state="visible", timeout=10_000)
            found += checks[kind](page) if kind in checks else [f"no check for the explorable {kind!r}"]
        found += [f"JavaScript error: {error}" for error in errors] + network.problems()
        if found:
            problems[relative.as_posix()] = found
        page.close()
    context.close()
    assert seen == set(checks), f"the pages show the explorables {sorted(seen)}, not one of each of {sorted(checks)}"
    assert not problems, f"the explorables at {width} px:\n" + "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in problems.items())
