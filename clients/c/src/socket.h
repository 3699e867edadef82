/* Socket plumbing: connecting (TCP with a timeout, or a Unix socket), and telling whether an idle peer hung up. Sockets are
 * non-blocking; the waiting happens in poll() with the caller's deadline. */
#ifndef TG_SOCKET_H
#define TG_SOCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "tollgate/status.h"

/* Resolves host and connects to the first address that answers within timeout_ms (each attempt;
 * <= 0 waits forever). On success *fd is a non-blocking, close-on-exec socket with TCP_NODELAY. */
tollgate_status tg_socket_connect(const char *host, uint16_t port, int timeout_ms, int *fd, tollgate_error *error);

/* Connects the Unix domain socket at path (the connection is local: no timeout applies). On
 * success *fd is a non-blocking, close-on-exec socket. */
tollgate_status tg_socket_connect_unix(const char *path, int *fd, tollgate_error *error);

/* True when an idle connection can no longer carry a call: the peer closed or reset it, or sent
 * bytes nobody asked for. Never blocks. */
bool tg_socket_is_stale(int fd);

/* Milliseconds of a monotonic clock. */
int64_t tg_now_ms(void);

/* Milliseconds left until deadline_ms for poll(): -1 (forever) when deadline_ms is 0, else >= 0. */
int tg_poll_timeout(int64_t deadline_ms);

#endif
