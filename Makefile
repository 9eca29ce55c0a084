# The two commands of "Learning to Ponder" (see README.md):
#   make book   set up .venv, execute every chapter in place, build the HTML book into _build/html
#   make test   set up .venv, then pytest --nbval over book/ and tests/ (the browser test included)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CHAPTERS := $(wildcard book/*.ipynb)
# One timeout for executing a chapter, read from _config.yml (execute.timeout).
TIMEOUT = $(shell $(BIN)/python -c "import yaml; print(yaml.safe_load(open('_config.yml'))['execute']['timeout'])")

.PHONY: book test setup clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements.txt
	$(BIN)/python -m pip install --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (learning-to-ponder)"
	touch $@

# Chapters are executed in place, so the notebooks carry their outputs and widget state (which the
# HTML page embeds, so that sliders work with no kernel); the build itself never executes.
book: setup
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.timeout=$(TIMEOUT) --ExecutePreprocessor.store_widget_state=True \
		$(CHAPTERS)
	$(BIN)/jupyter-book build .

# book/ first: nbval re-runs every chapter and compares it with its committed outputs; then the unit
# tests, and the browser test, which builds the committed chapters into a temporary folder.
test: setup
	$(BIN)/python -m pytest --nbval book tests

clean:
	rm -rf _build test-output
