# The two commands of the README: `make demo` and `make test`. Both set up what is missing first;
# stamps under build/ keep a second run from redoing finished work.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := build/stamps
CPP_SOURCES := $(shell find cpp fuzz tests/cpp -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' 2>/dev/null) CMakeLists.txt
PY_SOURCES := $(shell find glassbox -name '*.py') pyproject.toml
CMAKE := $(VENV)/bin/cmake
ASAN_DIR := build/cpp-asan
FUZZ_DIR := build/fuzz
FUZZ_SECONDS ?= 600
CLANGXX := clang++-14

.PHONY: demo test test-cpp test-python test-models test-semantic test-suites verify-third-party fuzz fuzz-smoke \
  lint format setup clean

demo: $(STAMPS)/installed
	$(PY) -m glassbox.demo

test: test-cpp fuzz-smoke test-python

setup: $(STAMPS)/setup

$(STAMPS)/setup: scripts/setup_env.sh requirements/dev.txt requirements/constraints.txt
	scripts/setup_env.sh
	@mkdir -p $(STAMPS) && touch $@

# The package, its extension and glassbox-decompile, installed into .venv (editable: the Python
# sources are used in place, the native parts rebuilt incrementally in build/py-*).
$(STAMPS)/installed: $(STAMPS)/setup $(CPP_SOURCES) pyproject.toml
	$(PY) -m pip install --disable-pip-version-check -q --no-build-isolation --no-deps \
	  -c requirements/constraints.txt -e .
	@mkdir -p $(STAMPS) && touch $@

# C++ tests: GoogleTest through ctest, built with AddressSanitizer and UBSan.
$(STAMPS)/cpp-asan: $(STAMPS)/setup $(CPP_SOURCES)
	$(CMAKE) -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_MAKE_PROGRAM=$(abspath $(VENV)/bin/ninja) \
	  -DCMAKE_BUILD_TYPE=Debug -DGLASSBOX_BUILD_TESTS=ON -DGLASSBOX_SANITIZE=ON >/dev/null
	$(CMAKE) --build $(ASAN_DIR) -j2
	@mkdir -p $(STAMPS) && touch $@

test-cpp: $(STAMPS)/cpp-asan
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=0 $(abspath $(VENV)/bin/ctest) --output-on-failure -j2

test-python: $(STAMPS)/installed
	$(PY) -m pytest tests/python -q

# The real-model corpus (tests/python/models, ~70 entries) through capture and pythonify with the
# eager, aot_eager and inductor backends, each entry in its own process, under python and
# python -O: hours on 2 cores. Fails if a capture run changes results or raises. Tables in
# build/model-sweep.md and build/model-sweep-O.md. MODEL_SWEEP_ARGS narrows it, e.g.
# MODEL_SWEEP_ARGS="--families vision --backends aot_eager".
MODEL_SWEEP_ARGS ?=
test-models: $(STAMPS)/installed
	@status=0; \
	$(PY) scripts/model_sweep.py $(MODEL_SWEEP_ARGS) || status=1; \
	$(PY) scripts/model_sweep.py --optimize $(MODEL_SWEEP_ARGS) || status=1; \
	exit $$status

# The semantic check: CPython's own tests of 120 standard-library modules run on the originals,
# then on decompiled copies placed first on the path (fresh processes for each module's run),
# under every installed 3.10-3.13: 25-50 min on 2 cores. Fails when a version keeps fewer than
# SEMANTIC_MIN_PERCENT of the tests that pass on the originals. Record in build/semantic.json.
# Narrower: SEMANTIC_PYTHON=3.12 SEMANTIC_ARGS="--modules json,argparse".
SEMANTIC_PYTHON ?= all
SEMANTIC_ARGS ?=
SEMANTIC_MIN_PERCENT ?= 99.5
test-semantic: $(STAMPS)/installed
	@mkdir -p build
	$(PY) scripts/semantic_check.py --python $(SEMANTIC_PYTHON) --json build/semantic.json \
	  --min-percent $(SEMANTIC_MIN_PERCENT) $(SEMANTIC_ARGS)

# Third-party test suites on decompiled code: eight pure-Python packages (source distributions
# from PyPI, pinned by version and SHA-256 in scripts/suite_check.py) run their own tests on the
# originals and on their decompiled modules, under every installed 3.10-3.13 (a venv per version
# in build/suites with requirements/suites.txt). Needs PyPI; ~40 min on 2 cores. Narrower:
# SUITES_PYTHON=3.12 SUITES_ARGS="--packages toolz,click". Record in build/suites.json.
SUITES_PYTHON ?= all
SUITES_ARGS ?=
test-suites: $(STAMPS)/installed
	@mkdir -p build
	$(PY) scripts/suite_check.py --python $(SUITES_PYTHON) --json build/suites.json $(SUITES_ARGS)

# The verifier on third-party packages installed in .venv (their .py sources compiled by each of
# 3.10-3.13; a source that does not compile under a version is counted apart, not as a failure):
# one table of package x version at the end, every verdict in build/third-party.json. A long
# sweep (~10 min on a quiet 2-core machine), not part of `make test`. THIRD_PARTY_PYTHON=3.12 narrows it;
# THIRD_PARTY_ARGS passes more options (--decompiler /copy/of/an/older/glassbox-decompile).
SITE := $(abspath $(VENV))/lib/python3.11/site-packages
THIRD_PARTY_PYTHON ?= all
THIRD_PARTY_ARGS ?=
THIRD_PARTY := $(SITE)/torch/_dynamo $(SITE)/torch/fx $(SITE)/torch/_inductor $(SITE)/torch/nn \
  $(SITE)/numpy $(SITE)/pip $(SITE)/setuptools $(SITE)/networkx $(SITE)/jinja2 $(SITE)/pygments \
  $(SITE)/rich $(foreach p,core simplify solvers printing,sympy=$(SITE)/sympy/$(p)) \
  transformers=$(SITE)/transformers/utils transformers=$(SITE)/transformers/modeling_utils.py \
  $(foreach m,bert gpt2 llama t5 whisper vit,transformers=$(SITE)/transformers/models/$(m)/modeling_*.py)
verify-third-party: $(STAMPS)/installed
	cd /tmp && nice -n 10 $(abspath $(PY)) -m glassbox.verify --python $(THIRD_PARTY_PYTHON) \
	  --jobs 2 --by-package --progress-lines --max-failures 0 \
	  --json $(abspath build/third-party.json) $(THIRD_PARTY_ARGS) $(THIRD_PARTY)

# libFuzzer targets under ASan and UBSan: the marshal reader, the disassembler and decompiler,
# and the artifact loader. FUZZ_SECONDS is per target.
FUZZ_ARGS = -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix=build/fuzz-artifacts/

$(STAMPS)/fuzz: $(STAMPS)/setup $(CPP_SOURCES)
	CXX=$(CLANGXX) $(CMAKE) -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_MAKE_PROGRAM=$(abspath $(VENV)/bin/ninja) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLASSBOX_FUZZ=ON >/dev/null
	$(CMAKE) --build $(FUZZ_DIR) -j2 --target fuzz_marshal fuzz_decompile fuzz_loader
	@mkdir -p $(STAMPS) && touch $@

build/fuzz-corpus/marshal/.stamp: $(STAMPS)/setup scripts/make_fuzz_corpus.py
	PYTHONHASHSEED=0 $(PY) scripts/make_fuzz_corpus.py build/fuzz-corpus/marshal
	@touch $@

build/fuzz-corpus/loader/.stamp: $(STAMPS)/installed scripts/make_loader_corpus.py
	$(PY) scripts/make_loader_corpus.py build/fuzz-corpus/loader
	@touch $@

fuzz: $(STAMPS)/fuzz build/fuzz-corpus/marshal/.stamp build/fuzz-corpus/loader/.stamp
	@mkdir -p build/fuzz-artifacts
	ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/fuzz_marshal -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) \
	  build/fuzz-corpus/marshal
	ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/fuzz_decompile -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) \
	  build/fuzz-corpus/marshal
	ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/fuzz_loader -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) \
	  build/fuzz-corpus/loader

