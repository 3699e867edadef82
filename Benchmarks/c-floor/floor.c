// The floor: a minimal single-threaded epoll server that speaks Tollgate's wire protocol
// (protobuf-c-rpc's default framing) and answers IsSubscriber from a hash table of synthetic
// users, the same users `tollgate seed` writes (PREFIX0 … PREFIX{N-1}, all entitled). It does the
// least any server must do per request — parse the frame and the request, look the user up,
// encode an answer of the same shape and size as Tollgate's — as fast as this machine allows:
// every ready connection is read first, every request of the round parsed and its user's slot
// prefetched, then all are answered (the lookups' cache misses overlap), then each connection's
// answers go out in one send; a user is one 64-byte slot with its id inline (one miss per
// lookup). Nothing else: no validation beyond bounds, no change feed, no GetSubscription
// (answered SERVICE_FAILED). It is what this machine can do for this protocol, to measure
// Tollgate against.
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

// One user per cache line: a lookup that finds its user in its first slot costs one miss. Users
// of up to 22 bytes live in the slot (every synthetic user does); longer ones point elsewhere.
enum { INLINE_USER = 22, SUBSCRIPTION_ID = 20 };
typedef struct {
  uint32_t tag;  // the hash's high half with its low bit set; 0 = empty slot
  uint8_t user_length;  // 255: the user is longer than INLINE_USER, see `user`
  uint8_t subscription_id_length;
  union {
    char bytes[INLINE_USER];
    struct {
      char *pointer;
      uint32_t length;
    } __attribute__((packed)) outside;
  } user;
  char subscription_id[SUBSCRIPTION_ID];
  int64_t expires_at_ms;
  int64_t verified_at_ms;
} Slot;
_Static_assert(sizeof(Slot) == 64, "a slot is one cache line");

typedef struct {
  Slot *slots;
  uint64_t mask;
} Table;

typedef struct {
  int fd;
  uint8_t *in;
  size_t in_length, in_capacity, in_consumed;
  uint8_t *out;
  size_t out_length, out_sent, out_capacity;
  int watching_out, alive, ready;
} Connection;

// One request of the current round: parsed first for every ready connection, looked up and
// answered after, so the table's cache misses overlap instead of queueing.
typedef struct {
  Connection *connection;
  const uint8_t *header;  // the request frame's header (method, length, id)
  const uint8_t *user;
  uint32_t user_length;
  int status;  // 0: IsSubscriber to look up; 1: look nothing up (wrong entitlement); 2: SERVICE_FAILED
  uint64_t hash;
} Job;

static Table table;
static const char *entitlement = "premium";
static size_t entitlement_length;
static char product_id[128];
static size_t product_id_length;

