#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rxe_perftest: RDMA WRITE, READ and both atomics between pmrdma's RoCE
# driver and a real Linux soft-RoCE (rdma_rxe) peer, booted under QEMU by
# ../shared/tools/rxe-peer.  The guest runs perftest's latency servers
# (ib_write_lat, ib_read_lat, ib_atomic_lat -A FETCH_AND_ADD / CMP_AND_SWAP);
# our perftest_client speaks perftest's TCP exchange and checks the data of
# every iteration (see perftest_client.c).
#
#   rxe_perftest.sh SOURCE_ROOT BUILD_ROOT [PERFTEST_CLIENT]
#
# Our RoCE side runs on pmr0 (net_af_packet) as 10.77.0.2, GID index 0; the
# guest (10.77.0.11) uses rxe0 with GID index 1 (perftest -x 1).
#
# A case passes when our client exits 0 (every check passed), the guest's
# server exits 0 and prints its results (write_lat: the latency table row
# for SIZE and N; read/atomic_lat servers print their connection data and
# the closing line).  Exit status: 0 all passed, 1 a failure, 77 skipped.
#
# Environment (all optional):
#   RXE_PEER_WORK     rxe-peer work directory (default /var/tmp/pmr-rxe-peer)
#   RXE_PEER          the rxe-peer command (default SOURCE_ROOT/../shared/...)
#   PMR_RXE_ITERS     iterations per case     (default 200)
#   PMR_RXE_MTU       path MTU                (default 1024)
#   PMR_RXE_CASES     cases to run (default "write write_4096 read read_64
#                     read_4096 fa cas")
#   PMR_RXE_TIMEOUT   seconds per program     (default 150)
#   PMR_RXE_CAPTURE=1 capture the bridge into the log directory
#   PMR_RXE_KEEP=1    leave the peer up at the end (no "down")
#   PMR_NO_HUGE=1     force --no-huge
#   PMR_TEST_LOGDIR   where logs go (default BUILD_ROOT/test-logs/rxe_perftest)
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SOURCE_ROOT BUILD_ROOT [PERFTEST_CLIENT]" >&2
	exit 2
fi
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
CLIENT=${3:-$BUILD/test/interop/perftest_client}

P=${RXE_PEER:-$SRC/../shared/tools/rxe-peer/rxe-peer}
export RXE_PEER_WORK=${RXE_PEER_WORK:-/var/tmp/pmr-rxe-peer}
N=${PMR_RXE_ITERS:-200}
MTU=${PMR_RXE_MTU:-1024}
CASES=${PMR_RXE_CASES:-write write_4096 read read_64 read_4096 fa cas}
TMO=${PMR_RXE_TIMEOUT:-150}
LOGDIR=${PMR_TEST_LOGDIR:-$BUILD/test-logs/rxe_perftest}
PORT=18515
IFACE=pmr0
OUR_IP=10.77.0.2
OUR_MAC=02:00:00:00:00:02
GUEST=g1
GUEST_IP=10.77.0.11

