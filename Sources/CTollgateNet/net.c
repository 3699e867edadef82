#define _GNU_SOURCE
#include "CTollgateNet.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <malloc.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

const uint32_t tg_net_readable = EPOLLIN;
const uint32_t tg_net_writable = EPOLLOUT;
const uint32_t tg_net_hangup = EPOLLHUP | EPOLLERR | EPOLLRDHUP;
const uint32_t tg_net_closed = EPOLLHUP | EPOLLERR;
const uint32_t tg_net_exclusive = EPOLLEXCLUSIVE;

int tg_net_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int tg_net_epoll_watch(int epfd, int fd, uint32_t events, uint64_t token, int modify) {
  struct epoll_event event;
  memset(&event, 0, sizeof event);
  // The peer's half close is reported only to a reader (a paused reader would spin on it), and
  // never with EPOLLEXCLUSIVE, which refuses it.
  event.events = (events & EPOLLIN) && !(events & EPOLLEXCLUSIVE) ? (events | EPOLLRDHUP) : events;
  event.data.u64 = token;
  return epoll_ctl(epfd, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

int tg_net_epoll_unwatch(int epfd, int fd) {
  struct epoll_event unused;
  memset(&unused, 0, sizeof unused);
  return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &unused);
}

/// epoll_wait retried on EINTR.
static int epoll_wait_ms(int epfd, struct epoll_event *events, int capacity, int timeout_ms) {
  int n;
  do {
    n = epoll_wait(epfd, events, capacity, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n;
}

/// The first `n` (a wait's result; nothing when negative) of `events` as the caller's events.
static int copy_events(tg_net_event *out, const struct epoll_event *events, int n) {
  for (int i = 0; i < n; i++) {
    out[i].events = events[i].events;
    out[i].token = events[i].data.u64;
  }
  return n;
}

int tg_net_epoll_wait(int epfd, tg_net_event *out, int capacity, int timeout_ms) {
  struct epoll_event events[256];
  if (capacity > 256) capacity = 256;
  return copy_events(out, events, epoll_wait_ms(epfd, events, capacity, timeout_ms));
}

/// 1 once epoll_pwait2 has failed with ENOSYS (an older kernel): the millisecond call from then on.
static atomic_int epoll_pwait2_missing = 0;

/// epoll_pwait2 with a nanosecond timeout (retried on EINTR); -1 with ENOSYS where the kernel
/// (before 5.11) or the headers lack it.
static int epoll_wait_precise(int epfd, struct epoll_event *events, int capacity, int64_t timeout_ns) {
#ifdef SYS_epoll_pwait2
  if (atomic_load_explicit(&epoll_pwait2_missing, memory_order_relaxed)) {
    errno = ENOSYS;
    return -1;
  }
  struct timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
  int n;
  do {
    // No signal mask (NULL, size 0): the same signals as epoll_wait.
    n = (int)syscall(SYS_epoll_pwait2, epfd, events, capacity, timeout_ns < 0 ? NULL : &timeout, NULL, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == ENOSYS) atomic_store_explicit(&epoll_pwait2_missing, 1, memory_order_relaxed);
  return n;
#else
  (void)epfd, (void)events, (void)capacity, (void)timeout_ns;
  errno = ENOSYS;
  return -1;
#endif
}

int tg_net_epoll_wait_ns(int epfd, tg_net_event *out, int capacity, int64_t timeout_ns) {
  struct epoll_event events[256];
  if (capacity > 256) capacity = 256;
  int n = epoll_wait_precise(epfd, events, capacity, timeout_ns);
  if (n < 0 && errno == ENOSYS) {
    int timeout_ms = -1;
    if (timeout_ns >= 0) {
      int64_t ms = (timeout_ns + 999999) / 1000000;
      timeout_ms = ms > INT_MAX ? INT_MAX : (int)ms;
    }
    n = epoll_wait_ms(epfd, events, capacity, timeout_ms);
  }
  return copy_events(out, events, n);
}

int tg_net_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void tg_net_eventfd_signal(int fd) {
  uint64_t one = 1;
  // EAGAIN only when the counter is saturated: the loop is already due to wake.
  while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void tg_net_eventfd_drain(int fd) {
  uint64_t count;
  while (read(fd, &count, sizeof count) < 0 && errno == EINTR) {
  }
}

/// Resolves host:port and, for each address in turn, makes a socket (with `socket_flags`) and
/// hands it to `attempt` until one returns 0: that socket. Otherwise -1 with errno from the last
/// failure; with *unresolved set when the host did not resolve (and errno not from the system).
typedef int (*tg_attempt)(int fd, const struct addrinfo *address, void *context);
static int first_socket(const char *host, int port, int passive, int socket_flags, tg_attempt attempt, void *context,
                        int *unresolved) {
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  struct addrinfo hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  struct addrinfo *found = NULL;
  int status = getaddrinfo(host, service, &hints, &found);
  *unresolved = status != 0 && status != EAI_SYSTEM;
  if (status != 0) return -1;
  int fd = -1;
  int saved = EADDRNOTAVAIL;
  for (struct addrinfo *a = found; a != NULL; a = a->ai_next) {
    fd = socket(a->ai_family, SOCK_STREAM | socket_flags, 0);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    if (attempt(fd, a, context) == 0) break;
    saved = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) errno = saved;
  return fd;
}

static int bind_and_listen(int fd, const struct addrinfo *address, void *backlog) {
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, address->ai_addr, address->ai_addrlen) != 0) return -1;
  return listen(fd, *(int *)backlog);
}

static int connect_without_delay(int fd, const struct addrinfo *address, void *unused) {
  (void)unused;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return connect(fd, address->ai_addr, address->ai_addrlen);
}

int tg_net_listen(const char *host, int port, int backlog, int *bound_port, char *address, size_t address_capacity) {
  int unresolved = 0;
  int fd = first_socket(host, port, 1, SOCK_CLOEXEC | SOCK_NONBLOCK, bind_and_listen, &backlog, &unresolved);
  if (fd < 0 && unresolved) {
    errno = EADDRNOTAVAIL;
    return -2;
  }
  if (fd < 0) return -1;
  struct sockaddr_storage bound;
  socklen_t length = sizeof bound;
  char port_text[16];
  if (getsockname(fd, (struct sockaddr *)&bound, &length) != 0 ||
      getnameinfo((struct sockaddr *)&bound, length, address, address_capacity, port_text, sizeof port_text,
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  *bound_port = atoi(port_text);
  return fd;
}

int tg_net_accept(int listen_fd) {
  int fd;
  do {
    fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

int tg_net_peer_source(int fd, uint64_t *value) {
  struct sockaddr_storage address;
  socklen_t length = sizeof address;
  if (getpeername(fd, (struct sockaddr *)&address, &length) != 0) return -1;
  switch (address.ss_family) {
  case AF_INET: {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)&address;
    *value = ntohl(v4->sin_addr.s_addr);
    return 4;
  }
  case AF_INET6: {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&address;
    const uint8_t *bytes = v6->sin6_addr.s6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      *value = (uint64_t)bytes[12] << 24 | (uint64_t)bytes[13] << 16 | (uint64_t)bytes[14] << 8 | bytes[15];
      return 4;
    }
    uint64_t prefix = 0;
    for (int i = 0; i < 8; i++) prefix = prefix << 8 | bytes[i];
    *value = prefix;
    return 6;
  }
  case AF_UNIX: {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    *value = credentials.uid;
    return 1;
  }
  default:
    errno = EAFNOSUPPORT;
    return -1;
  }
}

long tg_net_send(int fd, const void *bytes, size_t count) {
  long n;
  do {
    n = send(fd, bytes, count, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

void tg_net_name_thread(const char *name) {
  char truncated[16];
  snprintf(truncated, sizeof truncated, "%s", name);
  pthread_setname_np(pthread_self(), truncated);
}

uint64_t tg_net_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int tg_net_connect(const char *host, int port) {
  int unresolved = 0;
  int fd = first_socket(host, port, 0, SOCK_CLOEXEC, connect_without_delay, NULL, &unresolved);
  if (fd < 0) {
    if (unresolved) errno = EHOSTUNREACH;
    return -1;
  }
  int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  return fd;
}

int tg_net_listen_unix(const char *path, int backlog) {
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof address.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(address.sun_path, path);
  // A socket file left by a server that is gone is replaced; any other file is not.
  struct stat existing;
  if (lstat(path, &existing) == 0) {
    if (!S_ISSOCK(existing.st_mode)) {
      errno = EEXIST;
      return -1;
    }
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0) {
      int alive = connect(probe, (struct sockaddr *)&address, sizeof address) == 0;
      close(probe);
      if (alive) {
        errno = EADDRINUSE;
        return -1;
      }
    }
    unlink(path);
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  // The socket file gets an explicit mode, 0660 (owner and group may connect; never what the
  // umask leaves), set before listen(): until then nobody can connect, so there is no moment it
  // is open to others (issue 25 item 7).
  if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 ||
      chmod(path, S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP) != 0 ||
      listen(fd, backlog) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

void tg_net_release_free_memory(void) { malloc_trim(0); }
