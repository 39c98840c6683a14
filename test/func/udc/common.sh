# SPDX-License-Identifier: BSD-3-Clause
# Shared by memif.sh and veth.sh: run the udc server (background) and
# client (foreground) for one device configuration.
#
#   UDC_CASES="ud_sizes uc_send"  run only these cases of the IPv4 runs
#   UDC_TIMEOUT=120               client timeout in seconds

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcroot=$(cd "$here/../../.." && pwd)

# eal_mem_args BUILD_DIR TAG (as test/func/ops/common.sh)
eal_mem_args() {
	local mode
	mode=$("$srcroot/scripts/eal-args.sh" --mode "$1" 2>/dev/null || echo nohuge)
	if [ "$mode" = huge ]; then
		echo "--no-pci --in-memory"
	else
		echo "--no-pci --no-huge -m 512 --file-prefix pmrt-udc-$2-$$"
	fi
}

# run_pair TAG PREFIX_S PREFIX_C EAL_S EAL_C DEV_S DEV_C ARGS_S ARGS_C CTL
# ARGS_*: "--peer-ip A --gid-index I [--case N]..." for each side.
run_pair() {
	local tag=$1 pfx_s=$2 pfx_c=$3 eal_s=$4 eal_c=$5 dev_s=$6 dev_c=$7
	local args_s=$8 args_c=$9 ctl=${10}
	local spid src=0 crc=0 t=${UDC_TIMEOUT:-120}

	echo "==== $tag: server $dev_s / client $dev_c"
	rm -f "$ctl"
	# a memif server that exits leaves its socket file behind
	[ -n "${MEMIF_SOCK:-}" ] && rm -f "$MEMIF_SOCK"
	# shellcheck disable=SC2086
	env PMR_EAL_ARGS="$eal_s" PMR_DEVICES="$dev_s" \
		timeout $((t + 20)) $pfx_s "$prog" --role server --ctl "$ctl" \
		$args_s >"$logdir/$tag.server.log" 2>&1 &
	spid=$!
	for _ in $(seq 1 600); do
		[ -S "$ctl" ] && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -S "$ctl" ]; then
		echo "server did not come up:"
		cat "$logdir/$tag.server.log"
		wait "$spid" || true
		return 1
	fi
	# shellcheck disable=SC2086
	env PMR_EAL_ARGS="$eal_c" PMR_DEVICES="$dev_c" \
		timeout "$t" $pfx_c "$prog" --role client --ctl "$ctl" \
		$args_c 2>&1 | grep -v '^EAL:\|^TELEMETRY:' | tee "$logdir/$tag.client.log"
	crc=${PIPESTATUS[0]}
	if [ "$crc" != 0 ]; then
		sleep 1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || src=$?
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		echo "---- $tag server log ----"
		grep -v '^EAL:\|^TELEMETRY:' "$logdir/$tag.server.log"
	fi
	echo "==== $tag: client exit $crc, server exit $src"
	[ "$crc" = 0 ] && [ "$src" = 0 ]
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
		"--peer-ip fd00::1 --gid-index 0 --case rc_v6 --case ud_v6" \
		"$ctl" || fails=$((fails + 1))
	return $fails
}
