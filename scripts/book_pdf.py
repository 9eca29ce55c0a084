"""Print the built HTML book to one PDF with the system Chromium: ``make pdf``.

Every page of the table of contents (``_toc.yml``), in its order, is opened in headless Chromium
(Debian's ``/usr/bin/chromium``, driven by Playwright; no browser is downloaded) from a local server
with the network cut off, printed as a reader sees it (math typeset, each slider figure drawn at its
default setting and each explorable, opened, at its default inputs, each with a note saying so: the
print rules of ``_ext/static/book.css``), and the pages are merged into one PDF with a bookmark per
page (pypdf).

    python scripts/book_pdf.py _build/html _build/html/book.pdf

Exit status 2 with a one-line message when the HTML folder, a page or the browser is missing.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import io
import json
import pathlib
import sys
import threading
from urllib.parse import urlparse

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = pathlib.Path("/usr/bin/chromium")
WIDGET_STATE = 'script[type="application/vnd.jupyter.widget-state+json"]'
TIMEOUT_MS = 180_000  # a chapter's page (2 MB with its widget state) on a busy 2-core machine
CONTROLS = ".widget-slider .noUi-handle, .widget-dropdown select"
CONTROL_MODELS = {"SelectionSliderModel", "IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "DropdownModel"}


def toc_pages(toc: pathlib.Path) -> list[str]:
    """The book's documents in reading order: the root, then every part's chapters (``_toc.yml``)."""
    spec = yaml.safe_load(toc.read_text(encoding="utf-8"))
    pages = [spec["root"]]
    for part in spec.get("parts", []):
        pages += [chapter["file"] for chapter in part.get("chapters", [])]
    return pages


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


def _print_page(context, url: str) -> bytes:
    """One page as a PDF, once its widgets are drawn and its math is typeset."""
    page = context.new_page()
    page.goto(url, wait_until="load")
    # What a print needs, each waited for by name. Not "networkidle": Playwright never reported it on some
    # loaded pages (a CI run waited 180 s on chapter 1, all its requests finished in 5 s).
    states = [json.loads(text) for text in page.locator(WIDGET_STATE).all_text_contents()]
    controls = sum(m["model_name"] in CONTROL_MODELS for state in states for m in state["state"].values())
    if controls:
        page.wait_for_function("([s, n]) => document.querySelectorAll(s).length >= n", arg=[CONTROLS, controls])
    # An explorable behind a toggle is printed open (at its default inputs); other toggles stay shut.
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { if (d.querySelector('.anywidget-static')) d.open = true; })")
    page.wait_for_function("() => [...document.querySelectorAll('.anywidget-static')].every((e) => e.dataset.rendered)")
    page.evaluate("async () => { if (window.MathJax && MathJax.startup) await MathJax.startup.promise; }")
    page.evaluate("() => document.fonts.ready.then(() => 0)")  # the fonts MathJax and the widgets asked for
    page.evaluate("() => Promise.all([...document.images].map((i) => i.complete ? 0 : i.decode().catch(() => 0)))")
    page.emulate_media(media="print")  # the print rules also stop the 0.3 s fade-in of what was just opened
    pdf = page.pdf(format="A4", print_background=True, margin={"top": "16mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})
    page.close()
    return pdf


def _print_pages(browser, base: str, documents: list[str], writer, reader_class) -> None:
    """Print each of ``documents`` from the server at ``base`` into ``writer``, a bookmark per page."""
    context = browser.new_context(viewport={"width": 1000, "height": 1400})
    context.set_default_timeout(TIMEOUT_MS)
    # Offline, as the book must work: a request that leaves the local server is refused.
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    for doc in documents:
        reader = reader_class(io.BytesIO(_print_page(context, f"{base}{doc}.html")))
        first = len(writer.pages)
        writer.append(reader)
        title = reader.metadata.title if reader.metadata and reader.metadata.title else doc
        writer.add_outline_item(title=title.split(" — ")[0].strip(), page_number=first)
    context.close()


def print_book(html: pathlib.Path, output: pathlib.Path, toc: pathlib.Path = ROOT / "_toc.yml", browser=None) -> int:
    """Print every page of ``toc`` from the built book in ``html`` into ``output``; the number of pages.
    ``browser``: a Playwright Chromium already launched (a test's), else the system Chromium is started."""
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter

    documents = toc_pages(toc)
    missing = [doc for doc in documents if not (html / f"{doc}.html").is_file()]
    if missing:
        raise FileNotFoundError(f"{html} holds no page {missing[0]}.html: build the book first (make html)")
    handler = functools.partial(_Quiet, directory=str(html))
    writer = PdfWriter()
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        if browser is not None:
            _print_pages(browser, base, documents, writer, PdfReader)
        else:
            with sync_playwright() as playwright:
                own = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox"])
                _print_pages(own, base, documents, writer, PdfReader)
                own.close()
        server.shutdown()
    writer.add_metadata({"/Title": "Learning to Ponder"})
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("wb") as handle:
        writer.write(handle)
    return len(writer.pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=pathlib.Path, help="the built book (_build/html)")
    parser.add_argument("output", type=pathlib.Path, help="the PDF to write")
    args = parser.parse_args(argv)
    if args.output.is_dir():  # found now, not after minutes of printing
        parser.exit(2, f"book_pdf: error: output must be the PDF file to write, got the folder {args.output}\n")
    if not CHROMIUM.is_file():
        parser.exit(2, f"book_pdf: error: Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)\n")
    if urlparse(str(args.html)).scheme or not args.html.is_dir():
        parser.exit(2, f"book_pdf: error: html must be the built book's folder, got {args.html}\n")
    try:
        pages = print_book(args.html, args.output)
    except FileNotFoundError as error:
        parser.exit(2, f"book_pdf: error: {error}\n")
    print(f"{args.output}: {pages} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
