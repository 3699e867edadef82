#define _GNU_SOURCE
#include "transport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "error.h"
#include "socket.h"
#include "tls.h"

#define UNIX_PREFIX "unix:"

tollgate_status tg_transport_open(tg_transport *transport, const char *host, uint16_t port, int timeout_ms,
                                  tg_tls_context *tls, const char *server_name, tollgate_error *error) {
    transport->fd = -1;
    transport->ssl = NULL;
    int64_t deadline = timeout_ms > 0 ? tg_now_ms() + timeout_ms : 0;
    int fd = -1;
    tollgate_status status = strncmp(host, UNIX_PREFIX, strlen(UNIX_PREFIX)) == 0
                                 ? tg_socket_connect_unix(host + strlen(UNIX_PREFIX), &fd, error)
                                 : tg_socket_connect(host, port, timeout_ms, &fd, error);
    if (status != TOLLGATE_OK) return status;
    if (tls) {
        char peer[300];
        if (strncmp(host, UNIX_PREFIX, strlen(UNIX_PREFIX)) == 0) {
            snprintf(peer, sizeof peer, "%s", host);
        } else {
            snprintf(peer, sizeof peer, "%s:%u", host, (unsigned)port);
        }
        status = tg_tls_handshake(tls, fd, server_name, deadline, peer, &transport->ssl, error);
        if (status != TOLLGATE_OK) {
            close(fd);
            return status;
        }
    }
    transport->fd = fd;
    return TOLLGATE_OK;
}

tg_io tg_transport_send(tg_transport *transport, const uint8_t *data, size_t length, size_t *count, const char *peer,
                        tollgate_error *error) {
    if (transport->ssl) return tg_tls_send(transport->ssl, data, length, count, peer, error);
    ssize_t written;
    do {
        written = send(transport->fd, data, length, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (written < 0 && errno == EINTR);
    if (written >= 0) {
        *count = (size_t)written;
        return written > 0 ? TG_IO_DONE : TG_IO_WANT_WRITE;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return TG_IO_WANT_WRITE;
    tg_error_set(error, TOLLGATE_CONNECTION_CLOSED, "sending to %s: %s", peer, strerror(errno));
    return TG_IO_FAILED;
}

tg_io tg_transport_receive(tg_transport *transport, uint8_t *data, size_t capacity, size_t *count, const char *peer,
                           tollgate_error *error) {
    if (transport->ssl) return tg_tls_receive(transport->ssl, data, capacity, count, peer, error);
    ssize_t received;
    do {
        received = recv(transport->fd, data, capacity, MSG_DONTWAIT);
    } while (received < 0 && errno == EINTR);
    if (received > 0) {
        *count = (size_t)received;
        return TG_IO_DONE;
    }
    if (received == 0) {
        tg_error_set(error, TOLLGATE_CONNECTION_CLOSED, "%s closed the connection", peer);
        return TG_IO_FAILED;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return TG_IO_WANT_READ;
    tg_error_set(error, TOLLGATE_CONNECTION_CLOSED, "receiving from %s: %s", peer, strerror(errno));
    return TG_IO_FAILED;
}

bool tg_transport_has_buffered(const tg_transport *transport) {
    return transport->ssl && tg_tls_has_buffered(transport->ssl);
}

bool tg_transport_is_stale(tg_transport *transport) {
    if (transport->fd < 0) return true;
    if (transport->ssl) return tg_tls_is_stale(transport->ssl, transport->fd);
    return tg_socket_is_stale(transport->fd);
}

void tg_transport_close(tg_transport *transport) {
    if (transport->ssl) tg_tls_close(transport->ssl);
    if (transport->fd >= 0) close(transport->fd);
    transport->ssl = NULL;
    transport->fd = -1;
}
