#define _GNU_SOURCE
#include "fake_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

typedef struct peer {
    int fd;
    SSL *ssl;
} peer;

/* Reads exactly `length` bytes unless stopped; returns 0 on success. */
static int read_exactly(fake_server *server, peer *p, uint8_t *out, size_t length) {
    size_t got = 0;
    while (got < length) {
        if (!p->ssl || SSL_pending(p->ssl) == 0) {
            struct pollfd waiting[2] = {{.fd = p->fd, .events = POLLIN},
                                        {.fd = server->stop_pipe[0], .events = POLLIN}};
            if (poll(waiting, 2, -1) < 0 || waiting[1].revents) return -1;
        }
        ssize_t n = p->ssl ? SSL_read(p->ssl, out + got, (int)(length - got)) : recv(p->fd, out + got, length - got, 0);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

static void send_all(peer *p, const uint8_t *data, size_t length) {
    if (p->ssl) {
        (void)!SSL_write(p->ssl, data, (int)length);
    } else {
        (void)!send(p->fd, data, length, MSG_NOSIGNAL);
    }
}

static void record(fake_server *server, const uint8_t *data, size_t length) {
    size_t room = sizeof server->received - server->received_length;
    if (length > room) length = room;
    memcpy(server->received + server->received_length, data, length);
    server->received_length += length;
}

static void wait_for_stop(fake_server *server) {
    struct pollfd stop = {.fd = server->stop_pipe[0], .events = POLLIN};
    poll(&stop, 1, -1);
}

static void converse(fake_server *server, peer *p) {
    size_t next_reply = 0;
    for (;;) {
        uint8_t header[12], payload[4096];
        if (read_exactly(server, p, header, sizeof header) != 0) return;
        uint32_t length = (uint32_t)header[4] | (uint32_t)header[5] << 8 | (uint32_t)header[6] << 16 |
                          (uint32_t)header[7] << 24;
        if (length > sizeof payload || read_exactly(server, p, payload, length) != 0) return;
        record(server, header, sizeof header);
        record(server, payload, length);
        if (server->behaviour == FAKE_HANG_UP) return;
        if (server->behaviour == FAKE_SILENT || next_reply >= server->reply_length) break;
        /* The next frame of the script: its length from its header (or the rest, if shorter). */
        size_t frame_length = server->reply_length - next_reply;
        if (frame_length >= 16) {
            const uint8_t *at = server->reply + next_reply;
            size_t announced = 16 + ((size_t)at[8] | (size_t)at[9] << 8 | (size_t)at[10] << 16 | (size_t)at[11] << 24);
            if (announced < frame_length) frame_length = announced;
        }
        uint8_t reply[sizeof server->reply];
        memcpy(reply, server->reply + next_reply, frame_length);
        if (frame_length >= 16) memcpy(reply + 12, header + 8, 4);
        send_all(p, reply, frame_length);
        next_reply += frame_length;
    }
    wait_for_stop(server);
}

static void *serve(void *argument) {
    fake_server *server = argument;
    /* OpenSSL writes with write(): a client that hung up must not kill the test with SIGPIPE (the
     * signal goes to the writing thread, so the client's own behaviour is still checked). */
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, NULL);
    struct pollfd waiting[2] = {{.fd = server->listener, .events = POLLIN},
                                {.fd = server->stop_pipe[0], .events = POLLIN}};
    if (poll(waiting, 2, -1) < 0 || waiting[1].revents) return NULL;
    peer p = {.fd = accept4(server->listener, NULL, NULL, SOCK_CLOEXEC), .ssl = NULL};
    if (p.fd < 0) return NULL;
    if (server->tls) {
        p.ssl = SSL_new(server->tls);
        SSL_set_fd(p.ssl, p.fd);
        if (SSL_accept(p.ssl) == 1) {
            converse(server, &p);
            SSL_shutdown(p.ssl);
        }
        ERR_clear_error();
        SSL_free(p.ssl);
    } else {
        converse(server, &p);
    }
    close(p.fd);
    return NULL;
}

static int listen_on(fake_server *server) {
    if (server->options.unix_path) {
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        if (strlen(server->options.unix_path) >= sizeof address.sun_path) return -1;
        strcpy(address.sun_path, server->options.unix_path);
        unlink(address.sun_path);
        server->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (server->listener < 0 || bind(server->listener, (struct sockaddr *)&address, sizeof address) != 0) return -1;
        return listen(server->listener, 4);
    }
    server->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (server->listener < 0 || bind(server->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(server->listener, 4) != 0 || getsockname(server->listener, (struct sockaddr *)&address, &length) != 0) {
        return -1;
    }
    server->port = ntohs(address.sin_port);
    return 0;
}

static int make_tls(fake_server *server) {
    const fake_server_options *o = &server->options;
    if (!o->tls_cert) return 0;
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    server->tls = context;
    if (!context || SSL_CTX_use_certificate_chain_file(context, o->tls_cert) != 1 ||
        SSL_CTX_use_PrivateKey_file(context, o->tls_key, SSL_FILETYPE_PEM) != 1) {
        return -1;
    }
    if (o->tls_client_ca) {
        if (SSL_CTX_load_verify_locations(context, o->tls_client_ca, NULL) != 1) return -1;
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return 0;
}

int fake_server_start_with(fake_server *server, fake_behaviour behaviour, const uint8_t *reply, size_t reply_length,
                           const fake_server_options *options) {
    memset(server, 0, sizeof *server);
    server->listener = -1;
    server->stop_pipe[0] = server->stop_pipe[1] = -1;
    server->behaviour = behaviour;
    if (options) server->options = *options;
    if (reply_length > sizeof server->reply) return -1;
    if (reply) memcpy(server->reply, reply, reply_length);
    server->reply_length = reply_length;
    if (pipe2(server->stop_pipe, O_CLOEXEC) != 0 || listen_on(server) != 0 || make_tls(server) != 0) return -1;
    return pthread_create(&server->thread, NULL, serve, server);
}

int fake_server_start(fake_server *server, fake_behaviour behaviour, const uint8_t *reply, size_t reply_length) {
    return fake_server_start_with(server, behaviour, reply, reply_length, NULL);
}

void fake_server_stop(fake_server *server) {
    (void)!write(server->stop_pipe[1], "x", 1);
    pthread_join(server->thread, NULL);
    close(server->listener);
    close(server->stop_pipe[0]);
    close(server->stop_pipe[1]);
    SSL_CTX_free(server->tls);
    if (server->options.unix_path) unlink(server->options.unix_path);
}
