#!/usr/bin/env bash
# Configure a meson build directory once:
#
#   scripts/setup-build.sh DIR [MESON_OPTION...]
#
# - DIR already configured (build.ninja present): nothing to do; ninja
#   regenerates it by itself when a meson.build changes.
# - DIR holds a configuration whose build.ninja is missing (an interrupted
#   setup, a newer meson): reconfigure it.
# - otherwise: a fresh `meson setup` (DIR may exist and hold other files,
#   e.g. .pmr-eal-mem).
set -euo pipefail

dir=$1
shift

if [ -f "$dir/build.ninja" ] && [ -f "$dir/meson-private/coredata.dat" ]; then
	exit 0
fi
if [ -f "$dir/meson-private/coredata.dat" ]; then
	echo "+ meson setup --reconfigure $dir $*"
	if meson setup --reconfigure "$dir" "$@"; then
		exit 0
	fi
	echo "setup-build: reconfigure failed; wiping $dir's configuration"
	echo "+ meson setup --wipe $dir $*"
	exec meson setup --wipe "$dir" "$@"
fi
echo "+ meson setup $dir $*"
exec meson setup "$dir" "$@"
