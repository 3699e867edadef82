/* The callers (name, scopes, a random key) a live test configures `tollgate serve` with, and
 * connecting as one of them; shared by the secured live tests. */
#ifndef TOLLGATE_TEST_LIVE_CALLERS_H
#define TOLLGATE_TEST_LIVE_CALLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tollgate.h"

typedef struct caller {
    const char *name;
    const char *scopes; /* JSON array items */
    char key[80];
} caller;

extern caller callers[];
extern const size_t caller_count;
enum { WEB, READER, SHOP, OPS };

/* Gives every caller a new random key. */
bool callers_make_keys(void);

/* Writes {"service": {"callers": [...], EXTRA}} to path (each key as its SHA-256). */
bool write_config(const char *path, const char *extra);

/* A port that was free a moment ago (for a listener the server does not report back). */
uint16_t free_port(void);

/* Connects to host:port as caller `who` (WEB...; -1: options as given), with options (NULL: defaults). */
tollgate_status connect_as(const char *host, uint16_t port, int who, tollgate_options *options,
                           tollgate_client **client, tollgate_error *error);

#endif
