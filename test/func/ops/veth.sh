#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rc_ops between two pmrdma processes in two network namespaces joined by a
# veth pair (MTU 9000, IPv6 off), over af_packet.  The stack owns
# 10.99.0.1/.2: the kernel interfaces get no address.
#   veth.sh RC_OPS_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

veth_dirs pmrt-veth pmrt-va pmrt-vb

run_pair "ip netns exec $nsa" "ip netns exec $nsb" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev net_af_packet0,iface=pmrt-va,$AFP_ARGS" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev net_af_packet0,iface=pmrt-vb,$AFP_ARGS" \
	"roce:port=0,ipv4=10.99.0.1,mtu=4096" \
	"roce:port=0,ipv4=10.99.0.2,mtu=4096" \
	"$ctl"
