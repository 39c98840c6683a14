#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# udc (UD, UC, RC over IPv6) between two pmrdma processes over memif.
#   memif.sh UDC_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

# shellcheck disable=SC2317
cleanup_more() { rm -rf /var/run/dpdk/pmrt-udc-*-$$; }
memif_dirs pmrt-udc-memif
run_all "" "" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev $vdev,role=server" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev $vdev,role=client" \
	",mac=02:00:00:00:00:01" ",mac=02:00:00:00:00:02" "$ctl"
fails=$?
echo "udc memif: $fails failed run(s)"
[ "$fails" = 0 ]
