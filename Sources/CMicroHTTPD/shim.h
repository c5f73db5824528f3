#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* libmicrohttpd's own messages (a request too large for the connection's memory, a failed
   TLS handshake) formatted and handed to `log`, whose context is the daemon's. */
typedef void (*CMicroHTTPD_LogLine)(void *context, const char *message);
struct CMicroHTTPD_Logger { CMicroHTTPD_LogLine log; void *context; };
static void CMicroHTTPD_format(void *cls, const char *format, va_list arguments) {
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    const struct CMicroHTTPD_Logger *logger = (const struct CMicroHTTPD_Logger *)cls;
    logger->log(logger->context, line);
}

/* MHD_start_daemon is variadic: start an epoll-based daemon with an internal thread pool, on `address`
   (or any address when NULL), with a per-connection memory limit (which bounds the request headers),
   an idle timeout in seconds, a cap on open connections in all and per client address (0: none),
   a callback told of each request line (its result is the request's slot), one told when a connection
   starts and closes, and TLS when a PEM certificate and key are given. */
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags, uint16_t port, unsigned int threads,
                                                    MHD_AccessHandlerCallback handler, void *context,
                                                    MHD_RequestCompletedCallback completed,
                                                    void *(*requestLine)(void *, const char *, struct MHD_Connection *),
                                                    MHD_NotifyConnectionCallback connections,
                                                    const struct sockaddr *address, size_t memoryLimit,
                                                    unsigned int timeoutSeconds, unsigned int connectionLimit,
                                                    unsigned int perAddressLimit, const char *certificate, const char *key,
                                                    const struct CMicroHTTPD_Logger *logger) {
    struct MHD_OptionItem options[20];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, threads, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, context};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)requestLine, context};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connections, context};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memoryLimit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, connectionLimit, NULL};
    if (perAddressLimit > 0) options[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit, NULL};
    if (address) options[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, (void *)address};
    if (certificate && key) {
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)certificate};
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key};
        flags |= MHD_USE_TLS;
    }
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    if (!logger) return MHD_start_daemon(flags, port, NULL, NULL, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    /* The logger first of all (libmicrohttpd wants it before any other option, the array included). */
    return MHD_start_daemon(flags | MHD_USE_ERROR_LOG, port, NULL, NULL, handler, context,
                            MHD_OPTION_EXTERNAL_LOGGER, CMicroHTTPD_format, (void *)logger,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* MHD_get_connection_info is variadic: the connection's socket (-1 when unknown). */
static inline int CMicroHTTPD_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
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

/* MHD_upgrade_action is variadic: closing an upgraded connection is the one action Soar takes. */
static inline int CMicroHTTPD_close_upgraded(struct MHD_UpgradeResponseHandle *urh) {
    return (int)MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}
