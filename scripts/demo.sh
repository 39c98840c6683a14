#!/usr/bin/env bash
# The demo: list the pmrdma devices, then run the verbs loopback example
# (RC SEND/RECV, SEND_WITH_IMM, RDMA WRITE/READ, atomics, a timed
# ping-pong) on the in-process loopback device.
#
#   scripts/demo.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Environment: PMR_DEMO_ITERS (ping-pong round trips, default 10000);
# PMR_EAL_ARGS (if unset, chosen by scripts/eal-args.sh from the hugepage
# decision of scripts/hugepages.sh); PMR_NO_HUGE=1 forces --no-huge.
# Exit status: non-zero if any step fails.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
ITERS=${PMR_DEMO_ITERS:-10000}

if [ "$(scripts/eal-args.sh --mode "$BUILD_DIR")" = nohuge ]; then
	export PMR_NO_HUGE=1
fi
if [ -z "${PMR_EAL_ARGS:-}" ]; then
	PMR_EAL_ARGS=$(scripts/eal-args.sh "$BUILD_DIR")
	export PMR_EAL_ARGS
fi

run() {
	if [ ! -x "$1" ]; then
		echo "demo: $1 is not built (run: make build)" >&2
		exit 1
	fi
	echo "+ $*"
	if ! "$@"; then
		echo "demo: FAILED: $*" >&2
		exit 1
	fi
	echo
}

echo "demo: EAL arguments (when a device needs EAL): $PMR_EAL_ARGS"
echo
run "$BUILD_DIR/apps/pmr-devinfo/pmr-devinfo"
run "$BUILD_DIR/examples/verbs_loopback" -n "$ITERS"
echo "demo: OK"
