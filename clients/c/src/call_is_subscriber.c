/* IsSubscriber: one call, or a pipelined batch on the one connection. */
#include <string.h>

#include "decode.h"
#include "error.h"
#include "exchange.h"
#include "frame.h"

typedef struct batch {
    const tollgate_query *queries;
    tollgate_is_subscriber_item *items;
    Tollgate__V1__IsSubscriberRequest request;
} batch;

static const ProtobufCMessage *request(void *context, size_t index) {
    batch *b = context;
    b->request.user_id = tg_text(b->queries[index].user_id);
    b->request.entitlement = tg_text(b->queries[index].entitlement);
    return &b->request.base;
}

static void answered(void *context, size_t index, const uint8_t *payload, size_t length) {
    tollgate_is_subscriber_item *item = &((batch *)context)->items[index];
    item->error.code = tg_decode_is_subscriber(payload, length, &item->result, &item->error);
}

static void failed(void *context, size_t index, const tollgate_error *error) {
    tollgate_is_subscriber_item *item = &((batch *)context)->items[index];
    item->result = NULL;
    tg_error_copy(&item->error, error);
}

static const tg_exchange_ops ops = {
    .method_index = TG_METHOD_IS_SUBSCRIBER,
    .request = request,
    .answered = answered,
    .failed = failed,
};

tollgate_status tollgate_is_subscriber_batch(tollgate_client *client, const tollgate_query *queries, size_t count,
                                             size_t max_in_flight, tollgate_is_subscriber_item *items,
                                             tollgate_error *error) {
    if (!client || (count > 0 && (!queries || !items))) {
        return tg_error_set(error, TOLLGATE_USAGE, "client, queries and items must not be NULL");
    }
    if (count > 0) memset(items, 0, count * sizeof *items);
    batch b = {.queries = queries, .items = items, .request = TOLLGATE__V1__IS_SUBSCRIBER_REQUEST__INIT};
    return tg_exchange(client, &ops, &b, count, max_in_flight, error);
}

tollgate_status tollgate_is_subscriber(tollgate_client *client, const char *user_id, const char *entitlement,
                                       tollgate_is_subscriber_result **result, tollgate_error *error) {
    if (!result) return tg_error_set(error, TOLLGATE_USAGE, "result must not be NULL");
    *result = NULL;
    tollgate_query query = {.user_id = user_id, .entitlement = entitlement};
    tollgate_is_subscriber_item item;
    tollgate_status status = tollgate_is_subscriber_batch(client, &query, 1, 1, &item, error);
    if (status != TOLLGATE_OK) return status;
    *result = item.result;
    return tg_error_copy(error, &item.error);
}
