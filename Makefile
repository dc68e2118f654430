# The two commands a newcomer runs on a fresh machine:
#   make demo   - set up .venv and run ckp on the bundled sample banks
#   make test   - set up .venv with the test extra, the editors the tests drive, and run everything
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-deps venv venv-test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

venv-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

demo: venv
	@echo "== ckp check samples/mentat/memory-bank (a healthy bank: no findings)"
	$(BIN)/ckp check samples/mentat/memory-bank
	@echo "== ckp check samples/broken/memory-bank (every diagnostic code once)"
	-$(BIN)/ckp check samples/broken/memory-bank
	@echo "== ckp route: which files an agent loads for a question"
	$(BIN)/ckp route samples/mentat/memory-bank "How does mentat fetch ISTAT data via SDMX?"
	@echo "== ckp bench: tokens with and without CKP"
	$(BIN)/ckp bench samples/mentat/memory-bank --queries samples/mentat/queries.yaml

test-deps: venv-test
	bash scripts/install-test-deps.sh

test: test-deps
	$(BIN)/ruff check ckp_lsp tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -p no:cacheprovider

lint: venv-test
	$(BIN)/ruff check ckp_lsp tests benchmarks
	$(BIN)/ruff format --check ckp_lsp tests benchmarks
	$(BIN)/mypy

bench: venv
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info test-artifacts
