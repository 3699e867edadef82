/* SubmitPurchase: one call, or a pipelined batch on the one connection. Receipts and tokens go
 * on the wire only: no message here ever repeats them. */
#include <string.h>

#include "decode.h"
#include "error.h"
#include "exchange.h"
#include "frame.h"

typedef struct batch {
    const tollgate_purchase *purchases;
    tollgate_submission_item *items;
    Tollgate__V1__SubmitPurchaseRequest request;
} batch;

static const ProtobufCMessage *request(void *context, size_t index) {
    batch *b = context;
    const tollgate_purchase *purchase = &b->purchases[index];
    b->request.user_id = tg_text(purchase->user_id);
    b->request.store = (Tollgate__V1__Store)purchase->store;
    b->request.receipt = tg_text(purchase->receipt);
    b->request.purchase_token = tg_text(purchase->purchase_token);
    b->request.receipt_id = tg_text(purchase->receipt_id);
    b->request.amazon_user_id = tg_text(purchase->amazon_user_id);
    b->request.product_id = tg_text(purchase->product_id);
    b->request.app_id = tg_text(purchase->app_id);
    b->request.wait_ms = purchase->wait_ms;
    b->request.google_purchase_data = tg_text(purchase->google_purchase_data);
    b->request.google_signature = tg_text(purchase->google_signature);
    return &b->request.base;
}

static void answered(void *context, size_t index, const uint8_t *payload, size_t length) {
    tollgate_submission_item *item = &((batch *)context)->items[index];
    item->error.code = tg_decode_submission(payload, length, &item->submission, &item->error);
}

static void failed(void *context, size_t index, const tollgate_error *error) {
    tollgate_submission_item *item = &((batch *)context)->items[index];
    item->submission = NULL;
    tg_error_copy(&item->error, error);
}

static const tg_exchange_ops ops = {
    .method_index = TG_METHOD_SUBMIT_PURCHASE,
    .request = request,
    .answered = answered,
    .failed = failed,
};

tollgate_status tollgate_submit_purchase_batch(tollgate_client *client, const tollgate_purchase *purchases,
                                               size_t count, size_t max_in_flight, tollgate_submission_item *items,
                                               tollgate_error *error) {
    if (!client || (count > 0 && (!purchases || !items))) {
        return tg_error_set(error, TOLLGATE_USAGE, "client, purchases and items must not be NULL");
    }
    if (count > 0) memset(items, 0, count * sizeof *items);
    batch b = {.purchases = purchases, .items = items, .request = TOLLGATE__V1__SUBMIT_PURCHASE_REQUEST__INIT};
    return tg_exchange(client, &ops, &b, count, max_in_flight, error);
}

tollgate_status tollgate_submit_purchase(tollgate_client *client, const tollgate_purchase *purchase,
                                         tollgate_submission **submission, tollgate_error *error) {
    if (!submission || !purchase) return tg_error_set(error, TOLLGATE_USAGE, "purchase and submission must not be NULL");
    *submission = NULL;
    tollgate_submission_item item;
    tollgate_status status = tollgate_submit_purchase_batch(client, purchase, 1, 1, &item, error);
    if (status != TOLLGATE_OK) return status;
    *submission = item.submission;
    return tg_error_copy(error, &item.error);
}
