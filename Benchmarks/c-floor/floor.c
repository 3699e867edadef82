// The floor: a minimal single-threaded epoll server that speaks Tollgate's wire protocol
// (protobuf-c-rpc's default framing) and answers IsSubscriber from a hash table of synthetic
// users, the same users `tollgate seed` writes (PREFIX0 … PREFIX{N-1}, all entitled). It does the
// least any server must do per request — parse the frame and the request, look the user up,
// encode an answer of the same shape and size as Tollgate's, write once per read burst — and
// nothing else: no validation beyond bounds, no change feed, no GetSubscription (answered
// SERVICE_FAILED). It is what this machine can do for this protocol, to measure Tollgate against.
//
// usage: floor [--listen HOST:PORT] [--users N] [--user-prefix P] [--entitlement E]

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_EVENTS = 256, MAX_PAYLOAD = 1 << 20 };

typedef struct {
  char *user;
  uint32_t user_length;
  int64_t expires_at_ms;
  int64_t verified_at_ms;
  char subscription_id[24];
} Entry;

typedef struct {
  Entry *slots;
  uint64_t mask;
} Table;

typedef struct {
  int fd;
  uint8_t *in;
  size_t in_length, in_capacity;
  uint8_t *out;
  size_t out_length, out_sent, out_capacity;
  int watching_out;
} Connection;

static Table table;
static const char *entitlement = "premium";
static size_t entitlement_length;
static char product_id[128];

static uint64_t hash(const uint8_t *bytes, size_t length) {  // FNV-1a
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < length; i++) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

static const Entry *lookup(const uint8_t *user, size_t length) {
  for (uint64_t i = hash(user, length) & table.mask;; i = (i + 1) & table.mask) {
    const Entry *e = &table.slots[i];
    if (!e->user) return NULL;
    if (e->user_length == length && memcmp(e->user, user, length) == 0) return e;
  }
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fill(uint64_t users, const char *prefix) {
  uint64_t size = 1;
  while (size < users * 2) size <<= 1;
  table.slots = calloc(size, sizeof(Entry));
  table.mask = size - 1;
  int64_t now = now_ms();
  char user[256];
  for (uint64_t n = 0; n < users; n++) {
    int length = snprintf(user, sizeof user, "%s%llu", prefix, (unsigned long long)n);
    uint64_t i = hash((uint8_t *)user, (size_t)length) & table.mask;
    while (table.slots[i].user) i = (i + 1) & table.mask;
    Entry *e = &table.slots[i];
    e->user = strndup(user, (size_t)length);
    e->user_length = (uint32_t)length;
    e->expires_at_ms = now + (int64_t)(n % 30 + 1) * 86400000;
    e->verified_at_ms = now;
    snprintf(e->subscription_id, sizeof e->subscription_id, "%llu", 2000000000000ull + (unsigned long long)n);
  }
}

// --- protobuf, by hand -------------------------------------------------------------------

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *value = v;
      return 1;
    }
  }
  return 0;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

static uint8_t *put_string(uint8_t *p, uint8_t tag, const char *s, size_t length) {
  *p++ = tag;
  p = put_varint(p, length);
  memcpy(p, s, length);
  return p + length;
}

// Parses IsSubscriberRequest{user_id = 1, entitlement = 2}; 0 if it does not decode.
static int parse_request(const uint8_t *p, const uint8_t *end, const uint8_t **user, size_t *user_length,
                         const uint8_t **ent, size_t *ent_length) {
  *user = *ent = NULL;
  *user_length = *ent_length = 0;
  while (p < end) {
    uint64_t key, length;
    if (!read_varint(&p, end, &key)) return 0;
    if ((key & 7) == 2) {
      if (!read_varint(&p, end, &length) || length > (uint64_t)(end - p)) return 0;
      if (key >> 3 == 1) *user = p, *user_length = length;
      if (key >> 3 == 2) *ent = p, *ent_length = length;
      p += length;
    } else if ((key & 7) == 0) {
      uint64_t ignored;
      if (!read_varint(&p, end, &ignored)) return 0;
    } else {
      return 0;
    }
  }
  return 1;
}

// Encodes IsSubscriberResponse with the fields Tollgate fills; returns its length.
static size_t encode_answer(uint8_t *out, const Entry *e, int64_t now) {
  uint8_t *p = out;
  if (e) {
    *p++ = 0x08, *p++ = 1;                                    // active
    *p++ = 0x10, p = put_varint(p, (uint64_t)e->expires_at_ms);  // expires_at_ms
    *p++ = 0x18, *p++ = 3;                                    // state ACTIVE
    *p++ = 0x20, *p++ = 1;                                    // will_renew
    *p++ = 0x28, *p++ = 1;                                    // store APP_STORE
    p = put_string(p, 0x32, product_id, strlen(product_id));  // product_id
    *p++ = 0x38, *p++ = 1;                                    // environment PRODUCTION
    *p++ = 0x40, p = put_varint(p, (uint64_t)e->verified_at_ms);
  }
  *p++ = 0x50, p = put_varint(p, (uint64_t)now);  // evaluated_at_ms
  if (e) p = put_string(p, 0x5a, e->subscription_id, strlen(e->subscription_id));
  return (size_t)(p - out);
}

// --- connections ------------------------------------------------------------------------

