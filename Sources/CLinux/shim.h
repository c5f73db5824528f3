/* Linux interfaces the toolchain's Glibc module leaves out: epoll and eventfd. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <sys/socket.h>

/* accept4 needs _GNU_SOURCE: accept a connection as non-blocking and close-on-exec. */
static inline int CLinux_accept(int listener) {
    int fd = accept(listener, 0, 0);
    if (fd >= 0) {
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return fd;
}
