# Two commands on a fresh machine:  `make demo`  and  `make test`.
PYTHON ?= python3
PIP := $(PYTHON) -m pip

.PHONY: install install-test demo test bench

install:
	@command -v espeak-ng >/dev/null || (apt-get update -qq && apt-get install -y -qq espeak-ng)
	@command -v tesseract >/dev/null || (apt-get update -qq && apt-get install -y -qq tesseract-ocr)
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[serve]'

install-test: install
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PIP) install -q -e '.[test,eval,llamacpp,visual,rerank,serve,ray,s3]'

demo: install
	videorag demo

test: install-test
	$(PYTHON) -m pytest -q

bench: install-test
	$(PYTHON) benchmarks/bench_core.py
