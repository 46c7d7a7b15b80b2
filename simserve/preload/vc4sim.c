/*
 * vc4sim.c - an LD_PRELOAD library that gives an unmodified Linux program
 * the simulated vc4 served by vc4serve (package simserve) as its
 * /dev/dri/card0 and /dev/dri/renderD128.
 *
 * It knows no ioctl layout: an ioctl on the device sends the request
 * number and the argument's bytes to the server, serves the server's
 * requests to read and write this process's memory (the kernel's
 * copy_from_user and copy_to_user) while it runs, and copies the argument
 * back. mmap of a BO maps the server's CMA pool (a memfd passed once per
 * open) at the range the server names, so no pixel is copied. The fd the
 * program holds is a real socket whose only traffic is DRM events, so
 * poll, select, read, dup and close work on it as they are. The sync files
 * the server makes (an atomic commit's out-fence, an exported syncobj
 * fence) are real descriptors too, sockets whose peer is the server: they
 * poll natively, and their ioctls (SYNC_IOC_MERGE, SYNC_IOC_FILE_INFO) go
 * to the server with the descriptor, as FD_IOCTL.
 *
 * Paths under /dev/dri and the DRM corner of /sys go to the server's file
 * tree ($VC4SIM/root), which describes a Raspberry Pi 0-3; stat and fstat
 * report the nodes and the device fds as character devices 226:minor.
 * Everything else passes straight through. The wire protocol is described
 * in simserve/wire.go; wire.h is generated from it.
 *
 * Environment: VC4SIM is the server's directory (vc4serve -dir). Without it
 * the library does nothing. VC4SIM_FROZEN_CLOCK=STEP_NS freezes the
 * program's own clock (see "the frozen clock" below).
 *
 * Limits: one ioctl at a time per open file (threads take turns); a file
 * used from both sides of a fork is not supported.
 *
 * 32- and 64-bit programs: a 32-bit one (armhf) has two of each of the
 * functions that take an off_t or a struct stat (stat and stat64, mmap and
 * mmap64, ...), with different layouts, and both are interposed; the
 * library itself works with the 64-bit forms. It tells the server its
 * pointer size in HELLO, and the server lays out the few ioctl structs
 * that differ as a 32-bit kernel would (sim/ilp32.go).
 */
#define _GNU_SOURCE
#if __SIZEOF_POINTER__ != 8 && __SIZEOF_POINTER__ != 4
#error "vc4sim.c is for 32- and 64-bit programs"
#endif
#ifdef _FILE_OFFSET_BITS
#error "build vc4sim.c without _FILE_OFFSET_BITS: it defines both the off_t and the off64_t forms"
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define EXPORT __attribute__((visibility("default")))

/* _IOC fields (include/uapi/asm-generic/ioctl.h). */
#define IOC_DIR(r) (((r) >> 30) & 3u)
#define IOC_SIZE(r) (((r) >> 16) & 0x3fffu)
#define IOC_WRITE_BIT 1u /* user space writes the argument */
#define IOC_READ_BIT 2u  /* the kernel writes it back */

/* Where the control socket and the pool's memfd go in the fd table, out of
 * the way of the numbers a program expects open() to return. */
#define HIGH_FD 512

/* ---- the real functions ---- */

static int (*real_openat)(int, const char *, int, ...);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
static int (*real_stat)(const char *, struct stat *);
static int (*real_lstat)(const char *, struct stat *);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_stat64)(const char *, struct stat64 *);
static int (*real_lstat64)(const char *, struct stat64 *);
static int (*real_fstat64)(int, struct stat64 *);
static int (*real_fstatat64)(int, const char *, struct stat64 *, int);
static int (*real_access)(const char *, int);
static ssize_t (*real_readlink)(const char *, char *, size_t);
static DIR *(*real_opendir)(const char *);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
static int (*real_munmap)(void *, size_t);
/* glibc < 2.33 builds (kmscube in Debian bookworm) call the versioned
 * stat functions. */
static int (*real_xstat)(int, const char *, struct stat *);
static int (*real_lxstat)(int, const char *, struct stat *);
static int (*real_fxstat)(int, int, struct stat *);

static char root[4096];       /* $VC4SIM/root */
static char sock_path[108];   /* $VC4SIM/socket */
static int enabled;

static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		fprintf(stderr, "vc4sim: %s not found in the C library\n", name);
		abort();
	}
	return p;
}

