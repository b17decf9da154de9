# lbanalysis — plain `make` lists the targets.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help

## help: list the targets
help:
	@echo "lbanalysis make targets:"
	@grep -E '^## ' $(MAKEFILE_LIST) | sed -e 's/^## /  /'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@# the article notebooks import this checkout's articles package (not part of the wheel)
	$(PY) -c 'import pathlib, site; pathlib.Path(site.getsitepackages()[0], "lbanalysis-articles.pth").write_text(str(pathlib.Path.cwd()) + "\n")'
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $(STAMP)

## venv: create the virtual environment and install lbanalysis with its dev tools
venv: $(STAMP)

## tools: install the Debian tools the live tests run (ab, siege, iperf, iperf3, haproxy, nginx, wrk, hey, httperf, socat, sysstat, procps), chromium, and vegeta, bombardier, fortio and Locust from their registries
tools:
	@bash scripts/install-tools.sh

## report: build every article report from the bundled data (reports/<slug>/)
report: $(STAMP)
	$(VENV)/bin/lbanalysis report --all

## test: run the whole test suite (lint, unit, readers on real fixtures, notebooks)
test: $(STAMP) tools
	$(VENV)/bin/ruff check lbanalysis articles tests bench scripts
	$(VENV)/bin/ruff format --check lbanalysis articles tests bench scripts
	@# three workers on CI's two cores: a fifth of the suite waits on live tools and servers (sleeps, timed runs),
	@# and a third worker keeps both cores busy meanwhile (8 min 10 s against 9 min 30 s with two, here)
	$(VENV)/bin/pytest -q -n 3 --dist loadgroup

## fuzz: 100,000 mutated real outputs through the readers (only the package's errors, no hang)
# ten rounds of 5,000 examples a test, each in a process of its own: hypothesis keeps what a run generated (a 1 MB
# line in one example in eight), and 50,000 in one process outgrew 24 GiB; each round draws new examples
fuzz: $(STAMP)
	@for round in 1 2 3 4 5 6 7 8 9 10; do \
	  LBANALYSIS_FUZZ_EXAMPLES=5000 $(VENV)/bin/pytest -q -p no:cacheprovider tests/test_fuzz.py || exit 1; \
	done

## lint: ruff check and format check
lint: $(STAMP)
	$(VENV)/bin/ruff check lbanalysis articles tests bench scripts
	$(VENV)/bin/ruff format --check lbanalysis articles tests bench scripts

## bench: speed and memory benchmarks (ratios against baselines measured in the same run; each target OK or MISSED)
bench: $(STAMP)
	@status=0; \
	$(PY) bench/bench_read.py || status=1; \
	$(PY) bench/bench_reports.py || status=1; \
	$(PY) bench/bench_explore.py || status=1; \
	$(PY) bench/bench_repos.py || status=1; \
	exit $$status

## clean: remove the virtual environment, reports and caches
clean:
	rm -rf $(VENV) reports .pytest_cache .ruff_cache

.PHONY: help venv tools report test fuzz lint bench clean
