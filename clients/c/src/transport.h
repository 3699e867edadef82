/* One connection's byte stream: a plain socket (TCP or Unix), or TLS on top of it (OpenSSL). The
 * socket is non-blocking; callers wait in poll() on transport.fd with their own deadline. */
#ifndef TG_TRANSPORT_H
#define TG_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tollgate/client.h"
#include "tollgate/status.h"

/* An OpenSSL SSL_CTX: trust anchors, client certificate, TLS 1.2 minimum. */
typedef struct tg_tls_context tg_tls_context;

typedef struct tg_transport {
    int fd;    /* -1: not connected */
    void *ssl; /* SSL *, NULL without TLS */
} tg_transport;

typedef enum tg_io {
    TG_IO_DONE,        /* *count bytes moved (> 0) */
    TG_IO_WANT_READ,   /* nothing now: wait for POLLIN */
    TG_IO_WANT_WRITE,  /* nothing now: wait for POLLOUT */
    TG_IO_FAILED       /* the connection is unusable; the error is set */
} tg_io;

/* The context for options (ca file, client certificate); TOLLGATE_USAGE when a file does not load. */
tollgate_status tg_tls_context_new(const tollgate_options *options, tg_tls_context **context, tollgate_error *error);
void tg_tls_context_free(tg_tls_context *context);

/* Connects host:port (TCP) or "unix:/path" within timeout_ms (<= 0: forever) and, with tls, runs
 * the handshake for server_name in the same time. */
tollgate_status tg_transport_open(tg_transport *transport, const char *host, uint16_t port, int timeout_ms,
                                  tg_tls_context *tls, const char *server_name, tollgate_error *error);

/* Sends or receives what the connection takes or has now; peer names the other end in messages. */
tg_io tg_transport_send(tg_transport *transport, const uint8_t *data, size_t length, size_t *count, const char *peer,
                        tollgate_error *error);
tg_io tg_transport_receive(tg_transport *transport, uint8_t *data, size_t capacity, size_t *count, const char *peer,
                           tollgate_error *error);

/* True when TLS holds bytes already read from the socket (poll would not report them). */
bool tg_transport_has_buffered(const tg_transport *transport);

/* True when an idle connection can no longer carry a call: the peer closed or reset it, or sent
 * bytes nobody asked for (TLS 1.3 session tickets and other handshake records do not count).
 * Never blocks. */
bool tg_transport_is_stale(tg_transport *transport);

void tg_transport_close(tg_transport *transport);

#endif
