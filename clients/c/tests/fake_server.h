/* A scripted stand-in for the server, on a thread, for what a real server never does on demand:
 * never answer, hang up mid-call, or send bytes that break the protocol. It serves one
 * connection, reading one request frame before it acts. */
#ifndef TG_TEST_FAKE_SERVER_H
#define TG_TEST_FAKE_SERVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fake_behaviour {
    FAKE_SILENT,        /* reads the request, never answers */
    FAKE_HANG_UP,       /* reads the request, closes the connection */
    FAKE_REPLY,         /* reads the request, writes `reply` with the request's id patched in */
} fake_behaviour;

typedef struct fake_server {
    int listener;
    uint16_t port;
    fake_behaviour behaviour;
    uint8_t reply[256];
    size_t reply_length;
    int stop_pipe[2];
    pthread_t thread;
} fake_server;

/* Listens on 127.0.0.1 (any port) and starts serving. reply is used by FAKE_REPLY: a response
 * frame whose bytes 12..15 (the request id) are replaced with the request's. */
int fake_server_start(fake_server *server, fake_behaviour behaviour, const uint8_t *reply, size_t reply_length);
void fake_server_stop(fake_server *server);

#endif
