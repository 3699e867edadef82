/* Tollgate C client: what a call can fail with.
 *
 * Every call returns a tollgate_status. 0 is success; the rest fall into three groups whose
 * numbers tell them apart at a glance:
 *   1..8     application errors the server put in the response's `error` field; the numbers are
 *            the proto's ErrorCode values (docs/protocol.md, "Errors inside a successful response")
 *   101,102  frame-level refusals: 100 + the response header's status_code
 *   201..    problems on this side: connecting, the connection, timeouts, memory, misuse
 */
#ifndef TOLLGATE_STATUS_H
#define TOLLGATE_STATUS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tollgate_status {
    TOLLGATE_OK = 0,

    /* Application errors (proto ErrorCode). */
    TOLLGATE_INVALID_ARGUMENT = 1,   /* a required field is empty or too long: fix the request */
    TOLLGATE_NOT_FOUND = 2,          /* GetSubscription for a user with nothing */
    TOLLGATE_UNAUTHENTICATED = 3,
    TOLLGATE_PERMISSION_DENIED = 4,
    TOLLGATE_RESOURCE_EXHAUSTED = 5,
    TOLLGATE_UNAVAILABLE = 6,        /* storage could not take a submission: retry with backoff */
    TOLLGATE_DEADLINE_EXCEEDED = 7,  /* a deadline passed inside the server */
    TOLLGATE_INTERNAL = 8,           /* a server bug (also: an error code this client does not know) */

    /* Frame-level refusals (response header status_code + 100). */
    TOLLGATE_SERVICE_FAILED = 101,   /* unknown method, undecodable or oversized request, server failure */
    TOLLGATE_TOO_MANY_PENDING = 102, /* too many deferred calls in flight on this connection */

    /* This side. */
    TOLLGATE_CONNECT_FAILED = 201,   /* refused, unreachable, or the host name does not resolve */
    TOLLGATE_TIMEOUT = 202,          /* no connection or no answer within the timeout */
    TOLLGATE_CONNECTION_CLOSED = 203,/* the connection broke before the answer came */
    TOLLGATE_BAD_RESPONSE = 204,     /* the server's bytes do not follow the protocol */
    TOLLGATE_NO_MEMORY = 205,
    TOLLGATE_USAGE = 206,            /* the library was called wrongly (a NULL where a value is needed,
                                        an unreadable TLS file) */
    TOLLGATE_TLS_FAILED = 207        /* the TLS handshake failed: the server's certificate did not verify
                                        for the name, or the server refused this client's certificate */
} tollgate_status;

/* What a failed call tells its caller: the status and a human-readable message (the server's
 * message for an application error). Messages never contain receipts or tokens. */
typedef struct tollgate_error {
    tollgate_status code;
    char message[160];
} tollgate_error;

/* A static, lower-case name: "ok", "not_found", "too_many_pending", "timeout", ... */
const char *tollgate_status_name(tollgate_status status);

/* Whether the same call may succeed later: connection trouble, timeouts, TOO_MANY_PENDING,
 * UNAVAILABLE, RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED. */
bool tollgate_status_is_retryable(tollgate_status status);

#ifdef __cplusplus
}
#endif

#endif