static void init_once(void)
{
	real_openat = next("openat");
	real_fopen = next("fopen");
	real_fopen64 = next("fopen64");
	real_stat = next("stat");
	real_lstat = next("lstat");
	real_fstat = next("fstat");
	real_fstatat = next("fstatat");
	real_stat64 = next("stat64");
	real_lstat64 = next("lstat64");
	real_fstat64 = next("fstat64");
	real_fstatat64 = next("fstatat64");
	real_access = next("access");
	real_readlink = next("readlink");
	real_opendir = next("opendir");
	real_ioctl = next("ioctl");
	real_mmap = next("mmap");
	real_mmap64 = next("mmap64");
	real_munmap = next("munmap");
	real_xstat = dlsym(RTLD_NEXT, "__xstat");
	real_lxstat = dlsym(RTLD_NEXT, "__lxstat");
	real_fxstat = dlsym(RTLD_NEXT, "__fxstat");

	const char *dir = getenv("VC4SIM");
	if (!dir || !*dir)
		return;
	if (dir[0] != '/') {
		fprintf(stderr, "vc4sim: VC4SIM=%s is not an absolute path: the simulated vc4 stays hidden\n", dir);
		return;
	}
	if ((size_t)snprintf(root, sizeof root, "%s/" VC4SIM_ROOT_NAME, dir) >= sizeof root ||
	    (size_t)snprintf(sock_path, sizeof sock_path, "%s/" VC4SIM_SOCKET_NAME, dir) >= sizeof sock_path) {
		fprintf(stderr, "vc4sim: VC4SIM=%s is too long for a socket path: use a shorter directory\n", dir);
		return;
	}
	enabled = 1;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
#define INIT() pthread_once(&once, init_once)

/* ---- paths ---- */

/* redirect returns the path to use for path: the server's copy under root
 * for the device's paths, path itself for everything else. */
static const char *redirect(const char *path, char *buf, size_t size)
{
	if (!enabled || !path || path[0] != '/')
		return path;
	int hit = 0;
	for (int i = 0; vc4sim_redirected_dirs[i] && !hit; i++) {
		size_t n = strlen(vc4sim_redirected_dirs[i]);
		hit = strncmp(path, vc4sim_redirected_dirs[i], n) == 0 && (path[n] == 0 || path[n] == '/');
	}
	for (int i = 0; vc4sim_redirected_names[i] && !hit; i++)
		hit = strncmp(path, vc4sim_redirected_names[i], strlen(vc4sim_redirected_names[i])) == 0;
	if (!hit)
		return path;
	if ((size_t)snprintf(buf, size, "%s%s", root, path) >= size)
		return "/nonexistent/vc4sim/path-too-long";
	return buf;
}

/* node_minor is the minor of a device node path, /dev/dri/cardN or
 * /dev/dri/renderDN (the names drm_minor_alloc gives), or -1. */
static int node_minor(const char *path)
{
	if (!enabled || !path || strncmp(path, "/dev/dri/", 9) != 0)
		return -1;
	const char *p = path + 9;
	if (strncmp(p, "card", 4) == 0)
		p += 4;
	else if (strncmp(p, "renderD", 7) == 0)
		p += 7;
	else
		return -1;
	if (*p < '0' || *p > '9')
		return -1;
	int n = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n > 1000)
			return -1;
		n = n * 10 + (*p - '0');
	}
	return n;
}

/* AS_NODE makes st, a struct stat or struct stat64, describe the
 * character device 226:minor, as a DRM node's stat does (mode
 * crw-rw----). */
#define AS_NODE(st, minor)                                        \
	do {                                                      \
		(st)->st_mode = S_IFCHR | 0660;                   \
		(st)->st_rdev = makedev(VC4SIM_DRM_MAJOR, (minor)); \
		(st)->st_size = 0;                                \
		(st)->st_blocks = 0;                              \
	} while (0)

/* ---- open files of the device ---- */

struct conn {
	int used;
	dev_t dev; /* the event socket's identity, shared by every dup */
	uint64_t ino;
	int minor;
	int ctl;   /* control socket */
	int memfd; /* the server's CMA pool */
	int dead;  /* the server is gone */
	pid_t server; /* the server's pid (SO_PEERCRED of the control socket) */
	pthread_mutex_t mu;
	unsigned char buf[VC4SIM_HEADER_SIZE + 1024];
};

#define MAX_CONNS 64
static struct conn conns[MAX_CONNS];
static int nconns;
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;

struct mapping {
	uintptr_t addr;
	size_t len;
	struct conn *c;
	uint64_t token;
};
static struct mapping *maps;
static size_t nmaps, capmaps;

