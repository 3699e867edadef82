#define _GNU_SOURCE
#include "socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

int64_t tg_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int tg_poll_timeout(int64_t deadline_ms) {
    if (deadline_ms == 0) return -1;
    int64_t left = deadline_ms - tg_now_ms();
    if (left <= 0) return 0;
    return left > 1000000000 ? 1000000000 : (int)left;
}

/* Connects one address. Returns 0, or an errno value (ETIMEDOUT when the timeout passed). */
static int connect_one(const struct addrinfo *address, int timeout_ms, int *fd_out) {
    int fd = socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, address->ai_protocol);
    if (fd < 0) return errno;
    if (connect(fd, address->ai_addr, address->ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            int failure = errno;
            close(fd);
            return failure;
        }
        int64_t deadline = timeout_ms > 0 ? tg_now_ms() + timeout_ms : 0;
        struct pollfd waiting = {.fd = fd, .events = POLLOUT};
        int ready;
        do {
            ready = poll(&waiting, 1, tg_poll_timeout(deadline));
        } while (ready < 0 && errno == EINTR);
        int failure = 0;
        socklen_t length = sizeof failure;
        if (ready == 0) {
            failure = ETIMEDOUT;
        } else if (ready < 0) {
            failure = errno;
        } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) != 0) {
            failure = errno;
        }
        if (failure) {
            close(fd);
            return failure;
        }
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *fd_out = fd;
    return 0;
}

tollgate_status tg_socket_connect(const char *host, uint16_t port, int timeout_ms, int *fd, tollgate_error *error) {
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *addresses = NULL;
    int resolved = getaddrinfo(host, service, &hints, &addresses);
    if (resolved != 0) {
        return tg_error_set(error, TOLLGATE_CONNECT_FAILED, "cannot resolve %s: %s", host, gai_strerror(resolved));
    }
    int failure = EADDRNOTAVAIL;
    for (const struct addrinfo *address = addresses; address; address = address->ai_next) {
        failure = connect_one(address, timeout_ms, fd);
        if (failure == 0) break;
    }
    freeaddrinfo(addresses);
    if (failure == ETIMEDOUT) {
        return tg_error_set(error, TOLLGATE_TIMEOUT, "connect to %s:%u: no connection within %d ms", host,
                            (unsigned)port, timeout_ms);
    }
    if (failure) {
        return tg_error_set(error, TOLLGATE_CONNECT_FAILED, "connect to %s:%u: %s", host, (unsigned)port,
                            strerror(failure));
    }
    return TOLLGATE_OK;
}

tollgate_status tg_socket_connect_unix(const char *path, int *fd, tollgate_error *error) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length == 0 || length >= sizeof address.sun_path) {
        return tg_error_set(error, TOLLGATE_USAGE, "unix socket path must have 1 to %zu bytes",
                            sizeof address.sun_path - 1);
    }
    memcpy(address.sun_path, path, length + 1);
    int socket_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (socket_fd < 0) return tg_error_set(error, TOLLGATE_CONNECT_FAILED, "socket: %s", strerror(errno));
    int result;
    do {
        result = connect(socket_fd, (struct sockaddr *)&address, sizeof address);
    } while (result != 0 && errno == EINTR);
    if (result != 0) {
        int failure = errno;
        close(socket_fd);
        return tg_error_set(error, TOLLGATE_CONNECT_FAILED, "connect to unix:%s: %s", path, strerror(failure));
    }
    *fd = socket_fd;
    return TOLLGATE_OK;
}

bool tg_socket_is_stale(int fd) {
    uint8_t byte;
    ssize_t peeked;
    do {
        peeked = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    } while (peeked < 0 && errno == EINTR);
    if (peeked < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
    return true; /* 0: the peer closed; > 0: bytes no call is waiting for */
}