static void reserve(uint8_t **buffer, size_t *capacity, size_t needed) {
  if (needed <= *capacity) return;
  size_t c = *capacity ? *capacity : 4096;
  while (c < needed) c *= 2;
  *buffer = realloc(*buffer, c);
  *capacity = c;
}

static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }  // little-endian hosts only
static uint32_t get_u32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static void answer(Connection *c, uint32_t status, uint32_t method, const uint8_t *id, const uint8_t *payload,
                   size_t length) {
  reserve(&c->out, &c->out_capacity, c->out_length + 16 + length);
  uint8_t *p = c->out + c->out_length;
  put_u32(p, status), put_u32(p + 4, method), put_u32(p + 8, (uint32_t)length);
  memcpy(p + 12, id, 4);
  if (length) memcpy(p + 16, payload, length);
  c->out_length += 16 + length;
}

// Answers every complete frame in the input buffer; returns 0 if the connection must close.
static int process(Connection *c) {
  size_t offset = 0;
  int64_t now = now_ms();
  uint8_t payload[512];
  while (c->in_length - offset >= 12) {
    const uint8_t *h = c->in + offset;
    uint32_t method = get_u32(h), length = get_u32(h + 4);
    if (length > MAX_PAYLOAD) return 0;
    if (c->in_length - offset < 12 + (size_t)length) break;
    const uint8_t *body = h + 12, *user, *ent;
    size_t user_length, ent_length;
    if (method == 0 && parse_request(body, body + length, &user, &user_length, &ent, &ent_length)) {
      const Entry *e = NULL;
      if (user && ent && ent_length == entitlement_length && memcmp(ent, entitlement, ent_length) == 0)
        e = lookup(user, user_length);
      answer(c, 0, method, h + 8, payload, encode_answer(payload, e, now));
    } else {
      answer(c, 1, method, h + 8, NULL, 0);
    }
    offset += 12 + length;
  }
  memmove(c->in, c->in + offset, c->in_length - offset);
  c->in_length -= offset;
  return 1;
}

static void watch(int epfd, Connection *c, int out) {
  struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
  c->watching_out = out;
}

static int flush(int epfd, Connection *c) {
  while (c->out_sent < c->out_length) {
    ssize_t n = send(c->fd, c->out + c->out_sent, c->out_length - c->out_sent, MSG_NOSIGNAL);
    if (n > 0) {
      c->out_sent += (size_t)n;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!c->watching_out) watch(epfd, c, 1);
      return 1;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return 0;
    }
  }
  c->out_length = c->out_sent = 0;
  if (c->watching_out) watch(epfd, c, 0);
  return 1;
}

static void drop(Connection *c) {
  close(c->fd);
  free(c->in);
  free(c->out);
  free(c);
}

int main(int argc, char **argv) {
  const char *listen_at = "127.0.0.1:7801", *prefix = "user-";
  uint64_t users = 100000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--listen")) listen_at = argv[i + 1];
    else if (!strcmp(argv[i], "--users")) users = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--user-prefix")) prefix = argv[i + 1];
    else if (!strcmp(argv[i], "--entitlement")) entitlement = argv[i + 1];
    else {
      fprintf(stderr, "usage: floor [--listen HOST:PORT] [--users N] [--user-prefix P] [--entitlement E]\n");
      return 2;
    }
  }
  entitlement_length = strlen(entitlement);
  snprintf(product_id, sizeof product_id, "%s_monthly", entitlement);
  signal(SIGPIPE, SIG_IGN);
  fill(users, prefix);

  char host[64];
  const char *colon = strrchr(listen_at, ':');
  if (!colon || (size_t)(colon - listen_at) >= sizeof host) return fprintf(stderr, "bad --listen\n"), 2;
  memcpy(host, listen_at, (size_t)(colon - listen_at));
  host[colon - listen_at] = 0;
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
  if (inet_pton(AF_INET, host, &address.sin_addr) != 1) return fprintf(stderr, "bad host %s\n", host), 2;
  int server = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
  setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(server, (struct sockaddr *)&address, sizeof address) || listen(server, 1024)) {
    perror("bind/listen");
    return 1;
  }
  int epfd = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(epfd, EPOLL_CTL_ADD, server, &ev);
  printf("floor listening on %s with %llu users\n", listen_at, (unsigned long long)users);
  fflush(stdout);

  struct epoll_event events[MAX_EVENTS];
  for (;;) {
    int n = epoll_wait(epfd, events, MAX_EVENTS, -1);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < n; i++) {
      Connection *c = events[i].data.ptr;
      if (!c) {
        int fd;
        while ((fd = accept4(server, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          Connection *fresh = calloc(1, sizeof *fresh);
          fresh->fd = fd;
          struct epoll_event cev = {.events = EPOLLIN, .data.ptr = fresh};
          epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &cev);
        }
        continue;
      }
      int alive = 1;
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        for (;;) {
          reserve(&c->in, &c->in_capacity, c->in_length + 65536);
          ssize_t got = read(c->fd, c->in + c->in_length, c->in_capacity - c->in_length);
          if (got > 0) {
            c->in_length += (size_t)got;
            if ((size_t)got < 65536) break;
          } else if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
          } else if (got < 0 && errno == EINTR) {
            continue;
          } else {
            alive = 0;
            break;
          }
        }
        if (alive) alive = process(c);
      }
      if (alive) alive = flush(epfd, c);
      if (!alive) drop(c);
    }
  }
}
