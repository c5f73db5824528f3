#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: start an epoll-based daemon with an internal thread pool, on `address`
   (or any address when NULL), with a per-connection memory limit (which bounds the request headers),
   an idle timeout in seconds and a cap on open connections. */
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags, uint16_t port, unsigned int threads,
                                                    MHD_AccessHandlerCallback handler, void *context,
                                                    MHD_RequestCompletedCallback completed, void *completedContext,
                                                    const struct sockaddr *address, size_t memoryLimit,
                                                    unsigned int timeoutSeconds, unsigned int connectionLimit) {
    if (address) {
        return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                                MHD_OPTION_THREAD_POOL_SIZE, threads,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, memoryLimit,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                                MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                                MHD_OPTION_SOCK_ADDR, address,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memoryLimit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                            MHD_OPTION_CONNECTION_LIMIT, connectionLimit,
                            MHD_OPTION_END);
}

/* MHD_get_daemon_info is variadic: the port the daemon is bound to (useful after binding port 0). */
static inline uint16_t CMicroHTTPD_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* MHD_get_connection_info is variadic: the client's IP address as text into `out` (empty when unknown). */
static inline void CMicroHTTPD_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, out, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, out, (socklen_t)size);
    }
}
