# Thin wrapper around CMake; see README.md.
#   make        release build in build/release (binary: build/release/brink)
#   make demo   install what is missing, build, run the demo
#   make test   install what is missing, then every test in every build
#   make bench  release build, then every benchmark in bench/
JOBS ?= 2
RELEASE := build/release

.PHONY: all release deps demo test bench clean

all: release

release:
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(RELEASE) -j$(JOBS)

deps:
	@scripts/install-deps

# The console on the built-in target (headless for 10 s without a terminal).
demo: deps release
	$(RELEASE)/brink demo

test: deps
	@scripts/test-all

bench: release
	@for b in bench/*.sh; do [ "$$b" = bench/lib.sh ] && continue; echo "== $$b"; sh "$$b" || exit 1; done

clean:
	rm -rf build
