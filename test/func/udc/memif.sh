#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# udc (UD, UC, RC over IPv6) between two pmrdma processes over memif.
#   memif.sh UDC_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

logdir=$(mktemp -d /tmp/pmrt-udc-memif.XXXXXX)
sock="$logdir/memif.sock"
MEMIF_SOCK=$sock
ctl="$logdir/ctl.sock"
cleanup() { rm -rf "$logdir"; rm -rf /var/run/dpdk/pmrt-udc-*-$$; }
trap cleanup EXIT

vdev="net_memif0,socket=$sock,socket-abstract=no,bsize=8192"
run_all "" "" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev $vdev,role=server" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev $vdev,role=client" \
	",mac=02:00:00:00:00:01" ",mac=02:00:00:00:00:02" "$ctl"
fails=$?
echo "udc memif: $fails failed run(s)"
[ "$fails" = 0 ]
