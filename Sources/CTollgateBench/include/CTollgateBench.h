#ifndef CTOLLGATE_BENCH_H
#define CTOLLGATE_BENCH_H

#include <stdint.h>

/// The Linux calls the load generator needs and Swift's Glibc module does not export: epoll
/// (whose event struct is packed on x86-64) and a monotonic clock in nanoseconds.

typedef struct {
  uint32_t events;
  uint64_t token;
} tg_bench_event;

/// epoll_create1(EPOLL_CLOEXEC); -1 and errno on failure.
int tg_bench_epoll_create(void);
/// Registers (or, with modify != 0, changes) fd for readable (and writable when want_write).
int tg_bench_epoll_watch(int epfd, int fd, int want_write, uint64_t token, int modify);
/// epoll_wait into out[0..<capacity]; returns the count, 0 on timeout, -1 and errno on failure.
int tg_bench_epoll_wait(int epfd, tg_bench_event *out, int capacity, int timeout_ms);

extern const uint32_t tg_bench_readable;
extern const uint32_t tg_bench_writable;
extern const uint32_t tg_bench_hangup;

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t tg_bench_now_ns(void);

/// A non-blocking TCP connection to host (a name or an address) with TCP_NODELAY, connected
/// (blocking connect, then non-blocking); -1 and errno on failure.
int tg_bench_connect(const char *host, int port);

#endif
