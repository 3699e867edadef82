/* The pipelined request/response loop every call goes through: it keeps up to `window` requests
 * of one method on the wire, matches answers to requests by request id, and turns frame-level
 * statuses, timeouts and broken connections into per-call errors. */
#ifndef TG_EXCHANGE_H
#define TG_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "client_internal.h"

typedef struct tg_exchange_ops {
    uint32_t method_index;
    /* The request message of call `index`; it is packed before `request` is called again. */
    const ProtobufCMessage *(*request)(void *context, size_t index);
    /* Call `index` was answered with status 0 and this payload (valid during the callback only). */
    void (*answered)(void *context, size_t index, const uint8_t *payload, size_t length);
    /* Call `index` failed: a frame-level status, a transport error or a timeout. */
    void (*failed)(void *context, size_t index, const tollgate_error *error);
} tg_exchange_ops;

/* Runs `count` calls (window 0: all at once). Every call ends in exactly one `answered` or
 * `failed`. Returns TOLLGATE_OK when every call got an answer frame; otherwise the transport
 * error that ended the exchange (also given to every unanswered call), after which the
 * connection has been dropped. With several servers, the calls go to the next healthy one and
 * fail over to another as failover.c says. */
tollgate_status tg_exchange(tollgate_client *client, const tg_exchange_ops *ops, void *context, size_t count,
                            size_t window, tollgate_error *error);

/* One try of tg_exchange on client->link's connection as it is (failover.c picks the server and
 * connects). With may_retry, a dead connection before any call was answered fails no call: it
 * sets *retry, and the caller tries another server. */
tollgate_status tg_exchange_attempt(tollgate_client *client, const tg_exchange_ops *ops, void *context, size_t count,
                                    size_t window, bool may_retry, bool *retry, tollgate_error *error);

/* Whether a status says the connection could not be made or died: refused, reset, closed, timed
 * out, or bytes that break the protocol (failover.c). */
bool tg_status_is_dead_connection(tollgate_status status);

/* Like tg_exchange, on the connection as it is (no reconnection): for Authenticate, which runs
 * as part of connecting. */
tollgate_status tg_exchange_connected(tollgate_client *client, const tg_exchange_ops *ops, void *context,
                                      size_t count, tollgate_error *error);

/* protobuf-c wants every string field non-NULL: a caller's NULL means empty. */
static inline char *tg_text(const char *value) { return (char *)(value ? value : ""); }

#endif
