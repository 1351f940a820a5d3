#!/bin/sh
# cppcheck over every source and test file: the findings a reviewer would
# otherwise have to spot by eye (leaks on error paths, bad format strings,
# out-of-bounds indexes). Any finding fails the test.
# Usage: sh test_static_analysis.sh BRINK SRCDIR
src=$2
command -v cppcheck >/dev/null 2>&1 || { echo "FAIL cppcheck is not installed: run scripts/install-deps"; exit 1; }
cd "$src" || exit 1
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
    --std=c11 --inline-suppr -DBRINK_VERSION='"0"' -I src src tests/unit tests/fuzz bench
