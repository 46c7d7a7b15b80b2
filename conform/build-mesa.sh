#!/usr/bin/env bash
# conform/build-mesa.sh: builds Mesa's vc4 gallium driver for this machine
# (amd64 or any other host), with GBM, EGL, GLES2 and desktop GL, into a
# cache directory, so that unmodified programs (Debian's amd64 piglit and
# kmscube) run natively on the simulated vc4 through the amd64 preload.
#
#   conform/build-mesa.sh                # Debian bookworm's Mesa 22.3.6 source
#   conform/build-mesa.sh -src DIR       # your own Mesa tree instead
#   conform/build-mesa.sh -git REPO -commit REV   # one commit of a Mesa clone
#   conform/build-mesa.sh -print-env     # print the environment a program needs
#
# Options:
#   -cache DIR   where the source, the build and the install go
#                (default ${VCCUBE_CACHE:-$HOME/.cache/vccube}/mesa)
#   -src DIR     build this Mesa tree (a git checkout of yours); the build
#                goes to CACHE/build-<basename of DIR>
#   -git REPO    a Mesa git repository (a clone, or a bare one), with
#   -commit REV  the commit to build, such as mesa-22.3.0 or
#                32552010d1e0243948aebd6b6642ba9aeb979004 (22.3.0, the
#                release of the Pi 3 record: doc/mesa-on-pc.md). That
#                commit's files are exported (git archive, nothing is
#                written into REPO) to CACHE/git/mesa-<commit>, then built
#                as -src is, in CACHE/build-mesa-<commit>
#   -print-env   only print the shell lines that point a program at the
#                build (it must have been built: nothing is built then)
#
# Rerunning it reuses the source and the build (ninja rebuilds what changed).
# Mesa's vc4 compiles for any architecture: its meson.build links Broadcom's
# closed simulator only when that library is found (dep_simpenrose, never
# here) and builds the NEON tiling code only on ARM (vc4_tiling_lt_neon.c);
# elsewhere the portable vc4_tiling_lt.c runs. See doc/mesa-on-pc.md.
#
# Installs what it needs when missing (root or sudo): meson ninja-build
# python3-mako bison flex libdrm-dev libexpat1-dev zlib1g-dev libglvnd-dev
# glslang-tools dpkg-dev pkg-config. Without -src or -git the source comes
# from Debian's archive through a private apt configuration (a deb-src
# entry for bookworm main in the cache), so the machine's own apt sources
# are left as they are.
#
# Time on a 2-core machine: about 5 minutes for the first build, seconds
# for a rerun.
set -euo pipefail

log() { printf 'build-mesa: %s\n' "$*" >&2; }
die() { printf 'build-mesa: %s\n' "$*" >&2; exit 1; }

cache=${VCCUBE_CACHE:-$HOME/.cache/vccube}/mesa
src=
git_repo=
git_rev=
print_env=0
while [ $# -gt 0 ]; do
	case $1 in
	-cache) cache=$2; shift 2 ;;
	-src) src=$(cd "$2" && pwd); shift 2 ;;
	-git) git_repo=$2; shift 2 ;;
	-commit) git_rev=$2; shift 2 ;;
	-print-env) print_env=1; shift ;;
	-h|-help|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see -h)" ;;
	esac
done
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# -git REPO -commit REV: that commit's tree, exported once into the cache.
if [ -n "$git_repo" ] || [ -n "$git_rev" ]; then
	[ -n "$git_repo" ] && [ -n "$git_rev" ] || die "-git and -commit go together (see -h)"
	[ -z "$src" ] || die "-src and -git are two ways to name the source: give one"
	full=$(git -C "$git_repo" rev-parse --verify --quiet "$git_rev^{commit}") ||
		die "no commit $git_rev in $git_repo (git -C $git_repo fetch it first)"
	src=$cache/git/mesa-$full
	if [ ! -f "$src/.vccube-exported" ]; then
		log "exporting $git_rev ($full) of $git_repo to $src"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		git -C "$git_repo" archive "$full" | tar -x -C "$src.tmp" ||
			{ rm -rf "$src.tmp"; die "git archive $full of $git_repo failed"; }
		[ -f "$src.tmp/meson.build" ] && [ -d "$src.tmp/src/gallium/drivers/vc4" ] ||
			{ rm -rf "$src.tmp"; die "$git_rev of $git_repo is not a Mesa tree with vc4 (no meson.build or src/gallium/drivers/vc4)"; }
		echo "$full" >"$src.tmp/.vccube-exported"
		mv "$src.tmp" "$src"
	fi
fi

# The upstream version this project serves and compares with: bookworm's
# (22.3.6, Debian revisions 22.3.6-1+deb12uN carry only security fixes).
upstream_version=22.3.6

