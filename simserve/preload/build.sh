#!/bin/sh
# Builds the preload library for the architectures whose compiler is
# installed: OUT/arm64/vc4sim.so (aarch64-linux-gnu-gcc),
# OUT/armhf/vc4sim.so (arm-linux-gnueabihf-gcc: 32-bit programs, such as
# Raspberry Pi OS 32-bit's) and OUT/amd64/vc4sim.so (gcc, on an x86-64
# host).
#   simserve/preload/build.sh [OUT]    (OUT defaults to simserve/preload/out)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
flags="-shared -fPIC -O2 -g -Wall -Wextra -Werror -fvisibility=hidden -D_FORTIFY_SOURCE=0"
built=
build() { # arch compiler
	if command -v "$2" >/dev/null 2>&1; then
		mkdir -p "$out/$1"
		"$2" $flags -o "$out/$1/vc4sim.so" "$here/vc4sim.c" -ldl -lpthread
		built="$built $1"
	fi
}
build arm64 aarch64-linux-gnu-gcc
build armhf arm-linux-gnueabihf-gcc
[ "$(uname -m)" = x86_64 ] && build amd64 gcc
if [ -z "$built" ]; then
	echo "build.sh: no compiler found (gcc for amd64, aarch64-linux-gnu-gcc for arm64, arm-linux-gnueabihf-gcc for armhf)" >&2
	exit 1
fi
echo "build.sh: built$built in $out"
