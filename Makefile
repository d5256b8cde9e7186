# toolchat front end. `make run` and `make test` are all a fresh machine needs.
#
#   make deps        install the system packages the project uses (does nothing when present)
#   make build       Release build in build/
#   make run         deps + build + render the bundled Qwen2.5 example
#   make test        build + every test (ctest) in build/
#   make test-asan   ASan + UBSan build in build-asan/ + the tests not labelled "slow"
#   make test-tsan   ThreadSanitizer build in build-tsan/ of the threaded render test only
#   make e2e         the gateway against a real llama-server (tests/e2e/; builds llama-server from the
#                    snapshot in ../shared/third_party/ into build-e2e/, or LLAMA_SERVER=/path)
#   make bench       build with the benchmarks, then bench/run.sh
#   make fuzz-diff N=1000 SEED=1    differential fuzzing against the Python oracle
#   make fuzz SECONDS=60            libFuzzer targets (clang) from fuzz/, in build-fuzz/
#   make tokenize-fuzz TOKENIZE_N=9091 SEED=1   tokenizer vs Hugging Face tokenizers, N random
#                                   texts per shipped tokenizer.json (11 of them: ~100,000 texts)
#   make clean

SHELL := /bin/bash
.DEFAULT_GOAL := build

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
E2E_BUILD  ?= build-e2e
JOBS       ?= 2
N          ?= 1000
SEED       ?= 1
SECONDS    ?= 60

GENERATOR := $(if $(shell command -v ninja),Ninja,Unix Makefiles)
# The first python3 that can import jinja2 (the oracle needs it); evaluated when used, so after deps.
PYTHON ?= $(shell for p in python3 /usr/bin/python3; do $$p -c 'import jinja2' 2>/dev/null && { command -v $$p; exit; }; done; echo python3)

# Debian packages. Where another install already does the job (nodesource's node with its npm),
# the probe in `deps` below accepts it. The python3-* packages are for Debian's /usr/bin/python3,
# which the Python module is built for and tested with (python/, tests/python/), whatever other
# python3 comes first on PATH.
DEB_PACKAGES := build-essential cmake ninja-build clang libclang-rt-14-dev \
                libgtest-dev libgmock-dev libbenchmark-dev \
                python3 python3-jinja2 nodejs npm valgrind \
                pkg-config libcpp-httplib-dev wrk ccache libcli11-dev openssl \
                json-schema-test-suite python3-numpy \
                python3-dev pybind11-dev python3-pybind11 python3-pytest python3-dask python3-distributed \
                python3-setuptools python3-wheel python3-pip python3-venv

CONFIGURE = cmake -S . -G "$(GENERATOR)" -DTOOLCHAT_PYTHON="$(PYTHON)"

.PHONY: deps build run test test-asan test-tsan e2e bench bench-llama fuzz-diff fuzz tokenize-fuzz clean

deps:
	@missing=""; \
	for pkg in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' "$$pkg" 2>/dev/null | grep -q '^install ok installed$$' && continue; \
	  case "$$pkg" in \
	    nodejs) command -v node >/dev/null && continue ;; \
	    npm) command -v npm >/dev/null && continue ;; \
	  esac; \
	  missing="$$missing $$pkg"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	echo "deps: installing$$missing"; \
	sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	$$sudo apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q --no-install-recommends $$missing
	@bash tests/tools/install_node_deps.sh || echo "deps: npm packages for tests/tools not installed (gguf_crosscheck will be skipped)"

build:
	$(CONFIGURE) -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory build
	./$(BUILD)/toolchat render --template examples/qwen2.5/chat_template.jinja --context examples/tool_use.json

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# -O1 keeps sanitizer builds quick while still catching what -O0 would hide; asserts stay on.
# The 3000-case differential sample is labelled "slow" and left to `make test`.
test-asan:
	$(CONFIGURE) -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DTOOLCHAT_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	# 256 MiB of stack: ASan frames are several times larger, and the GBNF matcher in the tests
	# (tests/unit/gbnf_matcher.hpp) recurses once per matched character of a fixture.
	ulimit -s 262144 2>/dev/null || true; cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS) -LE slow

# Only the libraries render_threads needs are built (value, jinja, chat): every corpus template
# rendered from 4 threads at once, ThreadSanitizer failing the run on any data race.
test-tsan:
	$(CONFIGURE) -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DTOOLCHAT_TSAN=ON
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target render_threads
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  ./$(TSAN_BUILD)/render_threads --threads 4 --rounds 1

# Keep $(E2E_BUILD) between runs: llama-server is built there once (ccache makes a rebuild quick).
e2e: build
	JOBS=$(JOBS) bash tests/e2e/run.sh $(BUILD)/toolchat $(E2E_BUILD)

bench:
	$(CONFIGURE) -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTOOLCHAT_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	@if [ -f bench/run.sh ]; then TOOLCHAT_BUILD_DIR="$(BUILD)" bash bench/run.sh; \
	else echo "bench: bench/run.sh does not exist yet"; fi

# toolchat's dialect parsers beside llama.cpp's common_chat_parse (bench/llama_compare.cpp); builds
# the snapshot's common library once into build-llama. Not part of `make bench` or CI.
bench-llama:
	JOBS=$(JOBS) bash bench/llama_compare.sh

fuzz-diff: build
	$(PYTHON) tools/fuzz_diff/run.py --seed $(SEED) --count $(N) --toolchat $(BUILD)/toolchat

TOKENIZE_N ?= 9091
tokenize-fuzz: build
	/usr/bin/env python3 tests/tokenize/compare.py --toolchat $(BUILD)/toolchat --fuzz --seed $(SEED) \
	  --count $(TOKENIZE_N)

fuzz:
	$(CONFIGURE) -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTOOLCHAT_FUZZ=ON -DBUILD_TESTING=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@found=0; \
	for f in $(FUZZ_BUILD)/fuzz/fuzz_*; do \
	  [ -x "$$f" ] || continue; found=1; name=$$(basename "$$f"); \
	  mkdir -p "fuzz-out/$$name"; seeds=""; [ -d "fuzz/corpus/$${name#fuzz_}" ] && seeds="fuzz/corpus/$${name#fuzz_}"; \
	  [ -d "fuzz/seeds/$${name#fuzz_}" ] && seeds="$$seeds fuzz/seeds/$${name#fuzz_}"; \
	  echo "== $$name for $(SECONDS) s"; \
	  "$$f" -max_total_time=$(SECONDS) -artifact_prefix="fuzz-out/$$name/" "fuzz-out/$$name" $$seeds || exit 1; \
	done; \
	[ $$found = 1 ] || echo "fuzz: no libFuzzer targets yet (fuzz/*.cpp)"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
