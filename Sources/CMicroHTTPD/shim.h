#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: start an epoll-based daemon with an internal thread pool on 127.0.0.1 or any address. */
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags, uint16_t port, unsigned int threads,
                                                    MHD_AccessHandlerCallback handler, void *context,
                                                    MHD_RequestCompletedCallback completed, void *completedContext,
                                                    const struct sockaddr *address) {
    if (address) {
        return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                                MHD_OPTION_THREAD_POOL_SIZE, threads,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                                MHD_OPTION_SOCK_ADDR, address,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                            MHD_OPTION_END);
}

/* MHD_get_daemon_info is variadic: the port the daemon is bound to (useful after binding port 0). */
static inline uint16_t CMicroHTTPD_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
