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
CLIENT=${3:-$(cd "$2" && pwd)/test/interop/perftest_client}
RXE_TMO_DEFAULT=150
. "$(dirname "$0")/lib.sh"
rxe_init rxe_perftest "$1" "$2"
N=${PMR_RXE_ITERS:-200}
CASES=${PMR_RXE_CASES:-write write_4096 read read_64 read_4096 fa cas}
rxe_require "$CLIENT" perftest_client

RXE_EAL_PREFIX=pmr-rxp
EAL=$(rxe_eal)
DEVS="roce:port=0,ipv4=$OUR_IP,mtu=$MTU"

trap rxe_cleanup EXIT
trap 'exit 130' INT TERM
t0=$(now)

rxe_peer_up
"$P" detach "$IFACE" >>"$LOGDIR/peer.log" 2>&1   # left by a kept peer
# shellcheck disable=SC2119   # no options: an unpinned peer
rxe_peer_attach
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
rxe_finish "$t0"