/* conn_for_fd finds the open file behind fd, or NULL. */
static struct conn *conn_for_fd(int fd)
{
	if (!enabled || fd < 0)
		return NULL;
	pthread_mutex_lock(&table_mu);
	int n = nconns;
	pthread_mutex_unlock(&table_mu);
	if (n == 0)
		return NULL;
	struct stat64 st;
	if (real_fstat64(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return NULL;
	struct conn *found = NULL;
	pthread_mutex_lock(&table_mu);
	for (int i = 0; i < MAX_CONNS; i++)
		if (conns[i].used && conns[i].dev == st.st_dev && conns[i].ino == st.st_ino) {
			found = &conns[i];
			break;
		}
	pthread_mutex_unlock(&table_mu);
	return found;
}

/* conn_for_server_file finds a connection to the server that made fd, a
 * descriptor the server handed this process (a sync file: one end of a
 * socket pair the server created, so its peer credentials are the
 * server's), or NULL. Its ioctls go to the server over that connection. */
static struct conn *conn_for_server_file(int fd)
{
	if (!enabled || fd < 0)
		return NULL;
	struct stat64 st;
	if (real_fstat64(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return NULL;
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred || cred.pid <= 0)
		return NULL;
	struct conn *found = NULL;
	pthread_mutex_lock(&table_mu);
	for (int i = 0; i < MAX_CONNS && !found; i++)
		if (conns[i].used && !conns[i].dead && conns[i].server == cred.pid)
			found = &conns[i];
	pthread_mutex_unlock(&table_mu);
	return found;
}

/* gc forgets the files the server has finished with (it closes their
 * control socket once the program closed every copy of the fd and
 * unmapped every BO). */
static void gc(void)
{
	pthread_mutex_lock(&table_mu);
	for (int i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &conns[i];
		if (!c->used)
			continue;
		struct pollfd p = {.fd = c->ctl, .events = POLLIN};
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			int busy = 0;
			for (size_t j = 0; j < nmaps; j++)
				busy |= maps[j].c == c;
			if (busy)
				continue;
			close(c->ctl);
			close(c->memfd);
			pthread_mutex_destroy(&c->mu);
			memset(c, 0, sizeof *c);
			nconns--;
		}
	}
	pthread_mutex_unlock(&table_mu);
}

/* high moves fd out of the way (close-on-exec) and returns its new
 * number, or fd itself if that fails. */
static int high(int fd)
{
	int h = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (h < 0)
		return fd;
	close(fd);
	return h;
}

static void put_header(unsigned char *b, uint32_t type, uint32_t arg, uint64_t a, uint64_t bb, uint64_t c)
{
	struct vc4sim_header h = {.type = type, .arg = arg, .a = a, .b = bb, .c = c};
	memcpy(b, &h, sizeof h);
}

static ssize_t send_retry(int fd, const struct msghdr *m)
{
	ssize_t n;
	do
		n = sendmsg(fd, m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

static ssize_t recv_retry(int fd, void *buf, size_t len, int flags)
{
	ssize_t n;
	do
		n = recv(fd, buf, len, flags);
	while (n < 0 && errno == EINTR);
	return n;
}

/* send_msg sends a header and, if len > 0, len bytes from data as one
 * packet. The bytes are read by the kernel straight from data: an
 * unreadable address fails with EFAULT and sends nothing (under
 * qemu-user the packet may go out short instead; the server takes a short
 * payload for EFAULT too). */
static int send_msg(int fd, uint32_t type, uint32_t arg, uint64_t a, uint64_t b, uint64_t c, const void *data, size_t len)
{
	unsigned char h[VC4SIM_HEADER_SIZE];
	put_header(h, type, arg, a, b, c);
	struct iovec iov[2] = {{h, sizeof h}, {(void *)data, len}};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
	return send_retry(fd, &m) < 0 ? -errno : 0;
}

/* send_msg_fd is send_msg with a descriptor passed along (SCM_RIGHTS). */
static int send_msg_fd(int fd, uint32_t type, uint32_t arg, const void *data, size_t len, int pass)
{
	unsigned char h[VC4SIM_HEADER_SIZE];
	put_header(h, type, arg, 0, 0, 0);
	struct iovec iov[2] = {{h, sizeof h}, {(void *)data, len}};
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} cm;
	memset(&cm, 0, sizeof cm);
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1, .msg_control = &cm, .msg_controllen = sizeof cm};
	struct cmsghdr *ch = CMSG_FIRSTHDR(&m);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(ch), &pass, sizeof pass);
	return send_retry(fd, &m) < 0 ? -errno : 0;
}

/* recv_into receives the next packet, len bytes of data, straight into
 * dst: it looks at the packet first, so that an unwritable dst (EFAULT)
 * leaves it to be discarded. It returns 0 or -errno. */
static int recv_into(int fd, void *dst, size_t len)
{
	ssize_t n = recv_retry(fd, dst, len, MSG_PEEK);
	int err = n < 0 ? errno : 0;
	unsigned char junk;
	if (recv_retry(fd, &junk, 1, MSG_TRUNC) < 0)
		return -EIO;
	if (err)
		return -err;
	return (size_t)n == len ? 0 : -EIO;
}

/* recv_header receives one packet into c->buf and returns the header,
 * and in *fd the descriptor it carried (an INSTALL_FD's), or -1. */
static int recv_header_fd(struct conn *c, struct vc4sim_header *h, size_t *payload, int *fd)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = {c->buf, sizeof c->buf};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cm, .msg_controllen = sizeof cm};
	ssize_t n;
	do
		n = recvmsg(c->ctl, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*fd = -1;
	for (struct cmsghdr *ch = CMSG_FIRSTHDR(&m); n >= 0 && ch; ch = CMSG_NXTHDR(&m, ch))
		if (ch->cmsg_level == SOL_SOCKET && ch->cmsg_type == SCM_RIGHTS && ch->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(ch), sizeof(int));
	if (n < (ssize_t)VC4SIM_HEADER_SIZE) {
		if (*fd >= 0)
			close(*fd);
		return -1;
	}
	memcpy(h, c->buf, sizeof *h);
	*payload = n - VC4SIM_HEADER_SIZE;
	return 0;
}

