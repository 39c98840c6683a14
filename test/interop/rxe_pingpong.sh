#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rxe_pingpong: rc_pingpong on pmrdma's RoCE driver against rdma-core's
# ibv_rc_pingpong on a real Linux soft-RoCE (rdma_rxe) peer, booted under
# QEMU by ../shared/tools/rxe-peer.
#
#   rxe_pingpong.sh SOURCE_ROOT BUILD_ROOT [RC_PINGPONG]
#
# For each size (default 1 1024 4096 65536) at path MTU 1024, N iterations:
#   a) the guest is the server, our rc_pingpong the client (TCP to the guest,
#      10.77.0.11);
#   b) our rc_pingpong is the server (TCP on the host's kernel, which the
#      guest reaches at 10.77.0.1, the bridge address), the guest the client.
# Our RoCE side runs on pmr0 (net_af_packet) as 10.77.0.2, GID index 0
# (::ffff:10.77.0.2); the guest uses rxe0 with GID index 1.
#
# A case passes when both programs exit 0 and the guest prints "N iters".
# Needs root.  Exit status: 0 all passed, 1 a failure, 77 skipped (not root,
# no rxe-peer).
#
# Environment (all optional):
#   RXE_PEER_WORK     rxe-peer work directory (default /var/tmp/pmr-rxe-peer)
#   RXE_PEER          the rxe-peer command (default SOURCE_ROOT/../shared/...)
#   PMR_RXE_SIZES     message sizes          (default "1 1024 4096 65536")
#   PMR_RXE_ITERS     iterations per case    (default 50)
#   PMR_RXE_MTU       path MTU, -m           (default 1024)
#   PMR_RXE_CASES     "a b", "a" or "b"      (default "a b")
#   PMR_RXE_TIMEOUT   seconds per program    (default 120)
#   PMR_RXE_PIN=1     also pin our MAC in the guest (attach --pin), for a
#                     stack that does not answer ARP yet
#   PMR_RXE_CAPTURE=1 capture the bridge into the log directory
#   PMR_RXE_KEEP=1    leave the peer up at the end (no "down")
#   PMR_RXE_DEVICES   PMR_DEVICES for rc_pingpong (default
#                     roce:port=0,ipv4=10.77.0.2,mtu=MTU; "loop" checks the
#                     TCP exchange with the guest without any RoCE traffic)
#   PMR_NO_HUGE=1     force --no-huge
#   PMR_TEST_LOGDIR   where logs go (default BUILD_ROOT/test-logs/rxe_pingpong)
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SOURCE_ROOT BUILD_ROOT [RC_PINGPONG]" >&2
	exit 2
fi
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
RCPP=${3:-$BUILD/examples/rc_pingpong/rc_pingpong}

P=${RXE_PEER:-$SRC/../shared/tools/rxe-peer/rxe-peer}
export RXE_PEER_WORK=${RXE_PEER_WORK:-/var/tmp/pmr-rxe-peer}
SIZES=${PMR_RXE_SIZES:-1 1024 4096 65536}
N=${PMR_RXE_ITERS:-50}
MTU=${PMR_RXE_MTU:-1024}
CASES=${PMR_RXE_CASES:-a b}
TMO=${PMR_RXE_TIMEOUT:-120}
LOGDIR=${PMR_TEST_LOGDIR:-$BUILD/test-logs/rxe_pingpong}
PORT=18515            # the guest tools' default
IFACE=pmr0
OUR_IP=10.77.0.2
OUR_MAC=02:00:00:00:00:02
GUEST=g1
GUEST_IP=10.77.0.11
HOST_IP=10.77.0.1     # the bridge: where the guest reaches our TCP server

