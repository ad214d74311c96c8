# Two commands from a fresh clone:  `make run` (install, start the app)  and  `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# glibc's allocator, read when Python starts (the Dockerfile sets the same; why: see there):
# two malloc arenas, blocks of 128 KB or more mapped apart and handed back when freed.
export MALLOC_ARENA_MAX ?= 2
export MALLOC_MMAP_THRESHOLD_ ?= 131072

.PHONY: run test lint bench bench-browser bench-load bench-plotly-react serve-replicas install install-dev \
	clean soak

run: install
	./scripts/ensure-chromium.sh --optional
	$(BIN)/streamlit run serve.py  # the public entry, as Docker and hosting run it (README)

test: install-dev
	./scripts/ensure-chromium.sh
	./scripts/ensure-nginx.sh
	./scripts/ensure-node.sh  # the chart element's JS unit tests (tests/test_chart_js.py)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

lint: install-dev
	$(BIN)/ruff check .

bench: install-dev
	./scripts/ensure-chromium.sh
	$(BIN)/python benchmarks/bench_sinusoidal.py
	$(BIN)/python benchmarks/bench_minilm.py
	$(BIN)/python benchmarks/bench_browser.py
	$(BIN)/python benchmarks/load_test.py

bench-browser: install-dev
	./scripts/ensure-chromium.sh
	$(BIN)/python benchmarks/bench_browser.py

bench-load: install-dev  # 20 browser sessions (2 min), then memory under hostile load and the export storm (~17 min)
	./scripts/ensure-chromium.sh
	./scripts/ensure-nginx.sh
	$(BIN)/python benchmarks/load_test.py
	$(BIN)/python benchmarks/load_proxied.py  # 10 sessions (1 min) through nginx to 2 replicas
	$(BIN)/python benchmarks/load_memory.py
	$(BIN)/python benchmarks/hostile_load.py  # serve.py as a host runs it, each attack (~6 min)
	$(BIN)/python benchmarks/upload_memory.py  # ten 16 MB tables uploaded at once, an 11th (~8 min)

soak: install-dev  # an hour of a mixed crowd and issue 52's attacks on serve.py (--short: 2 min)
	./scripts/ensure-chromium.sh
	# the server's probe (server/memory_probe.py): its account warm, idle and at a stall
	PE_MEMORY_PROBE=test-artifacts/soak-probe PE_MEMORY_PROBE_FRAMES=0 \
		$(BIN)/python benchmarks/soak.py

# N replicas of the app on loopback ports behind nginx on PORT (docs/replicas.md); Ctrl-C stops all.
N ?= 2
PORT ?= 8500
serve-replicas: install
	./scripts/ensure-chromium.sh --optional
	./scripts/ensure-nginx.sh
	$(BIN)/python deploy/serve_replicas.py --replicas $(N) --port $(PORT)

bench-plotly-react: install-dev  # st.plotly_chart against the Plotly.react element, same run
	./scripts/ensure-chromium.sh
	$(BIN)/python benchmarks/bench_plotly_react.py

# Reinstall only when a requirements file changed (the stamp is newer than both otherwise).
install: $(VENV)/.installed-app
install-dev: $(VENV)/.installed-dev

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-app: requirements.txt | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	touch $@ $(VENV)/.installed-app

clean:
	rm -rf $(VENV) test-artifacts .pytest_cache .ruff_cache .hypothesis