static int recv_header(struct conn *c, struct vc4sim_header *h, size_t *payload)
{
	int fd;
	int r = recv_header_fd(c, h, payload, &fd);
	if (fd >= 0)
		close(fd); /* nothing but INSTALL_FD carries one */
	return r;
}

/* install_fd takes the descriptor of an INSTALL_FD into this process
 * (it is here already: recvmsg put it at the lowest free number, as
 * fd_install does) and tells the server its number. */
static int install_fd(struct conn *c, const struct vc4sim_header *h, int fd)
{
	if (fd < 0)
		return send_msg(c->ctl, VC4SIM_MSG_INSTALL_REPLY, EMFILE, 0, 0, 0, NULL, 0) ? -1 : 0;
	if (!(h->a & 1))
		fcntl(fd, F_SETFD, 0);
	if (send_msg(c->ctl, VC4SIM_MSG_INSTALL_REPLY, 0, (uint64_t)fd, 0, 0, NULL, 0) != 0) {
		close(fd);
		return -1;
	}
	return 0;
}

/* send_fd answers a GET_FD with a copy of the program's descriptor. */
static int send_fd(struct conn *c, const struct vc4sim_header *h)
{
	int fd = (int)h->a;
	unsigned char hb[VC4SIM_HEADER_SIZE];
	put_header(hb, VC4SIM_MSG_GET_FD_REPLY, 0, 0, 0, 0);
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} cm;
	memset(&cm, 0, sizeof cm);
	struct iovec iov = {hb, sizeof hb};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cm, .msg_controllen = sizeof cm};
	struct cmsghdr *ch = CMSG_FIRSTHDR(&m);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(ch), &fd, sizeof fd);
	if (send_retry(c->ctl, &m) >= 0)
		return 0;
	if (errno != EBADF)
		return -1;
	return send_msg(c->ctl, VC4SIM_MSG_GET_FD_REPLY, EBADF, 0, 0, 0, NULL, 0) ? -1 : 0;
}

/* server_error reports the server's ERROR message. */
static void server_error(struct conn *c, size_t payload)
{
	fprintf(stderr, "vc4sim: the server cut this file off: %.*s\n", (int)payload, (const char *)c->buf + VC4SIM_HEADER_SIZE);
	c->dead = 1;
}

/* serve_copy answers a READ_USER or WRITE_USER request. */
static int serve_copy(struct conn *c, const struct vc4sim_header *h)
{
	void *addr = (void *)(uintptr_t)h->a;
	size_t len = h->b;
	if (len > VC4SIM_MAX_PAYLOAD)
		return -1;
	if ((uint64_t)(uintptr_t)h->a != h->a) {
		/* Past this process's address space (the server gives a
		 * 32-bit program's copies 32-bit addresses; this is a bug). */
		if (h->type == VC4SIM_MSG_READ_USER)
			return send_msg(c->ctl, VC4SIM_MSG_READ_REPLY, EFAULT, 0, 0, 0, NULL, 0) ? -1 : 0;
		return -1;
	}
	if (h->type == VC4SIM_MSG_READ_USER) {
		int err = send_msg(c->ctl, VC4SIM_MSG_READ_REPLY, 0, 0, len, 0, addr, len);
		if (err == -EFAULT)
			err = send_msg(c->ctl, VC4SIM_MSG_READ_REPLY, EFAULT, 0, 0, 0, NULL, 0);
		return err ? -1 : 0;
	}
	int err = recv_into(c->ctl, addr, len);
	if (err == -EIO)
		return -1;
	return send_msg(c->ctl, VC4SIM_MSG_WRITE_REPLY, err ? -err : 0, 0, 0, 0, NULL, 0) ? -1 : 0;
}

/* remote_ioctl runs one ioctl in the server: on the open file c (fd -1)
 * or on descriptor fd, one the server made (FD_IOCTL). */
