#!/bin/sh
# An agent of another protocol version for test_agents.sh: says hello with
# version $1 and waits for its input to close, as a brink of another
# release would before it refused the coordinator.
printf '{"type":"hello","protocol":%s,"brink":"9.9.9"}\n' "$1"
cat >/dev/null
