#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pmr_query_qp_mem on a RoCE device: the verbs test test_qp_mem in one
# process, its device on a net_null vdev.  The device's own address is
# also its neighbour, so QPs connected to each other send frames that
# go nowhere: their WRs end in a retry error (the timeout path).
#   qp_mem_roce.sh TEST_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

# shellcheck disable=SC2046
env PMR_EAL_ARGS="$(eal_mem_args "$builddir" qpmem) -l 0 --vdev net_null0" \
	PMR_DEVICES="roce:port=0,ipv4=10.98.0.1,neigh=10.98.0.1/02:00:00:00:98:01" \
	timeout 120 "$prog" 2>&1 | grep -v '^EAL: \|^TELEMETRY: '
rc=${PIPESTATUS[0]}
echo "qp_mem_roce: exit $rc"
[ "$rc" = 0 ]