static int remote_ioctl(struct conn *c, int fd, uint32_t req, void *arg)
{
	size_t size = IOC_SIZE(req);
	int ret = -1, err = 0;
	pthread_mutex_lock(&c->mu);
	if (c->dead) {
		err = ENODEV;
		goto out;
	}
	size_t in = (IOC_DIR(req) & IOC_WRITE_BIT) ? size : 0;
	int e = fd < 0 ? send_msg(c->ctl, VC4SIM_MSG_IOCTL, req, 0, 0, 0, arg, in)
		       : send_msg_fd(c->ctl, VC4SIM_MSG_FD_IOCTL, req, arg, in, fd);
	if (e == -EFAULT) {
		err = EFAULT;
		goto out;
	}
	if (e) {
		c->dead = 1;
		err = ENODEV;
		goto out;
	}
	for (;;) {
		struct vc4sim_header h;
		size_t payload;
		int fd;
		if (recv_header_fd(c, &h, &payload, &fd) != 0) {
			c->dead = 1;
			err = ENODEV;
			goto out;
		}
		if (h.type == VC4SIM_MSG_INSTALL_FD) {
			if (install_fd(c, &h, fd) != 0) {
				c->dead = 1;
				err = ENODEV;
				goto out;
			}
			continue;
		}
		if (fd >= 0)
			close(fd);
		switch (h.type) {
		case VC4SIM_MSG_GET_FD:
			if (send_fd(c, &h) != 0) {
				c->dead = 1;
				err = ENODEV;
				goto out;
			}
			continue;
		case VC4SIM_MSG_READ_USER:
		case VC4SIM_MSG_WRITE_USER:
			if (serve_copy(c, &h) != 0) {
				c->dead = 1;
				err = ENODEV;
				goto out;
			}
			continue;
		case VC4SIM_MSG_IOCTL_REPLY:
			if (h.b > size) {
				c->dead = 1;
				err = ENODEV;
				goto out;
			}
			if (h.b) {
				int r = recv_into(c->ctl, arg, h.b);
				if (r == -EFAULT) {
					err = EFAULT;
					goto out;
				}
				if (r) {
					c->dead = 1;
					err = ENODEV;
					goto out;
				}
			}
			if (h.arg) {
				err = h.arg;
				goto out;
			}
			ret = 0;
			goto out;
		case VC4SIM_MSG_ERROR:
			server_error(c, payload);
			err = h.arg ? h.arg : ENODEV;
			goto out;
		default:
			fprintf(stderr, "vc4sim: unexpected message %u from the server\n", h.type);
			c->dead = 1;
			err = ENODEV;
			goto out;
		}
	}
out:
	pthread_mutex_unlock(&c->mu);
	if (ret < 0)
		errno = err;
	return ret;
}

/* open_node connects to the server for one open(2) of node minor and
 * returns the program's fd: the event socket. */
static int open_node(int minor, int flags)
{
	char tree[4200];
	snprintf(tree, sizeof tree, "%s/dev/dri/%s%d", root, minor >= 128 ? "renderD" : "card", minor);
	if (real_access(tree, F_OK) != 0) {
		errno = ENOENT;
		return -1;
	}
	gc();
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	memcpy(sa.sun_path, sock_path, strlen(sock_path));
	if (connect(s, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int e = errno;
		static int warned;
		if (!warned++)
			fprintf(stderr, "vc4sim: cannot reach the simulated vc4 at %s: %s (is vc4serve -dir running?)\n", sock_path, strerror(e));
		close(s);
		errno = ENOENT;
		return -1;
	}
	if (send_msg(s, VC4SIM_MSG_HELLO, VC4SIM_PROTOCOL_VERSION, minor, flags, sizeof(void *), NULL, 0) != 0) {
		close(s);
		errno = EIO;
		return -1;
	}
	unsigned char buf[VC4SIM_HEADER_SIZE + 1024];
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(2 * sizeof(int))];
	} cm;
	struct iovec iov = {buf, sizeof buf};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cm, .msg_controllen = sizeof cm};
	ssize_t n;
	do
		n = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	int fds[2] = {-1, -1};
	struct cmsghdr *ch = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
	if (ch && ch->cmsg_level == SOL_SOCKET && ch->cmsg_type == SCM_RIGHTS && ch->cmsg_len == CMSG_LEN(2 * sizeof(int)))
		memcpy(fds, CMSG_DATA(ch), sizeof fds);
	struct vc4sim_header h = {0};
	if (n >= (ssize_t)VC4SIM_HEADER_SIZE)
		memcpy(&h, buf, sizeof h);
	if (h.type != VC4SIM_MSG_WELCOME || fds[0] < 0 || fds[1] < 0) {
		int e = EIO;
		if (h.type == VC4SIM_MSG_ERROR) {
			fprintf(stderr, "vc4sim: the server refused the open: %.*s\n", (int)(n - VC4SIM_HEADER_SIZE), (const char *)buf + VC4SIM_HEADER_SIZE);
			e = h.arg ? h.arg : EIO;
		}
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		close(s);
		errno = e;
		return -1;
	}
	int ctl = high(s), memfd = high(fds[1]);
	/* The program's fd takes the lowest free number, as open(2)'s does,
	 * with its O_CLOEXEC and O_NONBLOCK. */
	int ev = fcntl(fds[0], (flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
	if (ev < 0)
		ev = fds[0];
	else
		close(fds[0]);
	if (flags & O_NONBLOCK)
		fcntl(ev, F_SETFL, fcntl(ev, F_GETFL) | O_NONBLOCK);
	struct stat64 st;
	if (real_fstat64(ev, &st) != 0)
		goto fail;
	pthread_mutex_lock(&table_mu);
	struct conn *c = NULL;
	for (int i = 0; i < MAX_CONNS && !c; i++)
		if (!conns[i].used)
			c = &conns[i];
	if (!c) {
		pthread_mutex_unlock(&table_mu);
		fprintf(stderr, "vc4sim: more than %d files of the simulated vc4 open at once\n", MAX_CONNS);
		goto fail;
	}
	memset(c, 0, sizeof *c);
	c->used = 1;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->minor = minor;
	c->ctl = ctl;
	c->memfd = memfd;
	struct ucred cred;
	socklen_t clen = sizeof cred;
	if (getsockopt(ctl, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 && clen == sizeof cred)
		c->server = cred.pid;
	pthread_mutex_init(&c->mu, NULL);
	nconns++;
	pthread_mutex_unlock(&table_mu);
	return ev;
fail:
	close(ev);
	close(ctl);
	close(memfd);
	errno = EMFILE;
	return -1;
}

/* ---- the interposed functions ---- */

/* do_openat opens path; large is O_LARGEFILE for the 64-bit forms (0 on
 * 64-bit programs, where every open is large), which passes through to
 * files that are not the device's. */
static int do_openat(int dirfd, const char *path, int flags, mode_t mode, int large)
{
	INIT();
	int minor = node_minor(path);
	if (minor >= 0)
		return open_node(minor, flags);
	flags |= large;
	char buf[4200];
	const char *p = redirect(path, buf, sizeof buf);
	if (p != path)
		return real_openat(AT_FDCWD, p, flags, mode);
	return real_openat(dirfd, path, flags, mode);
}

#define MODE_ARG(flags, mode)                              \
	mode_t mode = 0;                                   \
	if ((flags) & (O_CREAT | __O_TMPFILE)) {           \
		va_list ap;                                \
		va_start(ap, flags);                       \
		mode = va_arg(ap, mode_t);                 \
		va_end(ap);                                \
	}

EXPORT int open(const char *path, int flags, ...)
{
	MODE_ARG(flags, mode);
	return do_openat(AT_FDCWD, path, flags, mode, 0);
}

EXPORT int open64(const char *path, int flags, ...)
{
	MODE_ARG(flags, mode);
	return do_openat(AT_FDCWD, path, flags, mode, O_LARGEFILE);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags, mode);
	return do_openat(dirfd, path, flags, mode, 0);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags, mode);
	return do_openat(dirfd, path, flags, mode, O_LARGEFILE);
}

