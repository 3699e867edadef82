#ifndef CTOLLGATE_NET_H
#define CTOLLGATE_NET_H

#include <stddef.h>
#include <stdint.h>

/// The Linux calls that the RPC server's event loops and the load generator need and Swift's Glibc
/// module does not export (epoll, whose event struct is packed on x86-64; eventfd; accept4; a
/// monotonic clock), plus socket set-up that is clearer in C. Every function returns -1 and sets
/// errno on failure unless it says otherwise.

typedef struct {
  uint32_t events;
  uint64_t token;
} tg_net_event;

extern const uint32_t tg_net_readable;
extern const uint32_t tg_net_writable;
/// Hang-up, error or the peer's half close.
extern const uint32_t tg_net_hangup;
/// Hang-up or error: the connection is gone both ways.
extern const uint32_t tg_net_closed;
/// Only one of the epoll sets watching this fd is woken (a listening socket shared by loops).
extern const uint32_t tg_net_exclusive;

/// epoll_create1(EPOLL_CLOEXEC).
int tg_net_epoll_create(void);
/// Registers (or, with modify != 0, changes) fd for `events` (a union of the constants above).
/// Hang-up and error are always reported; the peer's half close only with `tg_net_readable`.
int tg_net_epoll_watch(int epfd, int fd, uint32_t events, uint64_t token, int modify);
/// Stops watching fd.
int tg_net_epoll_unwatch(int epfd, int fd);
/// epoll_wait into out[0..<capacity] (retried on EINTR); the count, 0 on timeout.
int tg_net_epoll_wait(int epfd, tg_net_event *out, int capacity, int timeout_ms);
/// The same with a timeout in nanoseconds (negative: wait forever), for waits shorter than a
/// millisecond: epoll_pwait2 (Linux 5.11+); on older kernels the timeout is rounded up to whole
/// milliseconds (never down to a busy poll).
int tg_net_epoll_wait_ns(int epfd, tg_net_event *out, int capacity, int64_t timeout_ns);

/// A non-blocking eventfd (a loop's wake-up).
int tg_net_eventfd(void);
/// Adds one to the eventfd, waking its loop.
void tg_net_eventfd_signal(int fd);
/// Resets the eventfd.
void tg_net_eventfd_drain(int fd);

/// A non-blocking listening TCP socket on host (a name or an address; resolved, first address
/// that binds) and port (0: any), with SO_REUSEADDR. Writes the bound port and the numeric
/// address (at most address_capacity bytes with the NUL) on success. -1 and errno on a system
/// error; -2 when the host does not resolve.
int tg_net_listen(const char *host, int port, int backlog, int *bound_port, char *address, size_t address_capacity);
/// A non-blocking listening Unix domain socket at path. A socket file nobody listens on any more is
/// replaced; EADDRINUSE when a server listens there, EEXIST when path is another kind of file.
/// The socket file is made 0660 (its owner and group may connect) before it listens.
int tg_net_listen_unix(const char *path, int backlog);
/// Gives memory the allocator keeps after large frees back to the system (malloc_trim).
void tg_net_release_free_memory(void);
/// accept4 a connection, non-blocking and close-on-exec, with TCP_NODELAY.
int tg_net_accept(int listen_fd);
/// Where a connection's peer is, as a limiter counts it: 4 with the IPv4 address in *value (an
/// IPv4-mapped IPv6 address too), 6 with the IPv6 address's first 64 bits (its /64), 1 with the
/// peer's user id for a Unix domain socket (SO_PEERCRED); -1 and errno when it cannot be told.
int tg_net_peer_source(int fd, uint64_t *value);
/// send(2) without SIGPIPE; the count written.
long tg_net_send(int fd, const void *bytes, size_t count);

/// A non-blocking TCP connection to host (a name or an address) with TCP_NODELAY, connected
/// (blocking connect, then non-blocking).
int tg_net_connect(const char *host, int port);

/// Names the calling thread (Linux keeps 15 characters).
void tg_net_name_thread(const char *name);

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t tg_net_now_ns(void);

#endif
