# Thin wrapper around CMake; see README.md.
#   make        release build in build/release (binary: build/release/brink)
#   make demo   install what the build needs (scripts/install-deps demo),
#               build, run the demo
#   make test   install what the tests need too (scripts/install-deps test),
#               then every test in every build
#   make bench  install the benchmarks' peers (scripts/install-deps bench),
#               release build, then every benchmark in bench/
#   make install  release build installed under PREFIX (default /usr/local),
#               DESTDIR honoured: binary, man pages, completions, examples
#   make deb    a Debian package (CPack) of the release build in
#               $(DEB_BUILD)/package/
JOBS ?= 2
RELEASE := build/release
PREFIX ?= /usr/local
DESTDIR ?=
DEB_BUILD ?= build/deb

.PHONY: all release deps demo-deps test-deps bench-deps demo test bench clean install deb

all: release

release:
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(RELEASE) -j$(JOBS)

# What each purpose needs: scripts/install-deps --list demo|test|bench.
deps: test-deps

demo-deps:
	@scripts/install-deps demo

test-deps:
	@scripts/install-deps test

bench-deps:
	@scripts/install-deps bench

# The console on the built-in target (headless for 10 s without a terminal).
demo: demo-deps release
	$(RELEASE)/brink demo

test: test-deps
	@scripts/test-all

bench: bench-deps release
	@for b in bench/*.sh; do [ "$$b" = bench/lib.sh ] && continue; echo "== $$b"; sh "$$b" || exit 1; done

install:
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(RELEASE) -j$(JOBS)
	DESTDIR=$(DESTDIR) cmake --install $(RELEASE)

# The release build (as make release leaves it) packaged by CPack,
# installed under /usr, as a package is; dpkg-shlibdeps (dpkg-dev) names
# the libraries it needs, so that apt install ./brink_*.deb pulls them.
deb: release
	cd $(RELEASE) && cpack -G DEB -D CPACK_PACKAGING_INSTALL_PREFIX=/usr -B $(abspath $(DEB_BUILD))/package
	@ls $(DEB_BUILD)/package/brink_*.deb

clean:
	rm -rf build