/* The _FORTIFY_SOURCE forms. */
EXPORT int __open_2(const char *path, int flags) { return do_openat(AT_FDCWD, path, flags, 0, 0); }
EXPORT int __open64_2(const char *path, int flags) { return do_openat(AT_FDCWD, path, flags, 0, O_LARGEFILE); }

EXPORT FILE *fopen(const char *path, const char *mode)
{
	INIT();
	char buf[4200];
	return real_fopen(redirect(path, buf, sizeof buf), mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	INIT();
	char buf[4200];
	return real_fopen64(redirect(path, buf, sizeof buf), mode);
}

/* DEFINE_STAT defines the stat functions for one struct: do_stat, do_fstat
 * and do_fstatat for struct stat and do_stat64, ... for struct stat64,
 * calling the C library's functions of the same form. On a 64-bit C
 * library the two are one layout; on a 32-bit one they differ. */
#define DEFINE_STAT(sfx, type)                                                         \
	static int do_stat##sfx(const char *path, type *st, int follow)                \
	{                                                                              \
		INIT();                                                                \
		char buf[4200];                                                        \
		const char *p = redirect(path, buf, sizeof buf);                       \
		int r = follow ? real_stat##sfx(p, st) : real_lstat##sfx(p, st);       \
		int minor = node_minor(path);                                          \
		if (r == 0 && minor >= 0 && S_ISREG(st->st_mode))                      \
			AS_NODE(st, minor);                                            \
		return r;                                                              \
	}                                                                              \
	static int do_fstat##sfx(int fd, type *st)                                     \
	{                                                                              \
		INIT();                                                                \
		struct conn *c = conn_for_fd(fd);                                      \
		int r = real_fstat##sfx(fd, st);                                       \
		if (r == 0 && c)                                                       \
			AS_NODE(st, c->minor);                                         \
		return r;                                                              \
	}                                                                              \
	static int do_fstatat##sfx(int dirfd, const char *path, type *st, int flags)   \
	{                                                                              \
		INIT();                                                                \
		if (path && path[0] == 0 && (flags & AT_EMPTY_PATH))                   \
			return do_fstat##sfx(dirfd, st);                               \
		char buf[4200];                                                        \
		const char *p = redirect(path, buf, sizeof buf);                       \
		if (p == path)                                                         \
			return real_fstatat##sfx(dirfd, path, st, flags);              \
		int r = real_fstatat##sfx(AT_FDCWD, p, st, flags);                     \
		int minor = node_minor(path);                                          \
		if (r == 0 && minor >= 0 && S_ISREG(st->st_mode))                      \
			AS_NODE(st, minor);                                            \
		return r;                                                              \
	}

DEFINE_STAT(, struct stat)
DEFINE_STAT(64, struct stat64)

EXPORT int stat(const char *path, struct stat *st) { return do_stat(path, st, 1); }
EXPORT int stat64(const char *path, struct stat64 *st) { return do_stat64(path, st, 1); }
EXPORT int lstat(const char *path, struct stat *st) { return do_stat(path, st, 0); }
EXPORT int lstat64(const char *path, struct stat64 *st) { return do_stat64(path, st, 0); }
EXPORT int fstat(int fd, struct stat *st) { return do_fstat(fd, st); }
EXPORT int fstat64(int fd, struct stat64 *st) { return do_fstat64(fd, st); }
EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags) { return do_fstatat(dirfd, path, st, flags); }
EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) { return do_fstatat64(dirfd, path, st, flags); }

