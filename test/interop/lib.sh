# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Shared by rxe_pingpong.sh and rxe_perftest.sh: the rxe-peer (QEMU guest
# with rdma_rxe) set-up and tear-down, EAL arguments, step timing.
#
#   rxe_init NAME SOURCE_ROOT BUILD_ROOT   sets SRC BUILD P LOGDIR MTU TMO
#                                          and the addresses below
#   rxe_require PROGRAM LABEL              exit 77 unless root and rxe-peer,
#                                          1 unless PROGRAM is built
# Then RXE_EAL_PREFIX=..., EAL=$(rxe_eal), trap rxe_cleanup EXIT, rxe_peer_up,
# rxe_peer_attach [--pin], the cases, rxe_finish.
# The callers read PMR_RXE_MTU, PMR_RXE_TIMEOUT (default RXE_TMO_DEFAULT),
# PMR_RXE_CAPTURE, PMR_RXE_KEEP, PMR_NO_HUGE, PMR_TEST_LOGDIR, RXE_PEER,
# RXE_PEER_WORK (see the scripts' headers).

# The settings here are read by the scripts that source this file, which
# the linter cannot see: SC2034 (unused variable) is off for the file.
# shellcheck disable=SC2034
PORT=18515            # the guest tools' default
IFACE=pmr0
OUR_IP=10.77.0.2
OUR_MAC=02:00:00:00:00:02
GUEST=g1
GUEST_IP=10.77.0.11
HOST_IP=10.77.0.1     # the bridge: where the guest reaches our TCP server
BG_PIDS=()            # background programs rxe_cleanup stops

rxe_init() {
	RXE_NAME=$1
	SRC=$(cd "$2" && pwd)
	BUILD=$(cd "$3" && pwd)
	P=${RXE_PEER:-$SRC/../shared/tools/rxe-peer/rxe-peer}
	export RXE_PEER_WORK=${RXE_PEER_WORK:-/var/tmp/pmr-rxe-peer}
	MTU=${PMR_RXE_MTU:-1024}
	TMO=${PMR_RXE_TIMEOUT:-$RXE_TMO_DEFAULT}
	LOGDIR=${PMR_TEST_LOGDIR:-$BUILD/test-logs/$RXE_NAME}
}

say() { printf '%s: %s\n' "$RXE_NAME" "$*"; }

rxe_require() { # rxe_require PROGRAM LABEL
	if [ "$(id -u)" -ne 0 ]; then
		say "SKIP: needs root (QEMU guests, bridge, veth)"
		exit 77
	fi
	if [ ! -x "$P" ]; then
		say "SKIP: rxe-peer not found at $P"
		exit 77
	fi
	if [ ! -x "$1" ]; then
		say "FAIL: $2 not built: $1"
		exit 1
	fi
	mkdir -p "$LOGDIR"
}

# rxe_eal: EAL arguments for pmr0; hugepages only when
# scripts/hugepages.sh said so, else --no-huge with --file-prefix
# RXE_EAL_PREFIX-PID (--in-memory cannot be combined with --no-huge, DPDK-NOTES 5).
rxe_eal() {
	local mode=nohuge mem
	if [ "${PMR_NO_HUGE:-0}" != 1 ] && [ -r "$BUILD/.pmr-eal-mem" ]; then
		read -r mode <"$BUILD/.pmr-eal-mem" || mode=nohuge
	fi
	if [ "$mode" = huge ]; then
		mem="--in-memory"
	else
		mem="--no-huge -m 512 --file-prefix $RXE_EAL_PREFIX-$$"
	fi
	echo "--no-pci -l 0 $mem --vdev net_af_packet0,iface=$IFACE,qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"
}

rxe_cleanup() {
	local pid
	for pid in "${BG_PIDS[@]:-}"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	# EAL runtime dir (--file-prefix)
	[ -n "${RXE_EAL_PREFIX:-}" ] && rm -rf "/var/run/dpdk/$RXE_EAL_PREFIX-$$"
	if [ "${PMR_RXE_KEEP:-0}" = 1 ]; then
		say "peer left up (PMR_RXE_KEEP=1); stop it with: RXE_PEER_WORK=$RXE_PEER_WORK $P down"
	else
		"$P" down >>"$LOGDIR/peer.log" 2>&1
	fi
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

step() { # step NAME CMD... : run a set-up command, log it, time it
	local name=$1 t rc
	shift
	t=$(now)
	"$@" >>"$LOGDIR/peer.log" 2>&1
	rc=$?
	say "$name: exit $rc in $(elapsed "$t") s"
	if [ $rc -ne 0 ]; then
		say "FAIL: $name (see $LOGDIR/peer.log)"
		tail -n 30 "$LOGDIR/peer.log" | sed 's/^/    /'
		exit 1
	fi
}

# Build the guest image if needed and boot guest 1.
rxe_peer_up() {
	: >"$LOGDIR/peer.log"
	step "rxe-peer build" "$P" build
	step "rxe-peer up 1" "$P" up 1
}

# rxe_peer_attach [ATTACH_OPTION]...: pmr0 on the bridge as OUR_IP / OUR_MAC;
# start the capture when PMR_RXE_CAPTURE=1.
rxe_peer_attach() {
	step "rxe-peer attach $IFACE $OUR_IP" "$P" attach --mac "$OUR_MAC" "$@" "$IFACE" "$OUR_IP"
	if [ "${PMR_RXE_CAPTURE:-0}" = 1 ]; then
		step "capture start" "$P" capture start "$LOGDIR/rxe.pcap" "arp or udp"
	fi
}

# rxe_finish T0: stop the capture, print the summary; the exit status is
# 0 when something passed (passes) and nothing failed (failures).
# shellcheck disable=SC2154   # passes, failures: the caller's counts
rxe_finish() {
	if [ "${PMR_RXE_CAPTURE:-0}" = 1 ]; then
		"$P" capture stop "$LOGDIR/rxe.pcap" >>"$LOGDIR/peer.log" 2>&1
	fi
	say "$passes passed, $failures failed in $(elapsed "$1") s (logs: $LOGDIR)"
	[ "$failures" -eq 0 ] && [ "$passes" -gt 0 ]
}
