// The package registry of a glcts built by conform/build-glcts.sh: only
// KHR-GLES2, the package Mesa's CI ran on the Pi 3 (its
// gles2-khr-master.txt). It stands for VK-GL-CTS's
// external/openglcts/modules/glcTestPackageRegistry.cpp, which registers
// every package (desktop GL, GLES 3.x, dEQP-*) and so needs all of
// glcts's modules built; the function it defines is the one
// glcTestPackageEntry.cpp calls at start-up.

#include "glcTestPackageRegistry.hpp"
#include "es2cTestPackage.hpp"
#include "tcuTestPackage.hpp"

namespace glcts
{

static tcu::TestPackage* newKhrGles2(tcu::TestContext& ctx)
{
	return new es2cts::TestPackage(ctx, "KHR-GLES2");
}

void registerPackages(void)
{
	tcu::TestPackageRegistry::getSingleton()->registerPackage("KHR-GLES2", newKhrGles2);
}

} // namespace glcts
