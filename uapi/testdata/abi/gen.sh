#!/bin/bash
# Regenerates amd64.txt, armhf.txt and arm64.txt from abi.c (see README.md).
# Needs: gcc, gcc-arm-linux-gnueabihf, gcc-aarch64-linux-gnu (with their
# libc6-dev-*-cross), qemu-user-static and libdrm-dev (for the headers).
set -euo pipefail
cd "$(dirname "$0")"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
inc=-I/usr/include/libdrm
gcc -Wall -Wextra $inc abi.c -o "$w/abi.amd64"
arm-linux-gnueabihf-gcc -Wall -Wextra -static $inc abi.c -o "$w/abi.armhf"
aarch64-linux-gnu-gcc -Wall -Wextra -static $inc abi.c -o "$w/abi.arm64"
"$w/abi.amd64" > amd64.txt
qemu-arm-static "$w/abi.armhf" > armhf.txt
qemu-aarch64-static "$w/abi.arm64" > arm64.txt
# Cross-check: the kernel's own uAPI headers (linux-libc-dev-*-cross) give
# the same output as libdrm's copies.
for a in arm-linux-gnueabihf:armhf:qemu-arm-static aarch64-linux-gnu:arm64:qemu-aarch64-static; do
	IFS=: read -r triple arch qemu <<<"$a"
	"$triple-gcc" -static -I"/usr/$triple/include/drm" abi.c -o "$w/abi.k.$arch"
	"$qemu" "$w/abi.k.$arch" | diff -u - "$arch.txt"
done
echo "abi: wrote amd64.txt armhf.txt arm64.txt (kernel uAPI headers agree)"
