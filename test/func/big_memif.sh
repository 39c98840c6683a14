#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# big_memif: a 1 GiB RDMA WRITE and a 1 GiB RDMA READ back between two
# processes over memif (a million packets each at path MTU 1024), contents
# compared byte for byte (examples/rc_demo --size).
#
#   big_memif.sh BUILD_ROOT [RC_DEMO]
#
# Exit 0 passed, 1 failed, 77 skipped (not root).
set -u
if [ $# -lt 1 ]; then
	echo "usage: $0 BUILD_ROOT [RC_DEMO]" >&2
	exit 2
fi
. "$(dirname "$0")/lib.sh"
pmrt_init big_memif "$1"
DEMO=${2:-$PMRT_BUILD/examples/rc_demo}
SIZE=${PMRT_BIG_SIZE:-1073741824}
pmrt_require_root
[ -x "$DEMO" ] || { pmrt_fail "rc_demo not built: $DEMO"; exit 1; }

CTL=$PMRT_LOGDIR/ctl.sock
SRV_EAL=$(pmrt_eal_memif server 1 02:00:00:99:02:01)
CLI_EAL=$(pmrt_eal_memif client 0 02:00:00:99:02:02)
pmrt_memif_reset
rm -f "$CTL"
PMR_EAL_ARGS="$SRV_EAL" PMR_DEVICES="roce:port=0,ipv4=10.99.2.1" \
	timeout -k 5 240 "$DEMO" --server --ctl "$CTL" -n 100 --size "$SIZE" \
	>"$PMRT_LOGDIR/server.log" 2>&1 &
spid=$!
PMRT_PIDS+=("$spid")
for ((i = 0; i < 600; i++)); do
	[ -S "$CTL" ] && break
	sleep 0.05
done
PMR_EAL_ARGS="$CLI_EAL" PMR_DEVICES="roce:port=0,ipv4=10.99.2.2" \
	timeout -k 5 240 "$DEMO" --ctl "$CTL" -n 100 --size "$SIZE" \
	>"$PMRT_LOGDIR/client.log" 2>&1
crc=$?
wait "$spid"
src=$?
grep -h -v "^EAL\|memif\|TELEMETRY" "$PMRT_LOGDIR/client.log"
if [ $crc -eq 0 ] && [ $src -eq 0 ] &&
   grep -q "RDMA WRITE $SIZE B + READ back ......... ok" "$PMRT_LOGDIR/client.log"; then
	pmrt_pass "$SIZE-byte RDMA WRITE and READ, contents checked"
	exit 0
fi
pmrt_fail "client exit $crc, server exit $src"
tail -5 "$PMRT_LOGDIR/server.log"
exit 1
