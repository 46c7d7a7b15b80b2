#!/usr/bin/env bash
# conform/piglit.sh: everything a conformance run needs, then the run.
# Installs Debian's piglit (amd64, natively) when missing, builds Mesa's
# vc4 driver for this machine (conform/build-mesa.sh, cached) and the
# preload library, builds vc4conform and runs it with the arguments given:
#
#   conform/piglit.sh                               # quick_gl + quick_shader, whole
#   conform/piglit.sh -run 'glsl-fs-flat' -o /tmp/r # a selection
#   conform/piglit.sh -tests conform/ci-tests.txt -expect conform/ci-expectations.txt
#
# See doc/conformance.md; `go run ./cmd/vc4conform -h` lists the flags.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'piglit.sh: %s\n' "$*" >&2; }
as_root=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then as_root=(sudo); fi
if ! dpkg-query -W -f='${Status}' piglit 2>/dev/null | grep -q 'install ok installed'; then
	log "installing Debian's piglit (about 300 MB)"
	export DEBIAN_FRONTEND=noninteractive
	"${as_root[@]}" apt-get update -qq >/dev/null
	"${as_root[@]}" apt-get install -y -qq --no-install-recommends piglit >/dev/null
fi
conform/build-mesa.sh >/dev/null
mesa=$(conform/build-mesa.sh -print-env | sed -n 's/^export LIBGL_DRIVERS_PATH=\(.*\)\/lib\/dri$/\1/p')
[ -n "$mesa" ] || { log "could not find the Mesa build"; exit 1; }
simserve/preload/build.sh >/dev/null
bin=$(mktemp -d "${TMPDIR:-/tmp}/vc4conform.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/vc4conform" ./cmd/vc4conform
"$bin/vc4conform" -mesa "$mesa" "$@"