say() { printf 'rxe_pingpong: %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	say "SKIP: needs root (QEMU guests, bridge, veth)"
	exit 77
fi
if [ ! -x "$P" ]; then
	say "SKIP: rxe-peer not found at $P"
	exit 77
fi
if [ ! -x "$RCPP" ]; then
	say "FAIL: rc_pingpong not built: $RCPP"
	exit 1
fi
mkdir -p "$LOGDIR"

# EAL memory: hugepages only when scripts/hugepages.sh said so.
mem_args() {
	local mode=nohuge
	if [ "${PMR_NO_HUGE:-0}" != 1 ] && [ -r "$BUILD/.pmr-eal-mem" ]; then
		read -r mode <"$BUILD/.pmr-eal-mem" || mode=nohuge
	fi
	if [ "$mode" = huge ]; then
		echo "--in-memory"
	else
		# --in-memory cannot be combined with --no-huge (DPDK-NOTES 5).
		echo "--no-huge -m 512 --file-prefix pmr-rxe-$$"
	fi
}

EAL="--no-pci -l 0 $(mem_args) --vdev net_af_packet0,iface=$IFACE,qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"
DEVS=${PMR_RXE_DEVICES:-roce:port=0,ipv4=$OUR_IP,mtu=$MTU}

cleanup() {
	local pid
	for pid in "${BG_PIDS[@]:-}"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	rm -rf "/var/run/dpdk/pmr-rxe-$$"      # EAL runtime dir (--file-prefix)
	if [ "${PMR_RXE_KEEP:-0}" = 1 ]; then
		say "peer left up (PMR_RXE_KEEP=1); stop it with: RXE_PEER_WORK=$RXE_PEER_WORK $P down"
	else
		"$P" down >>"$LOGDIR/peer.log" 2>&1
	fi
}
BG_PIDS=()
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(now)

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

: >"$LOGDIR/peer.log"
step "rxe-peer build" "$P" build
step "rxe-peer up 1" "$P" up 1
attach=("$P" attach --mac "$OUR_MAC")
[ "${PMR_RXE_PIN:-0}" = 1 ] && attach+=(--pin)
step "rxe-peer attach $IFACE $OUR_IP" "${attach[@]}" "$IFACE" "$OUR_IP"
if [ "${PMR_RXE_CAPTURE:-0}" = 1 ]; then
	step "capture start" "$P" capture start "$LOGDIR/rxe.pcap" "arp or udp"
fi
GPP="ibv_rc_pingpong -d rxe0 -g 1 -m $MTU -p $PORT"
OPP=(env "PMR_EAL_ARGS=$EAL" "PMR_DEVICES=$DEVS"
     timeout -k 5 "$TMO" "$RCPP" -g 0 -m "$MTU" -p "$PORT")

failures=0
passes=0

verdict() { # verdict CASE SIZE OUR_RC GUEST_RC GUEST_LOG OUR_LOG
	local c=$1 s=$2 orc=$3 grc=$4 glog=$5 olog=$6 why=""
	[ "$orc" -eq 0 ] || why+=" rc_pingpong exit $orc;"
	[ "$grc" -eq 0 ] || why+=" guest exit $grc;"
	grep -q "^$N iters in" "$glog" || why+=" guest did not print '$N iters';"
	grep -q "^$N iters in" "$olog" || why+=" rc_pingpong did not print '$N iters';"
	if [ -z "$why" ]; then
		say "PASS: case $c size $s mtu $MTU iters $N"
		passes=$((passes + 1))
	else
		say "FAIL: case $c size $s mtu $MTU iters $N:$why"
		echo "    --- guest ($glog)"
		tail -n 15 "$glog" | sed 's/^/    /'
		echo "    --- rc_pingpong ($olog)"
		tail -n 15 "$olog" | sed 's/^/    /'
		failures=$((failures + 1))
	fi
}

# a) guest server, our client.
case_a() {
	local s=$1 id orc grc gt
	local glog=$LOGDIR/a-$s.guest.log olog=$LOGDIR/a-$s.pmr.log
	id=$("$P" run -b "$GUEST" "$GPP -s $s -n $N" 2>>"$LOGDIR/peer.log")
	if [ -z "$id" ] || ! "$P" wait-listen -t 30 "$GUEST" "$PORT" \
		>>"$LOGDIR/peer.log" 2>&1; then
		say "FAIL: case a size $s: the guest server did not start"
		failures=$((failures + 1))
		[ -n "$id" ] && "$P" kill "$GUEST" "$id" >/dev/null 2>&1
		return
	fi
	"${OPP[@]}" -s "$s" -n "$N" "$GUEST_IP" >"$olog" 2>&1
	orc=$?
	# The guest finishes soon after a successful client; after a failed
	# one it may wait forever for a SEND: do not wait long for it then.
	# (Before the exchange, it is still in accept(): 3 s are plenty.)
	gt=$TMO
	if [ $orc -ne 0 ]; then
		gt=10
		grep -q "remote address" "$olog" || gt=3
	fi
	"$P" wait -t "$gt" "$GUEST" "$id" >"$glog" 2>&1
	grc=$?
	"$P" kill "$GUEST" "$id" >/dev/null 2>&1
	verdict a "$s" $orc $grc "$glog" "$olog"
}

# Is our TCP server listening yet?
host_listening() {
	ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .
}

# b) our server, guest client.
case_b() {
	local s=$1 pid orc grc i
	local glog=$LOGDIR/b-$s.guest.log olog=$LOGDIR/b-$s.pmr.log
	"${OPP[@]}" -s "$s" -n "$N" >"$olog" 2>&1 &
	pid=$!
	BG_PIDS+=("$pid")
	for ((i = 0; i < 300; i++)); do
		host_listening && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! host_listening; then
		kill "$pid" 2>/dev/null
		wait "$pid"
		orc=$?
		echo "(rc_pingpong never listened on TCP $PORT)" >"$glog"
		verdict b "$s" $orc 1 "$glog" "$olog"
		return
	fi
	"$P" run -t "$TMO" "$GUEST" "$GPP -s $s -n $N $HOST_IP" >"$glog" 2>&1
	grc=$?
	if [ $grc -ne 0 ]; then
		# Give our side a moment to finish or fail by itself, then stop it.
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$pid" 2>/dev/null
	fi
	wait "$pid"
	orc=$?
	verdict b "$s" $orc $grc "$glog" "$olog"
}

say "rc_pingpong: $RCPP"
say "PMR_EAL_ARGS=$EAL"
say "PMR_DEVICES=$DEVS"
for s in $SIZES; do
	for c in $CASES; do
		case $c in
		a) case_a "$s" ;;
		b) case_b "$s" ;;
		*) say "unknown case '$c'"; exit 2 ;;
		esac
	done
done
if [ "${PMR_RXE_CAPTURE:-0}" = 1 ]; then
	"$P" capture stop "$LOGDIR/rxe.pcap" >>"$LOGDIR/peer.log" 2>&1
fi

say "$passes passed, $failures failed in $(elapsed "$t0") s (logs: $LOGDIR)"
[ $failures -eq 0 ] && [ $passes -gt 0 ]
