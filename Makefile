# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Where pip finds CPU torch. Empty: the default index (this machine's local wheel). Elsewhere
# on Linux the default index gives a CUDA build of several GB; pass PyTorch's CPU-only index:
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
TORCH_PIP_ARGS := $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
# setuptools' note on flat-layout editable installs is information, not a problem here
QUIET_PIP := PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet

.PHONY: test demo lint bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# CPU torch first: an unpinned torch would pull a CUDA build of several GB.
$(STAMP): $(BIN)/python pyproject.toml
	$(QUIET_PIP) torch==2.13.0 $(TORCH_PIP_ARGS)
	$(QUIET_PIP) -e ".[train,dev,ray,web,integrations]"
	@echo "compiling the game engines' kernels once (numba caches them: tens of seconds)"
	$(BIN)/python -c "from bench.compile_cost import first_use; first_use()"
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

# the documentation site (mkdocs.yml) into site/, every warning an error; browse it with
# `$(BIN)/mkdocs serve`
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) .pytest_cache build site *.egg-info
