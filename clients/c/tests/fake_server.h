/* A scripted stand-in for the server, on a thread, for what a real server never does on demand:
 * never answer, hang up mid-call, or send bytes that break the protocol. It serves one
 * connection (TCP, a Unix socket, or TLS over TCP), reading one request frame before each act,
 * and records the requests it read. */
#ifndef TG_TEST_FAKE_SERVER_H
#define TG_TEST_FAKE_SERVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fake_behaviour {
    FAKE_SILENT,        /* reads the request, never answers */
    FAKE_HANG_UP,       /* reads the request, closes the connection */
    FAKE_REPLY,         /* answers request i with the i-th frame of `reply` (its request id patched
                           in); silent once the frames run out */
} fake_behaviour;

/* Where and how to listen; NULL fields keep the default (TCP on 127.0.0.1, no TLS). */
typedef struct fake_server_options {
    const char *unix_path;      /* listen on this Unix socket instead */
    const char *tls_cert;       /* PEM certificate and key: speak TLS */
    const char *tls_key;
    const char *tls_client_ca;  /* require a client certificate from this CA (mutual TLS) */
} fake_server_options;

typedef struct fake_server {
    int listener;
    uint16_t port;
    fake_behaviour behaviour;
    fake_server_options options;
    void *tls;                  /* SSL_CTX * */
    uint8_t reply[512];
    size_t reply_length;
    uint8_t received[4096];     /* the request frames read, in order (read after fake_server_stop) */
    size_t received_length;
    int stop_pipe[2];
    pthread_t thread;
} fake_server;

/* Listens on 127.0.0.1 (any port) and starts serving. */
int fake_server_start(fake_server *server, fake_behaviour behaviour, const uint8_t *reply, size_t reply_length);
int fake_server_start_with(fake_server *server, fake_behaviour behaviour, const uint8_t *reply, size_t reply_length,
                           const fake_server_options *options);
void fake_server_stop(fake_server *server);

#endif
