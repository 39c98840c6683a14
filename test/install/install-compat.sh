#!/usr/bin/env bash
# install-compat: what an application outside the tree gets from an
# installed pmrdma.
#
#   install-compat.sh BUILD_DIR SOURCE_DIR PREFIX [SANITIZE]
#
# (a) meson install into BUILD_DIR/staging;
# (b) build test/install/ibv_names.c (ibv_ names only) with the staged
#     headers and `pkg-config --cflags --libs pmrdma` from the staged .pc;
# (c) build the examples (verbs_loopback, rc_demo, rc_pingpong) through
#     examples/Makefile.outoftree the same way;
# (d) run both on the staged library; check that libpmrdma.so exports
#     pmr_poll_cq and no ibv_ symbol.
# SANITIZE is the build's b_sanitize ("none" or e.g. "address,undefined"):
# a sanitized library needs sanitized programs.  Any failed step fails.
set -euo pipefail

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
prefix=$3
sanitize=${4:-none}
staging=$build/staging
work=$build/install-test
root=$staging$prefix
CC=${CC:-cc}

say() { echo "install-compat: $*"; }
die() { echo "install-compat: FAIL: $*" >&2; exit 1; }

rm -rf "$staging" "$work"
mkdir -p "$work"

# (a) Install into the staging tree.
say "meson install --destdir $staging"
if ! meson install -C "$build" --destdir "$staging" --no-rebuild --quiet \
	>"$work/install.log" 2>&1; then
	cat "$work/install.log" >&2
	die "meson install failed"
fi

pc=$(find "$staging" -name pmrdma.pc -print -quit)
[ -n "$pc" ] || die "no pmrdma.pc installed under $staging"
# Point the staged pmrdma.pc at the staging tree.  Not with
# `pkg-config --define-variable=prefix=...`: that would also move the
# prefix of libdpdk.pc, which pmrdma.pc requires.
grep -q '^prefix=' "$pc" || die "$pc has no prefix= line"
mkdir -p "$work/pkgconfig"
sed -e "s|^prefix=.*|prefix=$root|" "$pc" >"$work/pkgconfig/pmrdma.pc"
export PKG_CONFIG_PATH="$work/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
PKGCONF=pkg-config
$PKGCONF --exists pmrdma || die "pkg-config cannot use $pc"

libdir=$($PKGCONF --variable=libdir pmrdma)
includedir=$($PKGCONF --variable=includedir pmrdma)
case "$libdir" in "$staging"/*) ;; *) die "libdir $libdir is outside the staging tree" ;; esac
case "$includedir" in "$staging"/*) ;; *) die "includedir $includedir is outside the staging tree" ;; esac
for h in pmr_verbs.h pmr_ibv_compat.h; do
	[ -n "$(find "$includedir" -name "$h" -print -quit)" ] ||
		die "$h is not installed under $includedir"
done
cflags=$($PKGCONF --cflags pmrdma)
libs=$($PKGCONF --libs pmrdma)
say "pkg-config --cflags --libs pmrdma: prefix $root"

# The exported symbols: pmr_ only, never ibv_.
so=$libdir/libpmrdma.so
[ -e "$so" ] || die "$so is not installed"
syms=$(nm -D --defined-only "$so" | awk '{ sub(/@.*/, "", $NF); print $NF }')
if grep -q '^ibv_' <<<"$syms"; then
	die "libpmrdma.so exports ibv_ symbols: $(grep '^ibv_' <<<"$syms" | tr '\n' ' ')"
fi
grep -qx pmr_poll_cq <<<"$syms" || die "libpmrdma.so does not export pmr_poll_cq"
say "nm -D: pmr_poll_cq exported, no ibv_ symbol ($(grep -c '^pmr_' <<<"$syms") pmr_ symbols)"

san=()
if [ "$sanitize" != none ] && [ -n "$sanitize" ]; then
	san=("-fsanitize=$sanitize")
fi

# (b) ibv_names.c against the staged headers and library only.
say "build ibv_names.c"
# shellcheck disable=SC2086  # pkg-config output is a list of words
"$CC" -std=c11 -O1 -g -Wall -Wextra -Werror "${san[@]}" $cflags \
	"$src/test/install/ibv_names.c" -o "$work/ibv_names" $libs ||
	die "ibv_names.c does not build against the installed pmrdma"

# (c) The example through its out-of-tree makefile.
say "build the examples with examples/Makefile.outoftree"
make -s -f "$src/examples/Makefile.outoftree" SRCDIR="$src/examples/" \
	O="$work" PKGCONF="$PKGCONF" CC="$CC" \
	CFLAGS="-O2 -g -Werror ${san[*]}" LDFLAGS="${san[*]}" ||
	die "examples/Makefile.outoftree failed"

# (d) Run both on the staged library, with no pmrdma configuration.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset PMR_CONFIG PMR_DEVICES
for exe in ibv_names verbs_loopback; do
	resolved=$(ldd "$work/$exe" | awk '$1 ~ /^libpmrdma\.so/ { print $3 }')
	[ "$(dirname "$resolved")" -ef "$libdir" ] ||
		die "$exe loads libpmrdma from '$resolved', not from $libdir"
done
say "run ibv_names"
"$work/ibv_names" || die "ibv_names failed"
say "run verbs_loopback -n 1000"
"$work/verbs_loopback" -n 1000 || die "verbs_loopback failed"
say "PASS"
