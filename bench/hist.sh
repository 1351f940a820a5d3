#!/bin/sh
# Prints what the latency histogram costs: ns per record, percentile and
# merge, bytes per histogram, encoded size of a 1 s tick. Figures only.
# Usage: bench/hist.sh [path/to/bench_hist]  (default: the release build's)
set -eu
bin=${1:-build/release/bench/bench_hist}
if [ ! -x "$bin" ]; then
    echo "hist.sh: $bin: not found; build it with cmake -DCMAKE_BUILD_TYPE=Release" >&2
    exit 2
fi
echo "bench_hist ($bin) on $(uname -m), $(nproc) cores"
exec "$bin"
