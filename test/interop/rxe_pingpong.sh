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
RCPP=${3:-$(cd "$2" && pwd)/examples/rc_pingpong/rc_pingpong}
RXE_TMO_DEFAULT=120
. "$(dirname "$0")/lib.sh"
rxe_init rxe_pingpong "$1" "$2"
SIZES=${PMR_RXE_SIZES:-1 1024 4096 65536}
N=${PMR_RXE_ITERS:-50}
CASES=${PMR_RXE_CASES:-a b}
rxe_require "$RCPP" rc_pingpong

RXE_EAL_PREFIX=pmr-rxe
EAL=$(rxe_eal)
DEVS=${PMR_RXE_DEVICES:-roce:port=0,ipv4=$OUR_IP,mtu=$MTU}

trap rxe_cleanup EXIT
trap 'exit 130' INT TERM
t0=$(now)

rxe_peer_up
if [ "${PMR_RXE_PIN:-0}" = 1 ]; then
	rxe_peer_attach --pin
else
	rxe_peer_attach
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
rxe_finish "$t0"
