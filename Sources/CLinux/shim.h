/* Linux interfaces the toolchain's Glibc module leaves out: epoll, eventfd, accept4. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* Accepts a connection as non-blocking and close-on-exec in one call. */
static inline int CLinux_accept(int listener) {
    return accept4(listener, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
