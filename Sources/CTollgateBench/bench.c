#define _GNU_SOURCE
#include "CTollgateBench.h"

#include <netdb.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const uint32_t tg_bench_readable = EPOLLIN;
const uint32_t tg_bench_writable = EPOLLOUT;
const uint32_t tg_bench_hangup = EPOLLHUP | EPOLLERR | EPOLLRDHUP;

int tg_bench_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int tg_bench_epoll_watch(int epfd, int fd, int want_write, uint64_t token, int modify) {
  struct epoll_event event;
  memset(&event, 0, sizeof event);
  event.events = EPOLLIN | EPOLLRDHUP | (want_write ? EPOLLOUT : 0);
  event.data.u64 = token;
  return epoll_ctl(epfd, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

int tg_bench_epoll_wait(int epfd, tg_bench_event *out, int capacity, int timeout_ms) {
  struct epoll_event events[256];
  if (capacity > 256) capacity = 256;
  int n;
  do {
    n = epoll_wait(epfd, events, capacity, timeout_ms);
  } while (n < 0 && errno == EINTR);
  for (int i = 0; i < n; i++) {
    out[i].events = events[i].events;
    out[i].token = events[i].data.u64;
  }
  return n;
}

uint64_t tg_bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int tg_bench_connect(const char *host, int port) {
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo *found = NULL;
  int status = getaddrinfo(host, service, &hints, &found);
  if (status != 0) {
    errno = status == EAI_SYSTEM ? errno : EHOSTUNREACH;
    return -1;
  }
  int fd = -1;
  int saved = ECONNREFUSED;
  for (struct addrinfo *a = found; a != NULL; a = a->ai_next) {
    fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    saved = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    errno = saved;
    return -1;
  }
  int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  return fd;
}