static uint64_t hash(const uint8_t *bytes, size_t length) {  // word at a time, then mixed
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (length * 0xff51afd7ed558ccdull);
  while (length >= 8) {
    uint64_t word;
    memcpy(&word, bytes, 8);
    h = (h ^ word) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    bytes += 8, length -= 8;
  }
  if (length) {
    uint64_t word = 0;
    memcpy(&word, bytes, length);
    h = (h ^ word) * 0xc4ceb9fe1a85ec53ull;
  }
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

static uint32_t tag_of(uint64_t h) { return (uint32_t)(h >> 32) | 1; }

static int same_user(const Slot *s, const uint8_t *user, size_t length) {
  if (s->user_length == 255)
    return s->user.outside.length == length && memcmp(s->user.outside.pointer, user, length) == 0;
  return s->user_length == length && memcmp(s->user.bytes, user, length) == 0;
}

static const Slot *lookup(const uint8_t *user, size_t length, uint64_t h) {
  uint32_t tag = tag_of(h);
  for (uint64_t i = h & table.mask;; i = (i + 1) & table.mask) {
    const Slot *s = &table.slots[i];
    if (!s->tag) return NULL;
    if (s->tag == tag && same_user(s, user, length)) return s;
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
  table.slots = aligned_alloc(64, size * sizeof(Slot));
  memset(table.slots, 0, size * sizeof(Slot));
  table.mask = size - 1;
  int64_t now = now_ms();
  char user[256];
  for (uint64_t n = 0; n < users; n++) {
    int length = snprintf(user, sizeof user, "%s%llu", prefix, (unsigned long long)n);
    uint64_t h = hash((uint8_t *)user, (size_t)length), i = h & table.mask;
    while (table.slots[i].tag) i = (i + 1) & table.mask;
    Slot *s = &table.slots[i];
    s->tag = tag_of(h);
    if (length <= INLINE_USER) {
      s->user_length = (uint8_t)length;
      memcpy(s->user.bytes, user, (size_t)length);
    } else {
      s->user_length = 255;
      s->user.outside.pointer = strndup(user, (size_t)length);
      s->user.outside.length = (uint32_t)length;
    }
    s->expires_at_ms = now + (int64_t)(n % 30 + 1) * 86400000;
    s->verified_at_ms = now;
    s->subscription_id_length = (uint8_t)snprintf(s->subscription_id, sizeof s->subscription_id, "%llu",
                                                  2000000000000ull + (unsigned long long)n);
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

// Encodes IsSubscriberResponse with the fields Tollgate fills at `out`; returns its length (at
// most 128 bytes beside the product id).
static size_t encode_answer(uint8_t *out, const Slot *s, int64_t now) {
  uint8_t *p = out;
  if (s) {
    int active = s->expires_at_ms > now;
    *p++ = 0x08, *p++ = (uint8_t)active;                          // active
    *p++ = 0x10, p = put_varint(p, (uint64_t)s->expires_at_ms);  // expires_at_ms
    *p++ = 0x18, *p++ = active ? 3 : 6;                          // state ACTIVE or EXPIRED
    *p++ = 0x20, *p++ = 1;                                       // will_renew
    *p++ = 0x28, *p++ = 1;                                       // store APP_STORE
    p = put_string(p, 0x32, product_id, product_id_length);     // product_id
    *p++ = 0x38, *p++ = 1;                                       // environment PRODUCTION
    *p++ = 0x40, p = put_varint(p, (uint64_t)s->verified_at_ms);
  }
  *p++ = 0x50, p = put_varint(p, (uint64_t)now);  // evaluated_at_ms
  if (s) p = put_string(p, 0x5a, s->subscription_id, s->subscription_id_length);
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

static Job *jobs;
static size_t job_count, job_capacity;

// Reads what the connection has; 0 if it closed or failed.
static int take_in(Connection *c) {
  for (;;) {
    reserve(&c->in, &c->in_capacity, c->in_length + 65536);
    size_t room = c->in_capacity - c->in_length;
    ssize_t got = read(c->fd, c->in + c->in_length, room);
    if (got > 0) {
      c->in_length += (size_t)got;
      if ((size_t)got < room) return 1;
    } else if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return 1;
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      return 0;
    }
  }
}

// Turns every complete frame in the connection's input into a job; 0 if a frame is too long.
static int parse_frames(Connection *c) {
  size_t offset = 0;
  while (c->in_length - offset >= 12) {
    const uint8_t *h = c->in + offset;
    uint32_t method = get_u32(h), length = get_u32(h + 4);
    if (length > MAX_PAYLOAD) return 0;
    if (c->in_length - offset < 12 + (size_t)length) break;
    if (job_count == job_capacity) {
      job_capacity = job_capacity ? job_capacity * 2 : 1024;
      jobs = realloc(jobs, job_capacity * sizeof(Job));
    }
    Job *job = &jobs[job_count++];
    job->connection = c;
    job->header = h;
    const uint8_t *body = h + 12, *user, *ent;
    size_t user_length, ent_length;
    if (method == 0 && parse_request(body, body + length, &user, &user_length, &ent, &ent_length)) {
      if (user && ent && ent_length == entitlement_length && memcmp(ent, entitlement, ent_length) == 0) {
        job->status = 0;
        job->user = user;
        job->user_length = (uint32_t)user_length;
        job->hash = hash(user, user_length);
        __builtin_prefetch(&table.slots[job->hash & table.mask]);
      } else {
        job->status = 1;
      }
    } else {
      job->status = 2;
    }
    offset += 12 + length;
  }
  c->in_consumed = offset;
  return 1;
}

// Answers one job at the end of its connection's output.
static void answer(const Job *job, int64_t now) {
  Connection *c = job->connection;
  reserve(&c->out, &c->out_capacity, c->out_length + 16 + 160 + product_id_length);
  uint8_t *p = c->out + c->out_length;
  uint32_t status = job->status == 2, length = 0;
  if (job->status != 2)
    length = (uint32_t)encode_answer(p + 16, job->status == 0 ? lookup(job->user, job->user_length, job->hash) : NULL,
                                     now);
  put_u32(p, status), put_u32(p + 4, get_u32(job->header)), put_u32(p + 8, length);
  memcpy(p + 12, job->header + 8, 4);
  c->out_length += 16 + length;
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
  product_id_length = (size_t)snprintf(product_id, sizeof product_id, "%s_monthly", entitlement);
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

  // Each round: read every ready connection, parse all their frames (hashing and prefetching
  // each user's slot), answer them all, then write each connection's answers with one send.
  struct epoll_event events[MAX_EVENTS];
  Connection *ready[MAX_EVENTS];
  enum { PREFETCH_AHEAD = 8 };
  for (;;) {
    int n = epoll_wait(epfd, events, MAX_EVENTS, -1);
    if (n < 0 && errno == EINTR) continue;
    int count = 0;
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
      c->alive = 1;
      c->in_consumed = 0;
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) c->alive = take_in(c);
      ready[count++] = c;
    }
    job_count = 0;
    for (int i = 0; i < count; i++)
      if (ready[i]->alive) ready[i]->alive = parse_frames(ready[i]);
    int64_t now = now_ms();
    for (size_t j = 0; j < job_count; j++) {
      if (j + PREFETCH_AHEAD < job_count) {
        const Job *later = &jobs[j + PREFETCH_AHEAD];
        if (later->status == 0) __builtin_prefetch(&table.slots[later->hash & table.mask]);
      }
      if (jobs[j].connection->alive) answer(&jobs[j], now);
    }
    for (int i = 0; i < count; i++) {
      Connection *c = ready[i];
      if (c->alive && c->in_consumed) {
        memmove(c->in, c->in + c->in_consumed, c->in_length - c->in_consumed);
        c->in_length -= c->in_consumed;
      }
      if (c->alive) c->alive = flush(epfd, c);
      if (!c->alive) drop(c);
    }
  }
}
