#!/bin/sh
# conform/build-glcts.sh: builds VK-GL-CTS's glcts holding only its
# KHR-GLES2 package, the one Mesa's CI ran on the Pi 3
# (conform/pi3/testdata/mesa-22.3.0__deqp-broadcom-rpi3.toml), for
# vc4conform -deqp. See doc/mesa-on-pc.md#khr-gles2.
#
#   conform/build-glcts.sh CTS BUILD
#
# CTS is a VK-GL-CTS checkout (tag vulkan-cts-1.3.3.0) prepared as
# doc/mesa-on-pc.md#deqp-gles2 says (external sources fetched, the
# platform library linked with vkutilnoshader); BUILD is its CMake build
# directory, new or deqp-gles2's (then only glcts's own files compile).
# The glcts binary is BUILD/external/openglcts/modules/glcts.
#
# The whole glcts is 729 build steps more than deqp-gles2 (every GL and
# GLES CTS module, dEQP-GLES3 and -GLES31, glslang and SPIRV-Tools); the
# KHR-GLES2 package needs 19 (238 in a new directory). This script adds
# a GLCTS_GLES2_ONLY option to the CTS's CMake files
# (external/openglcts/modules and its common/) that builds the GLES2 package, the nine common sources it uses and
# conform/glcts/gles2_only_registry.cpp in place of the registry of every
# package. It edits those two files once (it is safe to run again), and
# builds with nice -n 19 and two jobs, as the shared machine wants.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: conform/build-glcts.sh CTS BUILD (doc/mesa-on-pc.md#khr-gles2)" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
cts=$(cd "$1" && pwd)
build=$2
mods=$cts/external/openglcts/modules
for f in "$mods/CMakeLists.txt" "$mods/common/CMakeLists.txt" "$mods/gles2/es2cTestPackage.cpp"; do
	if [ ! -f "$f" ]; then
		echo "build-glcts.sh: $f is missing: is $cts a VK-GL-CTS checkout?" >&2
		exit 1
	fi
done
if ! grep -q 'vkutilnoshader)$' "$cts/framework/platform/CMakeLists.txt"; then
	echo "build-glcts.sh: $cts/framework/platform/CMakeLists.txt still links vkutil: prepare the tree as doc/mesa-on-pc.md#deqp-gles2 says" >&2
	exit 1
fi

# insert FILE BEFORE TEXT: put TEXT's lines before FILE's first line that
# is exactly BEFORE, unless FILE already has the option.
insert() {
	grep -q GLCTS_GLES2_ONLY "$1" && return 0
	grep -qx "$2" "$1" || { echo "build-glcts.sh: no line '$2' in $1 (another CTS version?)" >&2; exit 1; }
	awk -v before="$2" -v text="$3" '!done && $0 == before { print text; done = 1 } { print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

# (copied only when it changed, so that a second run rebuilds nothing)
cmp -s "$here/glcts/gles2_only_registry.cpp" "$mods/vccubeGles2OnlyRegistry.cpp" ||
	cp "$here/glcts/gles2_only_registry.cpp" "$mods/vccubeGles2OnlyRegistry.cpp"
insert "$mods/CMakeLists.txt" 'add_subdirectory(common)' '# GLCTS_GLES2_ONLY (added by vccube conform/build-glcts.sh): KHR-GLES2 only
if (GLCTS_GLES2_ONLY)
	add_subdirectory(common)
	add_subdirectory(gles2)
	add_deqp_module(glcts vccubeGles2OnlyRegistry.cpp glcts-es2 "tcutil-platform" glcTestPackageEntry.cpp)
	add_data_dir(glcts ../data gl_cts/data)
	return()
endif ()
'
insert "$mods/common/CMakeLists.txt" 'add_subdirectory(subgroups)' '# GLCTS_GLES2_ONLY (added by vccube conform/build-glcts.sh): what KHR-GLES2 uses
if (GLCTS_GLES2_ONLY)
	add_library(glcts-common STATIC glcAggressiveShaderOptimizationsTests.cpp glcContext.cpp
		glcInfoTests.cpp glcInternalformatTests.cpp glcMisc.cpp glcShaderNegativeTests.cpp
		glcTestCase.cpp glcTestCaseWrapper.cpp glcTestPackage.cpp)
	target_link_libraries(glcts-common glutil tcutil eglutil)
	return()
endif ()
'

# A new build directory gets deqp-gles2's configuration; an existing one
# keeps its own (build type, flags) and gains the option.
set -- -DGLCTS_GLES2_ONLY=ON
[ -f "$build/CMakeCache.txt" ] || set -- "$@" -G Ninja -DDEQP_TARGET=surfaceless -DCMAKE_BUILD_TYPE=Release
nice -n 19 cmake -S "$cts" -B "$build" "$@"
nice -n 19 ninja -C "$build" -j2 glcts
echo "build-glcts.sh: built $build/external/openglcts/modules/glcts"