say() { printf 'rxe_perftest: %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	say "SKIP: needs root (QEMU guests, bridge, veth)"
	exit 77
fi
if [ ! -x "$P" ]; then
	say "SKIP: rxe-peer not found at $P"
	exit 77
fi
if [ ! -x "$CLIENT" ]; then
	say "FAIL: perftest_client not built: $CLIENT"
	exit 1
fi
mkdir -p "$LOGDIR"

mem_args() {
	local mode=nohuge
	if [ "${PMR_NO_HUGE:-0}" != 1 ] && [ -r "$BUILD/.pmr-eal-mem" ]; then
		read -r mode <"$BUILD/.pmr-eal-mem" || mode=nohuge
	fi
	if [ "$mode" = huge ]; then
		echo "--in-memory"
	else
		echo "--no-huge -m 512 --file-prefix pmr-rxp-$$"
	fi
}

EAL="--no-pci -l 0 $(mem_args) --vdev net_af_packet0,iface=$IFACE,qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"
DEVS="roce:port=0,ipv4=$OUR_IP,mtu=$MTU"

cleanup() {
	rm -rf "/var/run/dpdk/pmr-rxp-$$"
	if [ "${PMR_RXE_KEEP:-0}" = 1 ]; then
		say "peer left up (PMR_RXE_KEEP=1); stop it with: RXE_PEER_WORK=$RXE_PEER_WORK $P down"
	else
		"$P" down >>"$LOGDIR/peer.log" 2>&1
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(now)

step() { # step NAME CMD...
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
"$P" detach "$IFACE" >>"$LOGDIR/peer.log" 2>&1   # left by a kept peer
step "rxe-peer attach $IFACE $OUR_IP" "$P" attach --mac "$OUR_MAC" "$IFACE" "$OUR_IP"
if [ "${PMR_RXE_CAPTURE:-0}" = 1 ]; then
	step "capture start" "$P" capture start "$LOGDIR/rxe.pcap" "arp or udp"
fi
# Warm-up: the guest's first RDMA test is slow (QEMU translating new code).
"$P" run -t 60 "$GUEST" "ibv_devinfo -d rxe0" >>"$LOGDIR/peer.log" 2>&1

failures=0
passes=0

# run_case NAME GUEST_CMD CLIENT_ARGS... ; SIZE for the write_lat table check
run_case() {
	local name=$1 gcmd=$2 size=$3
	shift 3
	local glog=$LOGDIR/$name.guest.log olog=$LOGDIR/$name.pmr.log
	local id orc grc gt why=""

	id=$("$P" run -b "$GUEST" "$gcmd" 2>>"$LOGDIR/peer.log")
	if [ -z "$id" ] || ! "$P" wait-listen -t 30 "$GUEST" "$PORT" \
		>>"$LOGDIR/peer.log" 2>&1; then
		say "FAIL: $name: the guest server did not start"
		failures=$((failures + 1))
		[ -n "$id" ] && "$P" kill "$GUEST" "$id" >/dev/null 2>&1
		return
	fi
	env "PMR_EAL_ARGS=$EAL" "PMR_DEVICES=$DEVS" \
		timeout -k 5 "$TMO" "$CLIENT" -p "$PORT" -m "$MTU" \
		--timeout $((TMO - 10)) "$@" "$GUEST_IP" >"$olog" 2>&1
	orc=$?
	gt=60
	[ $orc -ne 0 ] && gt=10
	"$P" wait -t "$gt" "$GUEST" "$id" >"$glog" 2>&1
	grc=$?
	"$P" kill "$GUEST" "$id" >/dev/null 2>&1
	[ "$orc" -eq 0 ] || why+=" perftest_client exit $orc;"
	[ "$grc" -eq 0 ] || why+=" guest exit $grc;"
	grep -q "^perftest_client: PASS" "$olog" || why+=" client did not PASS;"
	grep -q "remote address: LID" "$glog" || why+=" guest did not print the remote address;"
	case $gcmd in
	ib_write_lat*)
		# the server's result row: "#bytes #iterations t_min ..."
		grep -Eq "^ *$size +$N +[0-9]" "$glog" ||
			why+=" guest printed no result row for $size bytes x $N;"
		;;
	*)
		grep -q -- "------------" "$glog" ||
			why+=" guest did not finish its output;"
		;;
	esac
	if [ -z "$why" ]; then
		say "PASS: $name ($gcmd)"
		grep -E "perftest_client: (write|read|atomic)" "$olog" | sed 's/^/    /'
		passes=$((passes + 1))
	else
		say "FAIL: $name ($gcmd):$why"
		echo "    --- guest ($glog)"
		tail -n 25 "$glog" | sed 's/^/    /'
		echo "    --- perftest_client ($olog)"
		tail -n 25 "$olog" | sed 's/^/    /'
		failures=$((failures + 1))
	fi
}

G="-d rxe0 -x 1 -F -n $N -p $PORT"
say "PMR_EAL_ARGS=$EAL"
say "PMR_DEVICES=$DEVS"
for c in $CASES; do
	case $c in
	write)      run_case "$c" "ib_write_lat $G" 2 --test write -n "$N" ;;
	write_4096) run_case "$c" "ib_write_lat $G -s 4096" 4096 --test write -n "$N" -s 4096 ;;
	read)       run_case "$c" "ib_read_lat $G" 2 --test read -n "$N" ;;
	read_64)    run_case "$c" "ib_read_lat $G -s 64" 64 --test read -n "$N" -s 64 ;;
	read_4096)  run_case "$c" "ib_read_lat $G -s 4096" 4096 --test read -n "$N" -s 4096 ;;
	fa)         run_case "$c" "ib_atomic_lat $G" 8 --test atomic --atomic fa -n "$N" ;;
	cas)        run_case "$c" "ib_atomic_lat $G -A CMP_AND_SWAP" 8 --test atomic --atomic cas -n "$N" ;;
	*) say "unknown case '$c'"; exit 2 ;;
	esac
done
if [ "${PMR_RXE_CAPTURE:-0}" = 1 ]; then
	"$P" capture stop "$LOGDIR/rxe.pcap" >>"$LOGDIR/peer.log" 2>&1
fi

say "$passes passed, $failures failed in $(elapsed "$t0") s (logs: $LOGDIR)"
[ $failures -eq 0 ] && [ $passes -gt 0 ]
