#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A memif device whose peer process is killed (SIGKILL, as a crash) and
# another started in its place (peer_away.c; the peer port_echo).
# ROLE client: the device is the memif client; its server goes, and the
# new one starts with the socket file removed first: the device connects
# again (ROLE slave: the same, under memif's deprecated name).  ROLE
# server: the device is the server; its client goes and another connects
# to the same socket.
# ARGS: more arguments of the program (setupfail).
#   memif_restart.sh PROGRAM ECHO_BINARY BUILD_DIR [client|slave|server [ARGS]]
set -uo pipefail
prog=$1
echo_bin=$2
builddir=${3:-build}
role=${4:-client}
shift $(($# < 4 ? $# : 4))
case $role in
client|slave) peer_role=server; listen='' ;;
server) peer_role=client; listen=listen ;;
*) echo "memif_restart.sh: role client, slave or server, not $role"; exit 2 ;;
esac
. "$(dirname "$0")/common.sh"

memif_dirs "pmrt-memif-restart-$role"
eal_c="$(eal_mem_args "$builddir" c) -l 0 --vdev $vdev,role=$role"
spid=''
# shellcheck disable=SC2317
cleanup_more() { [ -n "$spid" ] && kill -9 "$spid" 2>/dev/null; }
# a signal (meson's timeout) ends the script through exit, so that the
# server goes too
trap 'exit 143' TERM
trap 'exit 130' INT

# serve N: the peer in the background (its own pid in spid, so that
# SIGKILL reaches it), up once it says so
serve() {
	# shellcheck disable=SC2046
	"$echo_bin" $(eal_mem_args "$builddir" "s$1") -l 1 \
		--vdev "$vdev,role=$peer_role" >"$logdir/server$1.log" 2>&1 &
	spid=$!
	for _ in $(seq 1 100); do
		grep -qs serving "$logdir/server$1.log" && return 0
		sleep 0.1
	done
	echo "peer $1 did not come up:"
	cat "$logdir/server$1.log"
	return 1
}

# the server first: a memif client does not wait for one
[ -z "$listen" ] && { serve 1 || exit 1; }
bg_run "$logdir/rc" "$logdir/prog.log" env PMR_EAL_ARGS="$eal_c" \
	PMR_DEVICES="roce:port=0,ipv4=10.77.0.2,mac=02:00:00:00:77:02,neigh=10.77.0.2/02:00:00:00:77:02" \
	timeout 60 "$prog" "$logdir" ${listen:+"$listen"} "$@"
cpid=$!
if [ -n "$listen" ]; then
	wait_mark "$logdir/listening" "$cpid" && serve 1
fi
if wait_mark "$logdir/ready" "$cpid"; then
	kill -9 "$spid"
	wait "$spid" 2>/dev/null
	echo "peer 1 killed"
	if wait_mark "$logdir/down" "$cpid"; then
		sleep 1.5
		[ -z "$listen" ] && rm -f "$sock"
		serve 2 && echo "peer 2 up"
	fi
fi
wait "$cpid"
rc=$(cat "$logdir/rc" 2>/dev/null) || rc=none
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
spid=
echo "memif_restart ($role): program exit $rc"
[ "$rc" = 0 ]
