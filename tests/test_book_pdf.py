"""scripts/book_pdf.py (``make pdf``): the book's pages in reading order, and its errors. Printing the
built book itself is checked in tests/test_book_browser.py, which has the build."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import book_pdf  # noqa: E402 - from scripts/, put on the path above


def test_the_pages_are_the_table_of_contents_in_reading_order(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text(
        "format: jb-book\nroot: book/intro\nparts:\n"
        "  - caption: A\n    chapters:\n      - file: book/ch1\n      - file: book/ch2\n"
        "  - caption: B\n    chapters:\n      - file: book/api\n",
        encoding="utf-8",
    )
    assert book_pdf.toc_pages(toc) == ["book/intro", "book/ch1", "book/ch2", "book/api"]
    assert book_pdf.toc_pages(ROOT / "_toc.yml")[:2] == ["book/intro", "book/ch1_act"]


def test_a_missing_page_or_folder_is_a_one_line_error(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.html").write_text("<html></html>", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="holds no page book/ch1_act.html: build the book first"):
        book_pdf.print_book(tmp_path, tmp_path / "book.pdf")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "book_pdf.py"), str(tmp_path / "nothing"), str(tmp_path / "b.pdf")],
        capture_output=True, text=True,
    )
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "html must be the built book's folder" in result.stderr or "Chromium is not installed" in result.stderr
    assert not (tmp_path / "b.pdf").exists()


def test_an_output_that_is_a_folder_is_refused_before_printing(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "book_pdf.py"), str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1 and not result.stdout
    assert "output must be the PDF file to write" in result.stderr
