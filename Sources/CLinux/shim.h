/* Linux interfaces the toolchain's Glibc module leaves out: epoll, eventfd, accept4, pipe2. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* glibc declares accept4 only under _GNU_SOURCE, which would change system headers shared with
   other modules (Dispatch's fd_set), so it is declared here as glibc defines it. */
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern int pipe2(int fds[2], int flags);

/* Accepts a connection as non-blocking and close-on-exec in one call. */
static inline int CLinux_accept(int listener) {
    return accept4(listener, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