as_root=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then as_root=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ] && [ ${#as_root[@]} -eq 0 ]; then
		die "missing packages ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root"
	fi
	log "installing ${missing[*]}"
	"${as_root[@]}" apt-get update -qq >/dev/null
	"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

apt_install meson ninja-build python3-mako bison flex libdrm-dev libexpat1-dev \
	zlib1g-dev libglvnd-dev glslang-tools dpkg-dev pkg-config

# fetch_source: Debian's Mesa source package, unpacked with its patches.
fetch_source() {
	local dir=$cache/src
	if [ -f "$dir/.unpacked" ]; then
		src=$(cat "$dir/.unpacked")
		return
	fi
	log "fetching Debian bookworm's mesa $upstream_version source (about 27 MB)"
	rm -rf "$dir" "$cache/apt"
	mkdir -p "$dir" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
	# A private apt: its own deb-src list, lists and cache. The archive is
	# the one the machine's own sources name (deb.debian.org unless set).
	local mirror=${VCCUBE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	printf 'deb-src %s bookworm main\n' "$mirror" >"$cache/apt/sources.list"
	local opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
		-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache" -o "Debug::NoLocking=1")
	apt-get "${opts[@]}" update -qq || die "apt-get update of the private deb-src list failed ($cache/apt/sources.list)"
	local version
	version=$(apt-cache "${opts[@]}" showsrc mesa | sed -n 's/^Version: //p' | grep "^$upstream_version-" | sort -V | tail -n 1)
	[ -n "$version" ] || die "bookworm has no mesa $upstream_version-* source (apt-cache showsrc mesa)"
	(cd "$dir" && apt-get "${opts[@]}" source -qq "mesa=$version" >/dev/null) ||
		die "apt-get source mesa=$version failed"
	log "unpacked mesa $version"
	src=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'mesa-*' | head -n 1)
	[ -n "$src" ] && [ -f "$src/meson.build" ] || die "no unpacked Mesa tree under $dir"
	echo "$src" >"$dir/.unpacked"
}

if [ -z "$src" ]; then
	build=$cache/build
else
	build=$cache/build-$(basename "$src")
fi
install=$build/install

vendor=$install/share/glvnd/egl_vendor.d/50_mesa.json

env_lines() {
	cat <<EOF
export LD_LIBRARY_PATH=$install/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export LIBGL_DRIVERS_PATH=$install/lib/dri
export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
EOF
}
if [ $print_env = 1 ]; then
	[ -f "$install/lib/dri/vc4_dri.so" ] && [ -f "$vendor" ] ||
		die "no build in $install yet: run conform/build-mesa.sh${src:+ -src $src} first"
	env_lines
	exit 0
fi
[ -n "$src" ] || fetch_source

# One build at a time in a build directory: two ninjas at once corrupt
# its log, and the next run rebuilds everything.
mkdir -p "$build"
exec 9>"$build.lock"
flock 9

# Meson and the build's generators must run under the system python, which
# has mako (a python of its own earlier on PATH, pyenv's say, may not).
export PATH=/usr/bin:/bin:$PATH
# The options of Mesa CI's armhf build, which made the Pi 3 record
# (.gitlab-ci/build/gitlab-ci.yml at 22.3: .meson-arm and debian-armhf):
# buildtype debugoptimized, so assertions are on as they were on the
# boards, and swrast beside vc4 (EGL's software device, which
# egl_ext_device_base enumerates), without LLVM; glvnd as Debian builds.
options=(--prefix="$install" --libdir=lib --buildtype=debugoptimized
	-Dgallium-drivers=vc4,swrast -Dvulkan-drivers= -Dplatforms=
	-Dglx=disabled -Degl=enabled -Dgbm=enabled -Dgles1=disabled -Dgles2=enabled
	-Dopengl=true -Dglvnd=true -Dllvm=disabled -Dshared-glapi=enabled
	-Dvalgrind=disabled -Dlibunwind=disabled -Dlmsensors=disabled -Dzstd=disabled
	-Dbuild-tests=false)
if [ ! -f "$build/build.ninja" ] || [ "$(cat "$build/.vccube-options" 2>/dev/null)" != "${options[*]}" ]; then
	log "configuring $src in $build"
	/usr/bin/python3 -c 'import mako' 2>/dev/null || die "the system python lacks mako (apt-get install python3-mako)"
	wipe=()
	[ -f "$build/build.ninja" ] && wipe=(--wipe)
	meson setup "${wipe[@]}" "$build" "$src" "${options[@]}" >"$build.setup.log" 2>&1 ||
		{ tail -30 "$build.setup.log" >&2; die "meson setup failed (whole log: $build.setup.log)"; }
	echo "${options[*]}" >"$build/.vccube-options"
fi
start=$SECONDS
log "building (ninja -C $build)"
ninja -C "$build" install >"$build.ninja.log" 2>&1 ||
	{ tail -30 "$build.ninja.log" >&2; die "the build failed (whole log: $build.ninja.log)"; }
log "built and installed into $install in $((SECONDS - start)) s"
[ -f "$install/lib/dri/vc4_dri.so" ] || die "the build has no lib/dri/vc4_dri.so"
[ -f "$vendor" ] || die "the build has no EGL vendor file ($vendor)"

cat <<EOF
Mesa's vc4 driver is in $install.
A program on the simulated vc4 (vc4serve running with -dir /tmp/vc4, the
preload built by simserve/preload/build.sh) runs with:

$(env_lines)
  VC4SIM=/tmp/vc4 LD_PRELOAD=$(cd "$(dirname "$0")/.." && pwd)/simserve/preload/out/amd64/vc4sim.so kmscube -D /dev/dri/card0 -c 120 </dev/null

or let vc4conform do it all (go run ./cmd/vc4conform -h).
EOF
