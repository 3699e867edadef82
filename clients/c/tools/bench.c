/* tollgate-c-bench: IsSubscriber round trips per second on one connection, unpipelined (one call
 * at a time) and pipelined (a window of DEPTH calls in flight), against a seeded server.
 *
 *   tollgate-c-bench [--server HOST:PORT] [--seconds S] [--depth N] [--users N] [--entitlement E]
 *
 * Queries cycle through user-0 .. user-(N-1), as `tollgate seed --users N` creates them.
 * Prints one line per mode; exits 2 when a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tollgate.h"

static double now_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

typedef struct settings {
    char host[256];
    uint16_t port;
    double seconds;
    size_t depth;
    int users;
    const char *entitlement;
} settings;

static int unpipelined(tollgate_client *client, const settings *s) {
    char user[32];
    long calls = 0;
    double started = now_seconds(), elapsed = 0;
    while (elapsed < s->seconds) {
        snprintf(user, sizeof user, "user-%ld", calls % s->users);
        tollgate_is_subscriber_result *result = NULL;
        tollgate_error error;
        if (tollgate_is_subscriber(client, user, s->entitlement, &result, &error) != TOLLGATE_OK) {
            fprintf(stderr, "tollgate-c-bench: %s: %s\n", tollgate_status_name(error.code), error.message);
            return 2;
        }
        tollgate_is_subscriber_result_free(result);
        calls++;
        if ((calls & 63) == 0) elapsed = now_seconds() - started;
    }
    elapsed = now_seconds() - started;
    printf("c unpipelined: %.0f round trips/s (%ld calls in %.2f s, 1 connection)\n", calls / elapsed, calls, elapsed);
    return 0;
}

static int pipelined(tollgate_client *client, const settings *s) {
    enum { BATCH = 4096 };
    static char ids[BATCH][32];
    static tollgate_query queries[BATCH];
    static tollgate_is_subscriber_item items[BATCH];
    for (int i = 0; i < BATCH; i++) {
        snprintf(ids[i], sizeof ids[i], "user-%d", i % s->users);
        queries[i] = (tollgate_query){.user_id = ids[i], .entitlement = s->entitlement};
    }
    long calls = 0;
    double started = now_seconds(), elapsed = 0;
    while (elapsed < s->seconds) {
        tollgate_error error;
        tollgate_status status = tollgate_is_subscriber_batch(client, queries, BATCH, s->depth, items, &error);
        for (int i = 0; status == TOLLGATE_OK && i < BATCH; i++) {
            if (items[i].error.code != TOLLGATE_OK) {
                status = items[i].error.code;
                error = items[i].error;
            }
        }
        tollgate_is_subscriber_items_clear(items, BATCH);
        if (status != TOLLGATE_OK) {
            fprintf(stderr, "tollgate-c-bench: %s: %s\n", tollgate_status_name(error.code), error.message);
            return 2;
        }
        calls += BATCH;
        elapsed = now_seconds() - started;
    }
    printf("c pipelined depth %zu: %.0f round trips/s (%ld calls in %.2f s, 1 connection)\n", s->depth,
           calls / elapsed, calls, elapsed);
    return 0;
}

static int usage(void) {
    fputs("usage: tollgate-c-bench [--server HOST:PORT] [--seconds S] [--depth N] [--users N] [--entitlement E]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    settings s = {.port = 7701, .seconds = 3, .depth = 16, .users = 1000, .entitlement = "premium"};
    snprintf(s.host, sizeof s.host, "127.0.0.1");
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) return usage();
        const char *value = argv[i + 1];
        if (strcmp(argv[i], "--server") == 0) {
            const char *colon = strrchr(value, ':');
            if (!colon || (size_t)(colon - value) >= sizeof s.host) return usage();
            snprintf(s.host, sizeof s.host, "%.*s", (int)(colon - value), value);
            s.port = (uint16_t)atoi(colon + 1);
        } else if (strcmp(argv[i], "--seconds") == 0) {
            s.seconds = atof(value);
        } else if (strcmp(argv[i], "--depth") == 0) {
            s.depth = (size_t)atoi(value);
        } else if (strcmp(argv[i], "--users") == 0) {
            s.users = atoi(value);
        } else if (strcmp(argv[i], "--entitlement") == 0) {
            s.entitlement = value;
        } else {
            return usage();
        }
    }
    if (s.seconds <= 0 || s.depth < 1 || s.users < 1 || s.port == 0) return usage();
    tollgate_client *client = NULL;
    tollgate_error error;
    if (tollgate_connect(s.host, s.port, 5000, &client, &error) != TOLLGATE_OK) {
        fprintf(stderr, "tollgate-c-bench: %s\n", error.message);
        return 2;
    }
    int status = unpipelined(client, &s);
    if (status == 0) status = pipelined(client, &s);
    tollgate_close(client);
    return status;
}
