#!/usr/bin/env bash
# The demo: list the pmrdma devices, run the verbs loopback example (RC
# SEND/RECV, SEND_WITH_IMM, RDMA WRITE/READ, atomics, a timed ping-pong)
# on the in-process loopback device, then two processes over memif: the
# RC example and a short pmr-perf session with the raw-port ratio.
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

# Two processes over memif, each its own RoCE device, one RC connection:
# WRITE, READ, both atomics and a timed SEND/RECV ping-pong.  On a machine
# with two cores each process gets its own.
rc_pair() {
	local mem sock ctl cores_s=0 cores_c=0 spid rc=0
	mem=$(scripts/eal-args.sh "$BUILD_DIR")
	sock=$(mktemp -u /tmp/pmr-demo-memif.XXXXXX)
	ctl=$(mktemp -u /tmp/pmr-demo-ctl.XXXXXX)
	if [ "$(nproc)" -ge 2 ]; then cores_s=1; fi
	local vdev="net_memif0,socket=$sock,socket-abstract=no,bsize=8192"
	echo "+ rc_demo over memif: server on core $cores_s, client on core $cores_c"
	PMR_EAL_ARGS="$mem --file-prefix pmr-demo-s -l $cores_s --vdev $vdev,role=server" \
	PMR_DEVICES="roce:port=0,ipv4=10.88.0.1,mac=02:00:00:88:00:01" \
		timeout 60 "$BUILD_DIR/examples/rc_demo" --server --ctl "$ctl" \
		-n "$ITERS" > "$ctl.server.log" 2>&1 &
	spid=$!
	# start the client once the server's device is up (memif: a client
	# connecting while the server sets its port up gets a dead link); a
	# server that ends first, or makes no socket in 15 s, fails the demo
	for _ in $(seq 300); do
		[ -S "$ctl" ] || ! kill -0 "$spid" 2>/dev/null && break
		sleep 0.05
	done
	if [ ! -S "$ctl" ]; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		echo "demo: FAILED: the rc_demo server made no control socket" \
		     "(it ended, or 15 s passed); its log:" >&2
		cat "$ctl.server.log" >&2
		rm -f "$ctl.server.log"
		exit 1
	fi
	PMR_EAL_ARGS="$mem --file-prefix pmr-demo-c -l $cores_c --vdev $vdev,role=client" \
	PMR_DEVICES="roce:port=0,ipv4=10.88.0.2,mac=02:00:00:88:00:02" \
		timeout 60 "$BUILD_DIR/examples/rc_demo" --ctl "$ctl" \
		-n "$ITERS" 2> "$ctl.client.log" || rc=1
	wait "$spid" || rc=1
	grep -h '^server:' "$ctl.server.log" || true
	if [ "$rc" -ne 0 ]; then
		echo "demo: FAILED: rc_demo; logs:" >&2
		cat "$ctl.server.log" "$ctl.client.log" >&2
		exit 1
	fi
	rm -f "$ctl" "$ctl.server.log" "$ctl.client.log"
	echo
}
rc_pair

# A short pmr-perf session over memif: the raw port first (plain frames,
# same ping-pong), then RDMA SEND and WRITE latency, and the ratio.
perf_pair() {
	local p=$((18600 + $$ % 1000)) test logs
	logs=$(mktemp -d /tmp/pmr-demo-perf.XXXXXX)
	for test in send_lat write_lat; do
		echo "+ pmr-perf $test -s 64 --raw-compare over memif"
		if ! scripts/perf-pair.sh "$BUILD_DIR" "$logs" $((p++)) "$test" \
			-s 64 -n "$ITERS" --raw-compare; then
			echo "demo: FAILED: pmr-perf $test; its logs:" >&2
			tail -n 20 "$logs/client.err" "$logs/server.log" >&2
			rm -rf "$logs"
			exit 1
		fi
		cat "$logs/client.log"
		echo
	done
	rm -rf "$logs"
}
perf_pair
echo "demo: OK"
