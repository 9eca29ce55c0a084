# The two commands of "Learning to Ponder" (see README.md):
#   make book   set up .venv, execute copies of the chapters, build the HTML book into _build/html
#   make test   set up .venv, then pytest --nbval over book/ and tests/ (the browser test included), then
#               the chapters once more under MKL_CBWR=COMPATIBLE, where every assert must hold too
# For contributors:
#   make test-fast  the unit tests alone (not the chapters, sweeps on real workers, the browser), a few minutes
# For authors:
#   make execute  re-execute the committed chapters in place (their outputs and widget state)
#   make html     build the committed chapters as they are (no execution) into _build/html
#   make lock     recompile requirements/runtime.txt and requirements/build.txt from their inputs
#   make evidence [PRESET=name] [SWEEP_FLAGS=...]  run or resume every sweep preset (or one) into evidence/<preset>.jsonl
# `make book` and `make html` copy MathJax and the widget manager into the site from node_modules/, which they install
# first at the versions package-lock.json pins (npm ci): the book loads nothing from another site.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CHAPTERS := $(wildcard book/*.ipynb)
# What the book is built from, copied to $(SOURCE) by `make book` so the tracked chapters stay as committed.
BOOK_SOURCES := _config.yml _toc.yml _ext book ponderlib evidence package.json package-lock.json
# The JavaScript the pages load (MathJax, the ipywidgets html-manager), at the versions package-lock.json
# pins; _ext/offline_assets.py copies it into the build. npm writes node_modules/.package-lock.json.
NODE_MODULES := node_modules/.package-lock.json
SOURCE := _build/source
# One timeout for executing a chapter, read from _config.yml (execute.timeout).
TIMEOUT = $(shell $(BIN)/python -c "import yaml; print(yaml.safe_load(open('_config.yml'))['execute']['timeout'])")
# Executed chapters carry no progress bars (a reader running a chapter sees one in every training cell).
EXECUTE = PONDERLIB_PROGRESS=0 $(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	--ExecutePreprocessor.timeout=$(TIMEOUT) --ExecutePreprocessor.store_widget_state=True
# Warnings are errors; --keep-going reports all of them before failing.
JUPYTER_BOOK_BUILD = $(BIN)/jupyter-book build --warningiserror --keep-going

.PHONY: book test test-fast setup execute html pdf lock evidence clean

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

setup: $(VENV)/.installed

# The locked build and test environment (exact versions), then the torch build this machine needs
# (CPU or CUDA, scripts/install_torch.py), then ponderlib itself, editable.
$(VENV)/.installed: requirements/runtime.txt requirements/build.txt pyproject.toml scripts/install_torch.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements/runtime.txt -r requirements/build.txt
	$(BIN)/python scripts/install_torch.py
	$(BIN)/python -m pip install --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (learning-to-ponder)"
	touch $@

# The chapters are executed as copies under $(SOURCE), storing widget state (which the HTML page
# embeds, so that sliders work with no kernel); the build itself never executes. `git status` stays clean.
book: setup $(NODE_MODULES)
	rm -rf $(SOURCE) _build/html
	mkdir -p $(SOURCE)
	cp -R $(BOOK_SOURCES) $(SOURCE)/
	ln -s $(CURDIR)/node_modules $(SOURCE)/node_modules
	rm -rf $(SOURCE)/book/autoapi $(SOURCE)/ponderlib/__pycache__
	$(EXECUTE) $(addprefix $(SOURCE)/,$(CHAPTERS))
	$(JUPYTER_BOOK_BUILD) $(SOURCE) --path-output .

# book/ first: nbval re-runs every chapter and compares it with its committed outputs; then the unit
# tests, and the browser test, which builds the committed chapters strictly into a temporary folder.
# Last, the chapters run again on MKL's processor-independent code path (MKL_CBWR=COMPATIBLE, which rounds
# as another CPU might): --nbval-lax compares no outputs, but a failing assert fails the run. Each chapter
# is one single-threaded kernel, so they run two at a time (one per core), each chapter's output together.
test: setup $(NODE_MODULES)
	$(BIN)/python -m pytest --nbval book tests
	$(MAKE) --no-print-directory -j2 --output-sync=target $(COMPATIBLE)

COMPATIBLE := $(patsubst book/%.ipynb,compatible-%,$(CHAPTERS))
.PHONY: $(COMPATIBLE)
$(COMPATIBLE): compatible-%: setup
	MKL_CBWR=COMPATIBLE $(BIN)/python -m pytest -p no:cacheprovider --nbval-lax book/$*.ipynb

# The unit tests alone: every test not marked slow (pyproject.toml), no chapter executed.
test-fast: setup
	$(BIN)/python -m pytest tests -m "not slow"

execute: setup
	$(EXECUTE) $(CHAPTERS)

html: setup $(NODE_MODULES)
	$(JUPYTER_BOOK_BUILD) . --path-output .

# The whole book as one PDF, _build/html/book.pdf (the intro links it), printed from the HTML that `make book`
# or `make html` built by the system Chromium (/usr/bin/chromium), every page in the order of _toc.yml.
pdf: setup
	test -f _build/html/index.html || $(MAKE) --no-print-directory html
	$(BIN)/python scripts/book_pdf.py _build/html _build/html/book.pdf

# The evidence the chapters read: each sweep preset (ponderlib.sweep.presets) run, or resumed where it
# stopped, into evidence/<preset>.jsonl on local worker processes, one per core (one torch thread
# each), or on a GPU when there is one. PRESET=name runs one; every preset otherwise (the papers' own
# take days on a CPU). SWEEP_FLAGS="--executor ray --address auto" runs them on a Ray cluster. Commit
# the file as it grows: the same command resumes it.
PRESET ?= $(shell $(BIN)/python -c "from ponderlib.sweep import PRESETS; print(*PRESETS)" 2>/dev/null)
SWEEP_FLAGS ?= --executor pool
evidence: setup
	mkdir -p evidence
	for preset in $(PRESET); do \
		$(BIN)/python -m ponderlib sweep --preset $$preset --results evidence/$$preset.jsonl $(SWEEP_FLAGS) || exit $$?; \
	done

# pip-tools in a throwaway virtualenv; torch is left out of both locks (see requirements/runtime.in).
PIP_COMPILE = ../_build/lock-venv/bin/pip-compile --quiet --strip-extras --unsafe-package torch \
	--no-emit-index-url --no-emit-find-links
lock:
	rm -rf _build/lock-venv
	$(PYTHON) -m venv _build/lock-venv
	_build/lock-venv/bin/python -m pip install --quiet pip-tools
	cd requirements && $(PIP_COMPILE) --output-file runtime.txt ../pyproject.toml runtime.in
	cd requirements && $(PIP_COMPILE) --output-file build.txt build.in

clean:
	rm -rf _build test-output
