/* TLS over a connected non-blocking socket, with OpenSSL: the context built from the options,
 * the handshake with certificate and name verification, and reading and writing records. Only
 * transport.c uses it. */
#ifndef TG_TLS_H
#define TG_TLS_H

#include "transport.h"

/* Starts TLS on fd for server_name and completes the handshake by deadline_ms (0: none). On
 * success *ssl is the SSL *; on failure the socket is left to the caller to close. */
tollgate_status tg_tls_handshake(tg_tls_context *context, int fd, const char *server_name, int64_t deadline_ms,
                                 const char *peer, void **ssl, tollgate_error *error);

tg_io tg_tls_send(void *ssl, const uint8_t *data, size_t length, size_t *count, const char *peer,
                  tollgate_error *error);
tg_io tg_tls_receive(void *ssl, uint8_t *data, size_t capacity, size_t *count, const char *peer,
                     tollgate_error *error);
bool tg_tls_has_buffered(void *ssl);

/* Reads the records waiting on an idle connection: false when they were only handshake records
 * (session tickets), true when the peer closed, failed or sent application data. */
bool tg_tls_is_stale(void *ssl, int fd);

/* Sends close_notify (without waiting for an answer) and frees the SSL. */
void tg_tls_close(void *ssl);

#endif
