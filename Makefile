# The two commands a newcomer runs on a fresh machine:
#   make demo   - set up .venv and run ckp on the bundled sample banks
#   make test   - set up .venv with the test extra, the editors the tests drive, and run everything
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The oldest and newest Python the project supports, besides $(PYTHON): the unit tests run on
# each (in .venv-<version>). With pyenv: OTHER_PYTHONS="$$(pyenv root)/versions/3.10.13/bin/python ..."
# python3.X on PATH, else the newest pyenv build of 3.X; the plain name when neither runs.
find_python = $(shell for c in python$(1) $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/$(1).*/bin/python$(1) 2>/dev/null | sort -V | tail -n 1); do \
    if "$$c" -c '' >/dev/null 2>&1; then echo "$$c"; exit 0; fi; done; echo python$(1))
OTHER_PYTHONS ?= $(call find_python,3.10) $(call find_python,3.13)

# The tests run in one worker per core (pytest-xdist), a test module's tests in one worker and each
# editor's in one (tests/conftest.py). The servers the tests start write their byte code, so that
# each start does not compile the package again (PYTHONDONTWRITEBYTECODE would make each compile it).
PARALLEL ?= -n auto --dist loadgroup
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-suite test-deps test-pythons venv venv-test lint bench clean

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
	@echo "== ckp check samples/broken/memory-bank (every diagnostic code once, but CKP072)"
	-$(BIN)/ckp check samples/broken/memory-bank
	@echo "== ckp route: which files an agent loads for a question"
	$(BIN)/ckp route samples/mentat/memory-bank "How does mentat fetch ISTAT data via SDMX?"
	@echo "== ckp bench: tokens with and without CKP"
	$(BIN)/ckp bench samples/mentat/memory-bank --queries samples/mentat/queries.yaml

test-deps: venv-test
	bash scripts/install-test-deps.sh

# Everything CI runs. The unit tests on OTHER_PYTHONS run meanwhile, in the background (their
# output is shown at the end, and kept in test-artifacts/test-pythons.log): the editors' installs
# and the e2e tests mostly wait, and leave the cores to them.
test:
	@mkdir -p test-artifacts; \
	$(MAKE) --no-print-directory test-pythons > test-artifacts/test-pythons.log 2>&1 & others=$$!; \
	echo "== meanwhile, in the background: the unit tests on $(OTHER_PYTHONS)"; \
	$(MAKE) --no-print-directory test-suite; suite=$$?; \
	wait $$others; pythons=$$?; \
	echo "== the unit tests on the other Pythons (test-artifacts/test-pythons.log)"; \
	cat test-artifacts/test-pythons.log; \
	[ $$suite -eq 0 ] && [ $$pythons -eq 0 ]

# ruff, mypy and the whole suite on $(PYTHON).
test-suite: test-deps
	$(BIN)/ruff check ckp_lsp tests benchmarks
	$(BIN)/ruff format --check ckp_lsp tests benchmarks
	$(BIN)/mypy
	$(TEST_ENV) $(BIN)/python -m pytest -q -p no:cacheprovider $(PARALLEL)

# The unit tests (a minute or two) on each of OTHER_PYTHONS. A missing one is skipped with a
# warning, and fails the run under CI=true. Those marked `scale` (large banks, long inputs,
# hundreds of generated examples) run on $(PYTHON) only: they measure size, not the language,
# and are a third of the unit tests' time.
test-pythons:
	@for py in $(OTHER_PYTHONS); do \
	    if ! "$$py" -c 'import sys' >/dev/null 2>&1; then \
	        echo "test-pythons: no usable $$py (set OTHER_PYTHONS)"; \
	        if [ "$$CI" = true ]; then exit 1; else continue; fi; \
	    fi; \
	    venv=".venv-$$("$$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"; \
	    echo "== unit tests on $$("$$py" --version) ($$venv)"; \
	    [ -x "$$venv/bin/python" ] || "$$py" -m venv "$$venv" || exit 1; \
	    "$$venv/bin/python" -m pip install --quiet -e '.[test]' || exit 1; \
	    $(TEST_ENV) "$$venv/bin/python" -m pytest -q -p no:cacheprovider $(PARALLEL) -m "not scale" tests/unit || exit 1; \
	done

lint: venv-test
	$(BIN)/ruff check ckp_lsp tests benchmarks
	$(BIN)/ruff format --check ckp_lsp tests benchmarks
	$(BIN)/mypy

bench: venv
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .venv-3.* build dist *.egg-info test-artifacts
