/* Generated from simserve/wire.go by go generate (simserve/internal/genwire). DO NOT EDIT. */
#ifndef VC4SIM_WIRE_H
#define VC4SIM_WIRE_H

#include <stdint.h>

#define VC4SIM_PROTOCOL_VERSION    1
#define VC4SIM_HEADER_SIZE         32
#define VC4SIM_MAX_PAYLOAD         65536
#define VC4SIM_DRM_MAJOR           226
#define VC4SIM_SOCKET_NAME         "socket"
#define VC4SIM_ROOT_NAME           "root"

static const char *const vc4sim_redirected_dirs[] = {"/dev/dri", "/sys/class/drm", "/sys/devices/platform/soc/soc:gpu", NULL};
static const char *const vc4sim_redirected_names[] = {"/sys/dev/char/226:", NULL};

#define VC4SIM_MSG_HELLO           1
#define VC4SIM_MSG_IOCTL           2
#define VC4SIM_MSG_MMAP            3
#define VC4SIM_MSG_MUNMAP          4
#define VC4SIM_MSG_READ_REPLY      5
#define VC4SIM_MSG_WRITE_REPLY     6
#define VC4SIM_MSG_INSTALL_REPLY   7
#define VC4SIM_MSG_GET_FD_REPLY    8
#define VC4SIM_MSG_FD_IOCTL        9
#define VC4SIM_MSG_WELCOME         16
#define VC4SIM_MSG_READ_USER       17
#define VC4SIM_MSG_WRITE_USER      18
#define VC4SIM_MSG_IOCTL_REPLY     19
#define VC4SIM_MSG_MMAP_REPLY      20
#define VC4SIM_MSG_ERROR           21
#define VC4SIM_MSG_INSTALL_FD      22
#define VC4SIM_MSG_GET_FD          23

/* Every message starts with this header (host byte order). */
struct vc4sim_header {
	uint32_t type;
	uint32_t arg; /* the request, errno or version */
	uint64_t a;
	uint64_t b;
	uint64_t c;
};

_Static_assert(sizeof(struct vc4sim_header) == VC4SIM_HEADER_SIZE, "header size");

#endif
