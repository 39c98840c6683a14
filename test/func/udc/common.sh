# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Shared by memif.sh and veth.sh: run the udc server (background) and
# client (foreground) for one device configuration (../common/pair.sh).
#
#   UDC_CASES="ud_sizes uc_send"  run only these cases of the IPv4 runs
#   UDC_TIMEOUT=120               client timeout in seconds

PAIR_PREFIX=pmrt-udc
PAIR_QUIET=1
. "$(dirname "${BASH_SOURCE[0]}")/../common/pair.sh"

# run_pair TAG PREFIX_S PREFIX_C EAL_S EAL_C DEV_S DEV_C ARGS_S ARGS_C CTL
# ARGS_*: "--peer-ip A --gid-index I [--case N]..." for each side.
run_pair() {
	echo "==== $1: server $6 / client $7"
	pair_run "$@" "${UDC_TIMEOUT:-120}"
}

case_args() {
	local c
	for c in ${UDC_CASES:-}; do
		printf -- '--case %s ' "$c"
	done
}

# run_all PREFIX_S PREFIX_C EAL_S EAL_C MAC_S MAC_C CTL: MTU 1024, MTU 4096
# (IPv4), then IPv6 (server: ipv4 + ipv6, GID index 1; client: ipv6 only,
# GID index 0).  @return the number of failed runs.
run_all() {
	local pfx_s=$1 pfx_c=$2 eal_s=$3 eal_c=$4 mac_s=$5 mac_c=$6 ctl=$7
	local m fails=0
	for m in 1024 4096; do
		run_pair "v4-mtu$m" "$pfx_s" "$pfx_c" "$eal_s" "$eal_c" \
			"roce:port=0,ipv4=10.98.0.1$mac_s,mtu=$m" \
			"roce:port=0,ipv4=10.98.0.2$mac_c,mtu=$m" \
			"--peer-ip 10.98.0.2 --gid-index 0 $(case_args)" \
			"--peer-ip 10.98.0.1 --gid-index 0 $(case_args)" \
			"$ctl" || fails=$((fails + 1))
	done
	run_pair "v6" "$pfx_s" "$pfx_c" "$eal_s" "$eal_c" \
		"roce:port=0,ipv4=10.98.0.1,ipv6=fd00::1$mac_s,mtu=1024" \
		"roce:port=0,ipv6=fd00::2$mac_c,mtu=1024" \
		"--peer-ip fd00::2 --gid-index 1 --case rc_v6 --case ud_v6" \
		"--peer-ip fd00::1 --gid-index 0 --case rc_v6 --case ud_v6 --case gid_family" \
		"$ctl" || fails=$((fails + 1))
	return $fails
}