# The short run of `make test`: a fixed seed and a fixed number of inputs per target, from the
# seed corpora only. libFuzzer's path still follows the order a fresh folder lists the corpus in,
# so a real bug may show on one clone and not another: keep the input it writes and fix it.
SMOKE_RUNS ?= 20000
fuzz-smoke: $(STAMPS)/fuzz build/fuzz-corpus/marshal/.stamp build/fuzz-corpus/loader/.stamp
	@rm -rf build/fuzz-smoke && mkdir -p build/fuzz-smoke/marshal build/fuzz-smoke/decompile \
	  build/fuzz-smoke/loader build/fuzz-artifacts
	@set -e; for target in marshal:marshal decompile:marshal loader:loader; do \
	  name=$${target%%:*}; corpus=$${target##*:}; \
	  ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/fuzz_$$name -seed=1 -runs=$(SMOKE_RUNS) $(FUZZ_ARGS) \
	    build/fuzz-smoke/$$name build/fuzz-corpus/$$corpus >build/fuzz-smoke/$$name.log 2>&1 \
	    || { tail -n 30 build/fuzz-smoke/$$name.log; echo "fuzz-smoke: fuzz_$$name failed"; exit 1; }; \
	  echo "fuzz_$$name: $$(grep -E '^Done' build/fuzz-smoke/$$name.log)"; \
	done

lint: $(STAMPS)/setup
	$(VENV)/bin/ruff check glassbox tests scripts bench
	$(VENV)/bin/ruff format --check glassbox tests scripts bench

format: $(STAMPS)/setup
	$(VENV)/bin/ruff format glassbox tests scripts bench
	clang-format-14 -i $(filter %.cpp %.hpp,$(CPP_SOURCES))

clean:
	rm -rf build