/* The glibc < 2.33 entry points, which programs built against an older
 * glibc call (Debian's kmscube calls __fxstat, and on armhf __fxstat64).
 * The version argument names the layout, which is the C library's struct
 * stat or struct stat64 on the architectures this library is built for. */
EXPORT int __xstat(int ver, const char *path, struct stat *st) { (void)ver; return do_stat(path, st, 1); }
EXPORT int __xstat64(int ver, const char *path, struct stat64 *st) { (void)ver; return do_stat64(path, st, 1); }
EXPORT int __lxstat(int ver, const char *path, struct stat *st) { (void)ver; return do_stat(path, st, 0); }
EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st) { (void)ver; return do_stat64(path, st, 0); }
EXPORT int __fxstat(int ver, int fd, struct stat *st) { (void)ver; return do_fstat(fd, st); }
EXPORT int __fxstat64(int ver, int fd, struct stat64 *st) { (void)ver; return do_fstat64(fd, st); }

EXPORT int access(const char *path, int mode)
{
	INIT();
	char buf[4200];
	return real_access(redirect(path, buf, sizeof buf), mode);
}

EXPORT ssize_t readlink(const char *path, char *out, size_t size)
{
	INIT();
	char buf[4200];
	return real_readlink(redirect(path, buf, sizeof buf), out, size);
}

EXPORT DIR *opendir(const char *path)
{
	INIT();
	char buf[4200];
	return real_opendir(redirect(path, buf, sizeof buf));
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	INIT();
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	/* The kernel takes the request as an unsigned int (the ioctl
	 * syscall's cmd). */
	struct conn *c = conn_for_fd(fd);
	if (c)
		return remote_ioctl(c, -1, (uint32_t)req, arg);
	c = conn_for_server_file(fd);
	if (c)
		return remote_ioctl(c, fd, (uint32_t)req, arg);
	return real_ioctl(fd, req, arg);
}

/* do_mmap maps the device's fd at off: the range of the server's pool it
 * names. It returns NULL (errno untouched) for any other fd. */
static void *do_mmap(void *addr, size_t len, int prot, int flags, int fd, uint64_t off)
{
	INIT();
	struct conn *c = (flags & MAP_ANONYMOUS) ? NULL : conn_for_fd(fd);
	if (!c)
		return NULL;
	struct vc4sim_header h;
	size_t payload;
	int err = 0;
	pthread_mutex_lock(&c->mu);
	if (c->dead)
		err = ENODEV;
	else if (send_msg(c->ctl, VC4SIM_MSG_MMAP, 0, off, len, (uint64_t)(uint32_t)prot, NULL, 0) != 0 ||
		 recv_header(c, &h, &payload) != 0 || h.type != VC4SIM_MSG_MMAP_REPLY) {
		c->dead = 1;
		err = ENODEV;
	} else if (h.arg)
		err = h.arg;
	pthread_mutex_unlock(&c->mu);
	if (err) {
		errno = err;
		return MAP_FAILED;
	}
	void *p = real_mmap64(addr, len, prot, flags, c->memfd, (off64_t)h.a);
	int saved = errno;
	pthread_mutex_lock(&table_mu);
	if (p != MAP_FAILED && nmaps == capmaps) {
		size_t cap = capmaps ? 2 * capmaps : 64;
		struct mapping *m = realloc(maps, cap * sizeof *m);
		if (m) {
			maps = m;
			capmaps = cap;
		}
	}
	int recorded = 0;
	if (p != MAP_FAILED && nmaps < capmaps) {
		maps[nmaps++] = (struct mapping){(uintptr_t)p, len, c, h.b};
		recorded = 1;
	}
	pthread_mutex_unlock(&table_mu);
	if (!recorded) {
		/* Out of memory for the record, or the mapping failed: give the
		 * server its reference back. */
		if (p != MAP_FAILED) {
			real_munmap(p, len);
			saved = ENOMEM;
			p = MAP_FAILED;
		}
		pthread_mutex_lock(&c->mu);
		send_msg(c->ctl, VC4SIM_MSG_MUNMAP, 0, 0, h.b, 0, NULL, 0);
		pthread_mutex_unlock(&c->mu);
	}
	errno = saved;
	return p;
}

/* mmap's offset is an off_t, 32 bits in a 32-bit program, which reaches
 * the device's offsets (past 4 GiB on a 64-bit server) only through
 * mmap64; a 32-bit one is taken unsigned. */
EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = do_mmap(addr, len, prot, flags, fd, sizeof(off_t) == 8 ? (uint64_t)off : (uint64_t)(uint32_t)off);
	return p ? p : real_mmap(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	void *p = do_mmap(addr, len, prot, flags, fd, (uint64_t)off);
	return p ? p : real_mmap64(addr, len, prot, flags, fd, off);
}

