#!/usr/bin/env bash
# Install the Debian 12 packages pmrdma needs to build, test and run its
# demo.  Idempotent: when everything is installed it only asks dpkg and
# returns; apt-get update runs only when something must be installed.
#
#   scripts/deps.sh          install what is missing (needs root)
#   scripts/deps.sh --list   print the package list
#   scripts/deps.sh --check  exit 1 if something is missing, install nothing
set -euo pipefail

# The one list of packages.  Keep it sorted by role.
PACKAGES=(
	# build
	gcc meson ninja-build pkg-config
	dpdk dpdk-dev libdpdk-dev libnuma-dev
	# tests and tools
	python3 python3-scapy tshark iproute2 procps shellcheck
	# plots (latency histograms)
	gnuplot-nox
)

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	if [ "$status" != "install ok installed" ]; then
		missing+=("$p")
	fi
done

case "${1:-}" in
--list)
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
	;;
--check)
	if [ ${#missing[@]} -ne 0 ]; then
		echo "missing packages: ${missing[*]}"
		exit 1
	fi
	exit 0
	;;
"") ;;
*)
	echo "usage: $0 [--list|--check]" >&2
	exit 2
	;;
esac

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PACKAGES[@]} packages are installed"
	exit 0
fi

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=(sudo)
	else
		echo "deps: missing packages and not root (run as root: make deps)" >&2
		exit 1
	fi
else
	SUDO=()
fi

export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, non-interactively.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	"${SUDO[@]}" debconf-set-selections 2>/dev/null || true
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
echo "deps: done"
