#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Hostile wire input against a pmrdma victim over memif.
#   memif.sh HOSTILE_BINARY BUILD_DIR
# The victim (a pmrdma process, memif server, lcore 1) runs in the
# background; the attacker (its own EAL, memif client, lcore 0) sends raw
# frames once the victim's control socket exists.  Both must exit 0.
# Environment: HOSTILE_DEVARGS, appended to the victim's device arguments
# (",ackreq=4"); HOSTILE_CASES and HOSTILE_ACKREQ, read by the attacker
# (hostile.c).
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/../lib.sh"
pmrt_init hostile_memif "$builddir"

t=${HOSTILE_TIMEOUT:-90}
logdir=$(mktemp -d /tmp/pmrt-hostile.XXXXXX)
sock="$logdir/memif.sock"
ctl="$logdir/ctl.sock"
PMRT_FILES+=("$sock" "$ctl")
cleanup_dir() { rm -rf "$logdir"; }

vdev="net_memif0,socket=$sock,socket-abstract=no,bsize=8192"
mem=$(pmrt_eal_mem)
eal_v="--no-pci -l 1 $mem --vdev $vdev,role=server"
eal_a="--no-pci -l 0 $mem --vdev $vdev,role=client"
if [ "$(pmrt_eal_mode)" != huge ]; then
	eal_v+=" --file-prefix pmrt-$PMRT_ID-victim"
	eal_a+=" --file-prefix pmrt-$PMRT_ID-attacker"
fi

env PMR_EAL_ARGS="$eal_v" \
	PMR_DEVICES="roce:port=0,ipv4=10.98.0.1,mac=02:00:00:98:00:01${HOSTILE_DEVARGS:-}" \
	timeout -k 5 $((t + 10)) "$prog" --role victim --ctl "$ctl" \
	>"$logdir/victim.log" 2>&1 &
vpid=$!
PMRT_PIDS+=("$vpid")
for _ in $(seq 1 300); do
	[ -S "$ctl" ] && break
	kill -0 "$vpid" 2>/dev/null || break
	sleep 0.1
done
if [ ! -S "$ctl" ]; then
	echo "victim did not come up:"
	cat "$logdir/victim.log"
	cleanup_dir
	exit 1
fi

env HOSTILE_EAL_ARGS="$eal_a" timeout -k 5 "$t" \
	"$prog" --role attacker --ctl "$ctl" 2>&1 | tee "$logdir/attacker.log"
arc=${PIPESTATUS[0]}
if [ "$arc" != 0 ]; then
	sleep 1
	kill "$vpid" 2>/dev/null
fi
wait "$vpid"
vrc=$?
echo "---- victim log ----"
cat "$logdir/victim.log"
cp "$logdir"/*.log "$PMRT_LOGDIR/" 2>/dev/null
cleanup_dir
echo "attacker exit $arc, victim exit $vrc"
[ "$arc" = 0 ] && [ "$vrc" = 0 ]
