/* TLS with OpenSSL. The socket stays non-blocking: every SSL call that cannot finish now says
 * which way it waits (WANT_READ / WANT_WRITE), and the caller polls. Writes go through a small
 * BIO of our own so that they use MSG_NOSIGNAL like the plain transport: a peer that hangs up
 * never raises SIGPIPE. The context and its BIO method belong to one client: no global state. */
#define _GNU_SOURCE
#include "tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "error.h"
#include "socket.h"

struct tg_tls_context {
    SSL_CTX *ssl_context;
    BIO_METHOD *socket_method;
};

/* ---- the socket BIO ---------------------------------------------------------------------------- */

static int bio_write(BIO *bio, const char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t written;
    do {
        written = send(fd, data, (size_t)length, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (written < 0 && errno == EINTR);
    if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
    return (int)written;
}

static int bio_read(BIO *bio, char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t received;
    do {
        received = recv(fd, data, (size_t)length, MSG_DONTWAIT);
    } while (received < 0 && errno == EINTR);
    if (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
    return (int)received;
}

static long bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio;
    (void)number;
    (void)pointer;
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

static int bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

/* ---- errors ------------------------------------------------------------------------------------- */

/* The error for a failed SSL call: certificate verification, an alert from the peer (the server
 * refused our certificate), the peer hanging up, or the socket failing. */
static tollgate_status failure(SSL *ssl, int ssl_error, bool handshake, const char *peer, tollgate_error *error) {
    int saved_errno = errno;
    unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    const char *what = handshake ? "TLS handshake with" : "TLS with";
    long verify = SSL_get_verify_result(ssl);
    if (handshake && verify != X509_V_OK) {
        return tg_error_set(error, TOLLGATE_TLS_FAILED, "%s %s: the server's certificate did not verify: %s", what,
                            peer, X509_verify_cert_error_string(verify));
    }
    bool closed = ssl_error == SSL_ERROR_ZERO_RETURN || (ssl_error == SSL_ERROR_SYSCALL && code == 0) ||
                  (ERR_GET_LIB(code) == ERR_LIB_SSL && ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING);
    if (closed) {
        return tg_error_set(error, handshake ? TOLLGATE_TLS_FAILED : TOLLGATE_CONNECTION_CLOSED,
                            "%s %s: the connection closed%s", what, peer,
                            handshake ? " during the handshake" : "");
    }
    if (ssl_error == SSL_ERROR_SYSCALL && code == 0) {
        return tg_error_set(error, TOLLGATE_CONNECTION_CLOSED, "%s %s: %s", what, peer, strerror(saved_errno));
    }
    const char *reason = ERR_reason_error_string(code);
    return tg_error_set(error, TOLLGATE_TLS_FAILED, "%s %s: %s", what, peer, reason ? reason : "failed");
}

static tollgate_status openssl_usage(const char *what, const char *file, tollgate_error *error) {
    unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    if (file && access(file, R_OK) != 0) {
        return tg_error_set(error, TOLLGATE_USAGE, "%s %s: %s", what, file, strerror(errno));
    }
    const char *reason = code ? ERR_reason_error_string(code) : NULL;
    return tg_error_set(error, TOLLGATE_USAGE, "%s %s: %s", what, file ? file : "", reason ? reason : "failed");
}

/* ---- the context -------------------------------------------------------------------------------- */

tollgate_status tg_tls_context_new(const tollgate_options *options, tg_tls_context **context, tollgate_error *error) {
    *context = NULL;
    if (options->tls_private_key_file && !options->tls_certificate_file) {
        return tg_error_set(error, TOLLGATE_USAGE, "tls_private_key_file needs tls_certificate_file");
    }
    tg_tls_context *made = calloc(1, sizeof *made);
    if (!made) return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    ERR_clear_error();
    tollgate_status status = TOLLGATE_OK;
    made->ssl_context = SSL_CTX_new(TLS_client_method());
    made->socket_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tollgate socket");
    if (!made->ssl_context || !made->socket_method || !BIO_meth_set_write(made->socket_method, bio_write) ||
        !BIO_meth_set_read(made->socket_method, bio_read) || !BIO_meth_set_ctrl(made->socket_method, bio_ctrl) ||
        !BIO_meth_set_create(made->socket_method, bio_create)) {
        ERR_clear_error();
        status = tg_error_set(error, TOLLGATE_NO_MEMORY, "TLS setup failed: out of memory");
    } else {
        SSL_CTX *ssl_context = made->ssl_context;
        SSL_CTX_set_min_proto_version(ssl_context, TLS1_2_VERSION);
        SSL_CTX_set_verify(ssl_context, SSL_VERIFY_PEER, NULL);
        /* The output buffer may move and grow between a write that waited and its retry. */
        SSL_CTX_set_mode(ssl_context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        if (options->tls_ca_file) {
            if (SSL_CTX_load_verify_locations(ssl_context, options->tls_ca_file, NULL) != 1) {
                status = openssl_usage("cannot load tls_ca_file", options->tls_ca_file, error);
            }
        } else if (SSL_CTX_set_default_verify_paths(ssl_context) != 1) {
            status = openssl_usage("cannot load the system's CA certificates", NULL, error);
        }
        if (status == TOLLGATE_OK && options->tls_certificate_file) {
            const char *key = options->tls_private_key_file ? options->tls_private_key_file
                                                            : options->tls_certificate_file;
            if (SSL_CTX_use_certificate_chain_file(ssl_context, options->tls_certificate_file) != 1) {
                status = openssl_usage("cannot load tls_certificate_file", options->tls_certificate_file, error);
            } else if (SSL_CTX_use_PrivateKey_file(ssl_context, key, SSL_FILETYPE_PEM) != 1) {
                status = openssl_usage("cannot load tls_private_key_file", key, error);
            } else if (SSL_CTX_check_private_key(ssl_context) != 1) {
                status = openssl_usage("the private key does not match", options->tls_certificate_file, error);
            }
        }
    }
    if (status != TOLLGATE_OK) {
        tg_tls_context_free(made);
        return status;
    }
    *context = made;
    return TOLLGATE_OK;
}

void tg_tls_context_free(tg_tls_context *context) {
    if (!context) return;
    SSL_CTX_free(context->ssl_context);
    BIO_meth_free(context->socket_method);
    free(context);
}

/* ---- the connection ----------------------------------------------------------------------------- */

static bool is_ip_address(const char *name) {
    unsigned char address[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, name, address) == 1 || inet_pton(AF_INET6, name, address) == 1;
}

tollgate_status tg_tls_handshake(tg_tls_context *context, int fd, const char *server_name, int64_t deadline_ms,
                                 const char *peer, void **out, tollgate_error *error) {
    *out = NULL;
    ERR_clear_error();
    SSL *ssl = SSL_new(context->ssl_context);
    BIO *bio = ssl ? BIO_new(context->socket_method) : NULL;
    if (!ssl || !bio) {
        SSL_free(ssl);
        ERR_clear_error();
        return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    }
    BIO_set_data(bio, (void *)(intptr_t)fd);
    SSL_set_bio(ssl, bio, bio);
    /* The name the certificate must carry: a DNS name (also sent as SNI) or an IP address. */
    bool named = is_ip_address(server_name)
                     ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), server_name) == 1
                     : SSL_set_tlsext_host_name(ssl, server_name) == 1 && SSL_set1_host(ssl, server_name) == 1;
    if (!named) {
        SSL_free(ssl);
        ERR_clear_error();
        return tg_error_set(error, TOLLGATE_USAGE, "cannot verify the server name \"%s\"", server_name);
    }
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    for (;;) {
        ERR_clear_error();
        int result = SSL_connect(ssl);
        if (result == 1) break;
        int ssl_error = SSL_get_error(ssl, result);
        short events;
        if (ssl_error == SSL_ERROR_WANT_READ) {
            events = POLLIN;
        } else if (ssl_error == SSL_ERROR_WANT_WRITE) {
            events = POLLOUT;
        } else {
            tollgate_status status = failure(ssl, ssl_error, true, peer, error);
            SSL_free(ssl);
            return status;
        }
        struct pollfd waiting = {.fd = fd, .events = events};
        int ready;
        do {
            ready = poll(&waiting, 1, tg_poll_timeout(deadline_ms));
        } while (ready < 0 && errno == EINTR);
        if (ready <= 0) {
            SSL_free(ssl);
            return tg_error_set(error, ready == 0 ? TOLLGATE_TIMEOUT : TOLLGATE_CONNECT_FAILED,
                                "TLS handshake with %s: %s", peer, ready == 0 ? "no answer in time" : strerror(errno));
        }
    }
    *out = ssl;
    return TOLLGATE_OK;
}

static tg_io would_block(SSL *ssl, int result, const char *peer, tollgate_error *error) {
    int ssl_error = SSL_get_error(ssl, result);
    if (ssl_error == SSL_ERROR_WANT_READ) return TG_IO_WANT_READ;
    if (ssl_error == SSL_ERROR_WANT_WRITE) return TG_IO_WANT_WRITE;
    failure(ssl, ssl_error, false, peer, error);
    return TG_IO_FAILED;
}

tg_io tg_tls_send(void *ssl, const uint8_t *data, size_t length, size_t *count, const char *peer,
                  tollgate_error *error) {
    ERR_clear_error();
    size_t written = 0;
    int result = SSL_write_ex(ssl, data, length, &written);
    if (result == 1) {
        *count = written;
        return TG_IO_DONE;
    }
    return would_block(ssl, result, peer, error);
}

tg_io tg_tls_receive(void *ssl, uint8_t *data, size_t capacity, size_t *count, const char *peer,
                     tollgate_error *error) {
    ERR_clear_error();
    size_t received = 0;
    int result = SSL_read_ex(ssl, data, capacity, &received);
    if (result == 1) {
        *count = received;
        return TG_IO_DONE;
    }
    return would_block(ssl, result, peer, error);
}

bool tg_tls_has_buffered(void *ssl) { return SSL_has_pending(ssl) == 1; }

bool tg_tls_is_stale(void *ssl, int fd) {
    if (SSL_pending(ssl) > 0) return true; /* an answer nobody waits for */
    if (!tg_socket_is_stale(fd)) return false; /* nothing waiting: idle and open */
    /* Bytes or an end wait. TLS reads every whole record there is: handshake records (TLS 1.3
     * session tickets) leave nothing behind and WANT_READ; data, an alert or the end do not. */
    uint8_t byte;
    size_t received = 0;
    ERR_clear_error();
    int result = SSL_read_ex(ssl, &byte, 1, &received);
    if (result == 1) return true;
    int ssl_error = SSL_get_error(ssl, result);
    ERR_clear_error();
    return ssl_error != SSL_ERROR_WANT_READ;
}

void tg_tls_close(void *ssl) {
    ERR_clear_error();
    SSL_shutdown(ssl); /* one close_notify; we do not wait for the peer's */
    ERR_clear_error();
    SSL_free(ssl);
}
