#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# service_memif: progress as a DPDK service.  The server's device runs on a
# service lcore (progress=service,service_lcore=1) and the server process
# makes no pmrdma call once connected: it blocks in read().  The client's
# RDMA WRITE, READ, FETCH_AND_ADD, CMP_AND_SWP and a series of READs must
# all complete with the results checked (examples/rc_demo --passive).
#
#   service_memif.sh BUILD_ROOT [RC_DEMO]
#
# Exit 0 passed, 1 failed, 77 skipped (not root).
set -u
if [ $# -lt 1 ]; then
	echo "usage: $0 BUILD_ROOT [RC_DEMO]" >&2
	exit 2
fi
. "$(dirname "$0")/lib.sh"
pmrt_init service_memif "$1"
DEMO=${2:-$PMRT_BUILD/examples/rc_demo}
pmrt_require_root
[ -x "$DEMO" ] || { pmrt_fail "rc_demo not built: $DEMO"; exit 1; }

CTL=$PMRT_LOGDIR/ctl.sock
SRV_EAL=$(pmrt_eal_memif server 0,1 02:00:00:99:01:01)
CLI_EAL=$(pmrt_eal_memif client 0 02:00:00:99:01:02)
SRV_DEV="roce:port=0,ipv4=10.99.1.1,progress=service,service_lcore=1"
CLI_DEV="roce:port=0,ipv4=10.99.1.2"
pmrt_memif_reset
rm -f "$CTL"
PMR_EAL_ARGS="$SRV_EAL" PMR_DEVICES="$SRV_DEV" \
	timeout -k 5 60 "$DEMO" --server --passive --ctl "$CTL" \
	>"$PMRT_LOGDIR/server.log" 2>&1 &
spid=$!
PMRT_PIDS+=("$spid")
# The client starts once the server's device is up (its control socket
# exists): a memif client that connects while the server is still
# configuring its port gets a link that never passes frames.
for ((i = 0; i < 300; i++)); do
	[ -S "$CTL" ] && break
	sleep 0.05
done
PMR_EAL_ARGS="$CLI_EAL" PMR_DEVICES="$CLI_DEV" \
	timeout -k 5 60 "$DEMO" --passive --ctl "$CTL" -n 2000 \
	>"$PMRT_LOGDIR/client.log" 2>&1
crc=$?
wait "$spid"
src=$?
grep -h -v "^EAL\|memif\|TELEMETRY" "$PMRT_LOGDIR/client.log" \
	"$PMRT_LOGDIR/server.log"
if [ $crc -eq 0 ] && [ $src -eq 0 ] &&
   grep -q 'all results checked' "$PMRT_LOGDIR/client.log" &&
   grep -q 'made no pmrdma call' "$PMRT_LOGDIR/server.log"; then
	pmrt_pass "one-sided operations served by a service lcore"
	exit 0
fi
pmrt_fail "client exit $crc, server exit $src"
exit 1
