# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Shared by memif.sh and veth.sh: EAL memory arguments and running the
# server (background) / client (foreground) pair of rc_ops (both from
# ../common/pair.sh).
#
#   RC_OPS_CASES="opcodes sizes"  run only these cases (default: all)
#   RC_OPS_SKIP="sizes peer_kill" and not these
#   RC_OPS_TIMEOUT=200            client timeout in seconds
#   RC_OPS_KILL_MODE=exit|freeze  how the server "dies" in peer_kill

. "$(dirname "${BASH_SOURCE[0]}")/../common/pair.sh"

case_args() {
	local c
	[ -n "${RC_OPS_KILL_MODE:-}" ] && printf -- '--kill-mode %s ' "$RC_OPS_KILL_MODE"
	for c in ${RC_OPS_CASES:-}; do
		printf -- '--case %s ' "$c"
	done
	for c in ${RC_OPS_SKIP:-}; do
		printf -- '--skip %s ' "$c"
	done
}

# run_pair PREFIX_SERVER PREFIX_CLIENT SERVER_EAL CLIENT_EAL SERVER_DEV CLIENT_DEV CTL
# PREFIX_*: a command prefix (e.g. "ip netns exec pmrt-a") or empty.
run_pair() {
	local ip_s ip_c

	ip_s=$(sed -n 's/.*ipv4=\([0-9.]*\).*/\1/p' <<<"$5")
	ip_c=$(sed -n 's/.*ipv4=\([0-9.]*\).*/\1/p' <<<"$6")
	pair_run "" "$1" "$2" "$3" "$4" "$5" "$6" \
		"--peer-ip $ip_c $(case_args)" "--peer-ip $ip_s $(case_args)" \
		"$7" "${RC_OPS_TIMEOUT:-200}"
}
