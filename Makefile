# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# CPU torch first: an unpinned torch would pull a CUDA build of several GB.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[train,dev,ray]"
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

demo: $(STAMP)
	$(BIN)/cardrl demo

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/cardrl bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
