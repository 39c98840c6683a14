#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A memif client whose server creates its pmrdma device late: the server
# sets DPDK up (its memif socket exists, its port not started), and
# creates its device 1.5 s later (PMRT_DEVICE_DELAY_MS); the client starts
# as soon as the socket exists.  The server refuses the client's first
# handshakes while its port is not started; the client's device must
# come up all the same, and rc_ops' opcodes and sizes pass.  Then a
# server that never creates its device: the client's device creation
# must fail with ENOTCONN once its 5 s of retries are over.
#   memif_late.sh RC_OPS_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

memif_dirs pmrt-memif-late
export PAIR_CLIENT_AT=memif RC_OPS_CASES="opcodes sizes"
eal_s="$(eal_mem_args "$builddir" s) -l 1 --vdev $vdev,role=server"
eal_c="$(eal_mem_args "$builddir" c) -l 0 --vdev $vdev,role=client"
dev_s="roce:port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01,mtu=4096"
dev_c="roce:port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02,mtu=4096"
fails=0
run_pair "env PMRT_DEVICE_DELAY_MS=1500" "" "$eal_s" "$eal_c" "$dev_s" \
	"$dev_c" "$ctl" || fails=$((fails + 1))

echo "==== a server that never creates its device"
rm -f "$sock" "$ctl"
env PMR_EAL_ARGS="$eal_s" PMR_DEVICES="$dev_s" PMRT_DEVICE_DELAY_MS=60000 \
	timeout 60 "$prog" --role server --ctl "$ctl" --peer-ip 10.0.0.2 \
	>"$logdir/never.log" 2>&1 &
spid=$!
for _ in $(seq 1 100); do
	[ -S "$sock" ] && break
	sleep 0.1
done
env PMR_EAL_ARGS="$eal_c" PMR_DEVICES="$dev_c" timeout 60 \
	"$prog" --role probe --expect-list-errno ENOTCONN 2>&1 | pair_filter
[ "${PIPESTATUS[0]}" = 0 ] || fails=$((fails + 1))
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
echo "memif_late: $fails failure(s)"
[ "$fails" = 0 ]
