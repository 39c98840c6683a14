#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A test program in one process on a RoCE device over a net_ring vdev,
# whose transmitted frames come back on its receive side.  The device's
# own address is its neighbour (with the device's MAC), so two of its QPs
# connected to each other exchange real RoCEv2 frames.  glibc's
# per-thread cache is off: test_qp_mem and alloc_fail read the heap with
# mallinfo2, which counts cached chunks as in use.
#   ring.sh TEST_BINARY BUILD_DIR NAME [DEVARGS [ARG...]]
#   DEVARGS: more RoCE device arguments ("" for none); ARGs: the program's
#   RING_LCORES: the EAL's lcores (-l), 0 unless set
set -uo pipefail
prog=$1
builddir=${2:-build}
name=${3:-ring}
extra=${4:+,$4}
shift $(($# < 4 ? $# : 4))
. "$(dirname "$0")/common.sh"

mac=02:00:00:00:98:01
env GLIBC_TUNABLES=glibc.malloc.tcache_count=0 \
	PMR_EAL_ARGS="$(eal_mem_args "$builddir" "$name") -l ${RING_LCORES:-0} --vdev net_ring0" \
	PMR_DEVICES="roce:port=0,ipv4=10.98.0.1,mac=$mac,neigh=10.98.0.1/$mac$extra" \
	timeout 120 "$prog" "$@" 2>&1 | grep -v '^EAL: \|^TELEMETRY: '
rc=${PIPESTATUS[0]}
echo "$name: exit $rc"
exit "$rc"      # (77: the program skipped itself)
