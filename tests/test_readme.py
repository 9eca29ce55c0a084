"""The README and the book's introduction stay true to the configuration they describe."""

import pathlib
import re
from urllib.parse import urlparse

import yaml

import ponderlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
INTRO = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")


def test_the_readme_links_the_published_book_of_the_configured_repository():
    owner, name = urlparse(CONFIG["repository"]["url"]).path.strip("/").split("/")
    assert f"https://{owner}.github.io/{name}/" in README
    assert f"git clone {CONFIG['repository']['url']}" in README


def test_every_release_tag_named_is_this_version():
    for text in (README, INTRO):
        tags = set(re.findall(r"\bv\d+\.\d+\.\d+\b", text))
        assert tags == {f"v{ponderlib.__version__}"}, tags


def test_the_readme_gives_the_two_commands_and_the_author_targets():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("book", "test", "test-fast", "execute", "html", "lock"):
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"the Makefile has no {target} target"
        assert f"make {target}" in README, f"the README does not name `make {target}`"


def test_live_code_is_neither_configured_nor_offered_in_the_text():
    assert CONFIG["launch_buttons"]["thebe"] is False
    assert "no *Live Code* button" in INTRO and "No Live Code" in README
