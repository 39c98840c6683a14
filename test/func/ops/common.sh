# SPDX-License-Identifier: BSD-3-Clause
# Shared by memif.sh and veth.sh: EAL memory arguments and running the
# server (background) / client (foreground) pair of rc_ops.
#
#   RC_OPS_CASES="opcodes sizes"  run only these cases (default: all)
#   RC_OPS_TIMEOUT=200            client timeout in seconds
#   RC_OPS_KILL_MODE=exit|freeze  how the server "dies" in peer_kill

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
srcroot=$(cd "$here/../../.." && pwd)

# eal_mem_args BUILD_DIR TAG: "--no-pci --in-memory" with hugepages, else
# --no-huge with 512 MB and a file prefix of its own (--in-memory cannot be
# combined with --no-huge; two primaries need distinct prefixes).
eal_mem_args() {
	local mode
	mode=$("$srcroot/scripts/eal-args.sh" --mode "$1" 2>/dev/null || echo nohuge)
	if [ "$mode" = huge ]; then
		echo "--no-pci --in-memory"
	else
		echo "--no-pci --no-huge -m 512 --file-prefix pmrt-$2-$$"
	fi
}

case_args() {
	local c
	[ -n "${RC_OPS_KILL_MODE:-}" ] && printf -- '--kill-mode %s ' "$RC_OPS_KILL_MODE"
	for c in ${RC_OPS_CASES:-}; do
		printf -- '--case %s ' "$c"
	done
}

# run_pair PREFIX_SERVER PREFIX_CLIENT SERVER_EAL CLIENT_EAL SERVER_DEV CLIENT_DEV CTL
# PREFIX_*: a command prefix (e.g. "ip netns exec pmrt-a") or empty.
run_pair() {
	local pfx_s=$1 pfx_c=$2 eal_s=$3 eal_c=$4 dev_s=$5 dev_c=$6 ctl=$7
	local ip_s ip_c spid src=0 crc=0 t=${RC_OPS_TIMEOUT:-200}

	ip_s=$(sed -n 's/.*ipv4=\([0-9.]*\).*/\1/p' <<<"$dev_s")
	ip_c=$(sed -n 's/.*ipv4=\([0-9.]*\).*/\1/p' <<<"$dev_c")
	rm -f "$ctl"
	# shellcheck disable=SC2086
	env PMR_EAL_ARGS="$eal_s" PMR_DEVICES="$dev_s" \
		timeout $((t + 20)) $pfx_s "$prog" --role server --peer-ip "$ip_c" \
		--ctl "$ctl" $(case_args) >"$logdir/server.log" 2>&1 &
	spid=$!
	# the client starts once the server has its device and control socket
	for _ in $(seq 1 600); do
		[ -S "$ctl" ] && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -S "$ctl" ]; then
		echo "server did not come up:"
		cat "$logdir/server.log"
		wait "$spid" || true
		return 1
	fi
	# shellcheck disable=SC2086
	env PMR_EAL_ARGS="$eal_c" PMR_DEVICES="$dev_c" \
		timeout "$t" $pfx_c "$prog" --role client --peer-ip "$ip_s" \
		--ctl "$ctl" $(case_args) 2>&1 | tee "$logdir/client.log"
	crc=${PIPESTATUS[0]}
	if [ "$crc" != 0 ]; then
		# the server may wait for commands that never come
		sleep 1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || src=$?
	echo "---- server log ----"
	cat "$logdir/server.log"
	echo "client exit $crc, server exit $src"
	[ "$crc" = 0 ] && [ "$src" = 0 ]
}
