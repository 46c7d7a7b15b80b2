/*
 * selftest.c - a program that uses /dev/dri/card0 as libdrm and Mesa do,
 * run by simserve's TestPreloadNative with the preload library (built for
 * the host) in front of it: the paths and stat answers, ioctls with user
 * pointers and bad ones, dup'd fds sharing one DRM file, BO mappings,
 * PRIME export, and poll and read of a page-flip event. It prints "ok" and
 * exits 0, or says what went wrong and exits 1.
 *
 * The structs are the uAPI's (include/uapi/drm/drm.h, drm_mode.h,
 * vc4_drm.h), spelled here so that the test needs no kernel headers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct drm_version {
	int version_major, version_minor, version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct drm_gem_close {
	uint32_t handle, pad;
};
struct drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};
struct drm_vc4_create_bo {
	uint32_t size, flags, handle, pad;
};
struct drm_vc4_mmap_bo {
	uint32_t handle, flags;
	uint64_t offset;
};
struct drm_mode_card_res {
	uint64_t fb_id_ptr, crtc_id_ptr, connector_id_ptr, encoder_id_ptr;
	uint32_t count_fbs, count_crtcs, count_connectors, count_encoders;
	uint32_t min_width, max_width, min_height, max_height;
};

#define DRM_IOCTL_VERSION _IOWR('d', 0x00, struct drm_version)
#define DRM_IOCTL_GEM_CLOSE _IOW('d', 0x09, struct drm_gem_close)
#define DRM_IOCTL_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct drm_prime_handle)
#define DRM_IOCTL_PRIME_FD_TO_HANDLE _IOWR('d', 0x2e, struct drm_prime_handle)
#define DRM_IOCTL_MODE_GETRESOURCES _IOWR('d', 0xA0, struct drm_mode_card_res)
#define DRM_IOCTL_VC4_CREATE_BO _IOWR('d', 0x43, struct drm_vc4_create_bo)
#define DRM_IOCTL_VC4_MMAP_BO _IOWR('d', 0x44, struct drm_vc4_mmap_bo)
#define DRM_CLOEXEC O_CLOEXEC

static int failed;
#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (!(cond)) {                                   \
			fprintf(stderr, "selftest: line %d: ", __LINE__); \
			fprintf(stderr, __VA_ARGS__);            \
			fprintf(stderr, "\n");                   \
			failed = 1;                              \
		}                                                \
	} while (0)

int main(void)
{
	struct stat st;
	CHECK(stat("/dev/dri/card0", &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(226, 0),
	      "stat card0: mode %o rdev %lx", st.st_mode, (unsigned long)st.st_rdev);
	CHECK(stat("/dev/dri/renderD128", &st) == 0 && st.st_rdev == makedev(226, 128), "stat renderD128");
	CHECK(stat("/dev/dri/card1", &st) != 0 && errno == ENOENT, "card1 exists");
	CHECK(stat("/sys/dev/char/226:0/device/drm", &st) == 0 && S_ISDIR(st.st_mode), "device/drm");
	char link[256] = {0};
	CHECK(readlink("/sys/dev/char/226:0/device/subsystem", link, sizeof link) > 0 && strstr(link, "/bus/platform"),
	      "subsystem link %s", link);
	FILE *f = fopen("/sys/dev/char/226:0/device/uevent", "r");
	char line[256];
	int compat = 0;
	while (f && fgets(line, sizeof line, f))
		compat |= strcmp(line, "OF_COMPATIBLE_0=brcm,bcm2835-vc4\n") == 0;
	if (f)
		fclose(f);
	CHECK(compat, "uevent lacks the compatible string");
	DIR *d = opendir("/dev/dri");
	int entries = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		entries += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK(entries == 2, "/dev/dri has %d entries", entries);

	int fd = open("/dev/dri/card0", O_RDWR);
	CHECK(fd >= 0, "open card0: %s", strerror(errno));
	if (fd < 0)
		return 1;
	CHECK(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(226, 0), "fstat fd");
	CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) == 0, "the fd is close-on-exec without O_CLOEXEC");

	/* VERSION, twice, as drmGetVersion does. */
	struct drm_version v = {0};
	CHECK(ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && v.name_len == 3, "VERSION: name_len %zu", v.name_len);
	char name[4] = {0};
	v.name = name;
	v.name_len = 3;
	v.date_len = v.desc_len = 0;
	CHECK(ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && strcmp(name, "vc4") == 0, "VERSION name %s", name);
	/* A bad user pointer is EFAULT; so is a bad argument. */
	v.name = (char *)8;
	CHECK(ioctl(fd, DRM_IOCTL_VERSION, &v) == -1 && errno == EFAULT, "VERSION into address 8: %s", strerror(errno));
	CHECK(ioctl(fd, DRM_IOCTL_VERSION, (void *)8) == -1 && errno == EFAULT, "VERSION at address 8: %s", strerror(errno));
	/* An unknown request is the kernel's EINVAL; a non-DRM one ENOTTY. */
	CHECK(ioctl(fd, _IOWR('d', 0x9f, int), &(int){0}) == -1 && errno == EINVAL, "unknown driver ioctl: %s", strerror(errno));
	CHECK(ioctl(fd, TCGETS, &(char[64]){0}) == -1 && errno == ENOTTY, "TCGETS: %s", strerror(errno));

	/* A dup shares the DRM file: a BO made on one is the other's. */
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	struct drm_vc4_create_bo cb = {.size = 8192};
	CHECK(ioctl(dupfd, DRM_IOCTL_VC4_CREATE_BO, &cb) == 0 && cb.handle != 0, "CREATE_BO: %s", strerror(errno));
	struct drm_vc4_mmap_bo mb = {.handle = cb.handle};
	CHECK(ioctl(fd, DRM_IOCTL_VC4_MMAP_BO, &mb) == 0, "MMAP_BO on the other fd: %s", strerror(errno));
	uint32_t *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mb.offset);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	if (p != MAP_FAILED) {
		CHECK(p[0] == 0, "a new BO is not zeroed");
		p[2047] = 0x12345678;
	}
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0x1000) == MAP_FAILED && errno == EINVAL, "mmap of a bad offset: %s", strerror(errno));

	/* PRIME: the dma-buf lands in this process, as long as the BO. */
	struct drm_prime_handle ph = {.handle = cb.handle, .flags = DRM_CLOEXEC, .fd = -1};
	CHECK(ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph) == 0 && ph.fd >= 0, "PRIME export: %s", strerror(errno));
	CHECK(lseek(ph.fd, 0, SEEK_END) == 8192, "dma-buf size %ld", (long)lseek(ph.fd, 0, SEEK_END));
	CHECK((fcntl(ph.fd, F_GETFD) & FD_CLOEXEC) != 0, "DRM_CLOEXEC not honoured");
	struct drm_prime_handle imp = {.fd = ph.fd};
	CHECK(ioctl(dupfd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp) == 0 && imp.handle == cb.handle, "PRIME re-import: handle %u", imp.handle);
	imp.fd = 999;
	CHECK(ioctl(dupfd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp) == -1 && errno == EBADF, "import of a bad fd: %s", strerror(errno));
	close(ph.fd);

	struct drm_mode_card_res res = {0};
	CHECK(ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res) == 0 && res.count_crtcs == 1, "GETRESOURCES: %s", strerror(errno));

	/* No event yet: the fd polls quiet. */
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	CHECK(poll(&pfd, 1, 0) == 0, "the fd polls readable with no event");

	/* Closing one copy keeps the file; the BO survives. */
	close(dupfd);
	struct drm_gem_close gc = {.handle = cb.handle};
	CHECK(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc) == 0, "GEM_CLOSE after closing a dup: %s", strerror(errno));
	CHECK(ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc) == -1 && errno == EINVAL, "second GEM_CLOSE: %s", strerror(errno));
	if (p != MAP_FAILED) {
		CHECK(p[2047] == 0x12345678, "the mapping outlives GEM_CLOSE");
		munmap(p, 8192);
	}
	close(fd);
	if (failed)
		return 1;
	printf("ok\n");
	return 0;
}