EXPORT int munmap(void *addr, size_t len)
{
	INIT();
	int r = real_munmap(addr, len);
	if (r != 0 || !enabled)
		return r;
	int saved = errno;
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	for (;;) {
		struct mapping gone = {0};
		pthread_mutex_lock(&table_mu);
		for (size_t i = 0; i < nmaps; i++)
			if (maps[i].addr >= lo && maps[i].addr < hi) {
				gone = maps[i];
				maps[i] = maps[--nmaps];
				break;
			}
		pthread_mutex_unlock(&table_mu);
		if (!gone.c)
			break;
		pthread_mutex_lock(&gone.c->mu);
		if (!gone.c->dead)
			send_msg(gone.c->ctl, VC4SIM_MSG_MUNMAP, 0, 0, gone.token, 0, NULL, 0);
		pthread_mutex_unlock(&gone.c->mu);
	}
	errno = saved;
	return r;
}

/* ---- the frozen clock ----
 *
 * VC4SIM_FROZEN_CLOCK=STEP_NS makes the program's own clock deterministic,
 * so that two runs of an animated program (glmark2: its scenes move with
 * clock_gettime(CLOCK_MONOTONIC), and pulsar seeds rand() with time(0))
 * draw the same frames whatever renders them and however long it takes:
 * every clock_gettime (of a wall or monotonic clock), gettimeofday and
 * time call made from the main executable reads a clock that starts at a
 * fixed point and advances STEP_NS per call. Calls from the libraries
 * (Mesa's fence waits and BO cache, the C++ library) keep the real clock:
 * their number differs from one driver to another, and a driver's timeouts
 * must not stop. It works without VC4SIM. */

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);
static time_t (*real_time)(time_t *);
static uint64_t clock_step;              /* 0: the real clock for everyone */
static uintptr_t exe_lo, exe_hi;         /* the main executable's mapped range */
static uint64_t frozen_calls;            /* calls so far (atomic) */

/* The fixed starting points: 1000 s after boot, and 2023-01-01 00:00 UTC
 * for the wall clock. */
#define FROZEN_MONOTONIC_NS (1000ull * 1000000000ull)
#define FROZEN_REALTIME_NS (1672531200ull * 1000000000ull)

static int exe_range(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	/* The first object dl_iterate_phdr reports is the main program. */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
		if (!exe_lo || lo < exe_lo)
			exe_lo = lo;
		if (hi > exe_hi)
			exe_hi = hi;
	}
	return 1;
}

static void clock_init_once(void)
{
	real_clock_gettime = next("clock_gettime");
	real_gettimeofday = next("gettimeofday");
	real_time = next("time");
	const char *s = getenv("VC4SIM_FROZEN_CLOCK");
	if (!s || !*s)
		return;
	char *end;
	unsigned long long step = strtoull(s, &end, 10);
	if (*end || step == 0 || s[0] == '-') {
		fprintf(stderr, "vc4sim: VC4SIM_FROZEN_CLOCK=%s is not a step in nanoseconds: give a positive integer (16666667 for 60 Hz) or unset it\n", s);
		exit(2);
	}
	dl_iterate_phdr(exe_range, NULL);
	if (exe_lo >= exe_hi) {
		fprintf(stderr, "vc4sim: VC4SIM_FROZEN_CLOCK: the program's own code was not found among its mappings, so its clock cannot be told from its libraries': unset VC4SIM_FROZEN_CLOCK\n");
		exit(2);
	}
	clock_step = step;
}

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

/* A bad VC4SIM_FROZEN_CLOCK stops the program as it starts, not at its
 * first clock reading. */
__attribute__((constructor)) static void clock_init(void)
{
	pthread_once(&clock_once, clock_init_once);
}

/* frozen_ns returns the frozen clock's next reading after base, or 0 when
 * the caller at ret keeps the real clock. */
static uint64_t frozen_ns(const void *ret, uint64_t base)
{
	pthread_once(&clock_once, clock_init_once);
	uintptr_t r = (uintptr_t)ret;
	if (!clock_step || r < exe_lo || r >= exe_hi)
		return 0;
	uint64_t n = __atomic_fetch_add(&frozen_calls, 1, __ATOMIC_RELAXED);
	return base + n * clock_step;
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t base = 0;
	switch (id) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		base = FROZEN_MONOTONIC_NS;
		break;
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		base = FROZEN_REALTIME_NS;
		break;
	}
	uint64_t ns = base ? frozen_ns(__builtin_return_address(0), base) : 0;
	if (!ns) {
		pthread_once(&clock_once, clock_init_once);
		return real_clock_gettime(id, ts);
	}
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return 0;
}

EXPORT int gettimeofday(struct timeval *tv, void *tz)
{
	uint64_t ns = frozen_ns(__builtin_return_address(0), FROZEN_REALTIME_NS);
	if (!ns)
		return real_gettimeofday(tv, tz);
	tv->tv_sec = (time_t)(ns / 1000000000u);
	tv->tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
	return 0;
}

EXPORT time_t time(time_t *t)
{
	uint64_t ns = frozen_ns(__builtin_return_address(0), FROZEN_REALTIME_NS);
	if (!ns)
		return real_time(t);
	time_t s = (time_t)(ns / 1000000000u);
	if (t)
		*t = s;
	return s;
}
