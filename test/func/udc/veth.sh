#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# udc (UD, UC, RC over IPv6) between two pmrdma processes in two network
# namespaces joined by a veth pair (MTU 9000, kernel IPv6 off), over
# af_packet.  The stack owns the addresses: the kernel interfaces get none.
#   veth.sh UDC_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

# shellcheck disable=SC2317
cleanup_more() { rm -rf /var/run/dpdk/pmrt-udc-*-$$; }
veth_dirs pmrt-udc pmrt-ua pmrt-ub

run_all "ip netns exec $nsa" "ip netns exec $nsb" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev net_af_packet0,iface=pmrt-ua,$AFP_ARGS" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev net_af_packet0,iface=pmrt-ub,$AFP_ARGS" \
	"" "" "$ctl"
fails=$?
echo "udc veth: $fails failed run(s)"
[ "$fails" = 0 ]
