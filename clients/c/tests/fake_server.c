#define _GNU_SOURCE
#include "fake_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Reads exactly `length` bytes unless stopped; returns 0 on success. */
static int read_exactly(fake_server *server, int fd, uint8_t *out, size_t length) {
    size_t got = 0;
    while (got < length) {
        struct pollfd waiting[2] = {{.fd = fd, .events = POLLIN}, {.fd = server->stop_pipe[0], .events = POLLIN}};
        if (poll(waiting, 2, -1) < 0 || waiting[1].revents) return -1;
        ssize_t n = recv(fd, out + got, length - got, 0);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

static void *serve(void *argument) {
    fake_server *server = argument;
    struct pollfd waiting[2] = {{.fd = server->listener, .events = POLLIN},
                                {.fd = server->stop_pipe[0], .events = POLLIN}};
    if (poll(waiting, 2, -1) < 0 || waiting[1].revents) return NULL;
    int fd = accept(server->listener, NULL, NULL);
    if (fd < 0) return NULL;
    uint8_t header[12], payload[4096];
    if (read_exactly(server, fd, header, sizeof header) == 0) {
        uint32_t length = (uint32_t)header[4] | (uint32_t)header[5] << 8 | (uint32_t)header[6] << 16 |
                          (uint32_t)header[7] << 24;
        if (length <= sizeof payload && read_exactly(server, fd, payload, length) == 0) {
            if (server->behaviour == FAKE_REPLY) {
                uint8_t reply[sizeof server->reply];
                memcpy(reply, server->reply, server->reply_length);
                if (server->reply_length >= 16) memcpy(reply + 12, header + 8, 4);
                (void)!send(fd, reply, server->reply_length, MSG_NOSIGNAL);
            }
            if (server->behaviour != FAKE_HANG_UP) {
                struct pollfd stop = {.fd = server->stop_pipe[0], .events = POLLIN};
                poll(&stop, 1, -1);
            }
        }
    }
    close(fd);
    return NULL;
}

int fake_server_start(fake_server *server, fake_behaviour behaviour, const uint8_t *reply, size_t reply_length) {
    memset(server, 0, sizeof *server);
    server->behaviour = behaviour;
    if (reply_length > sizeof server->reply) return -1;
    if (reply) memcpy(server->reply, reply, reply_length);
    server->reply_length = reply_length;
    if (pipe2(server->stop_pipe, O_CLOEXEC) != 0) return -1;
    server->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (server->listener < 0 || bind(server->listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(server->listener, 4) != 0 || getsockname(server->listener, (struct sockaddr *)&address, &length) != 0) {
        return -1;
    }
    server->port = ntohs(address.sin_port);
    return pthread_create(&server->thread, NULL, serve, server);
}

void fake_server_stop(fake_server *server) {
    (void)!write(server->stop_pipe[1], "x", 1);
    pthread_join(server->thread, NULL);
    close(server->listener);
    close(server->stop_pipe[0]);
    close(server->stop_pipe[1]);
}
