/* Several servers (replicas of `tollgate serve` on one database): which one a call goes to, and
 * when a failed call is tried on another.
 *
 * A call goes to the next server in turn that is not backed off. When its connection cannot be
 * made, or dies before any answer (refused, reset, closed, timed out), the server is backed off
 * (backoff_ms, doubled for each further failure in a row up to backoff_max_ms) and, while the
 * call's timeout lasts, the call is tried on another server, but only when that is safe: always
 * when no request left (the connection could not be made); for reads (IsSubscriber,
 * GetSubscription, GetSubmission, Health) also when it did; a SubmitPurchase that may have
 * reached a server never. When every server is backed off, the one whose back-off ends first is
 * tried. One server: one try, as before. */
#include "error.h"
#include "exchange.h"
#include "frame.h"
#include "socket.h"

bool tg_status_is_dead_connection(tollgate_status status) {
    return status == TOLLGATE_CONNECT_FAILED || status == TOLLGATE_TIMEOUT || status == TOLLGATE_CONNECTION_CLOSED ||
           status == TOLLGATE_BAD_RESPONSE;
}

static bool is_repeatable(uint32_t method_index) {
    return method_index == TG_METHOD_IS_SUBSCRIBER || method_index == TG_METHOD_GET_SUBSCRIPTION ||
           method_index == TG_METHOD_GET_SUBMISSION || method_index == TG_METHOD_HEALTH;
}

/* The server for the next try: the next in turn not backed off and not tried; else the untried
 * one whose back-off ends first. There is one while some server is untried. */
static size_t pick(tollgate_client *client, uint64_t tried, int64_t now) {
    size_t count = client->link_count;
    size_t start = client->next_link++;
    size_t soonest = count;
    for (size_t offset = 0; offset < count; offset++) {
        size_t index = (start + offset) % count;
        if (tried & ((uint64_t)1 << index)) continue;
        const tg_link *link = &client->links[index];
        if (link->skip_until_ms <= now) return index;
        if (soonest == count || link->skip_until_ms < client->links[soonest].skip_until_ms) soonest = index;
    }
    return soonest;
}

void tg_link_failed(tollgate_client *client, tg_link *link) {
    link->failures++;
    int64_t backoff = client->backoff_ms;
    for (int i = 1; i < link->failures && backoff < client->backoff_max_ms; i++) backoff *= 2;
    if (backoff > client->backoff_max_ms) backoff = client->backoff_max_ms;
    link->skip_until_ms = tg_now_ms() + backoff;
}

static void link_answered(tg_link *link) {
    link->failures = 0;
    link->skip_until_ms = 0;
}

tollgate_status tg_exchange(tollgate_client *client, const tg_exchange_ops *ops, void *context, size_t count,
                            size_t window, tollgate_error *error) {
    if (count == 0) return TOLLGATE_OK;
    int timeout = client->options.call_timeout_ms;
    int64_t deadline = timeout > 0 ? tg_now_ms() + timeout : 0;
    bool repeatable = is_repeatable(ops->method_index);
    uint64_t tried = 0;
    tollgate_error failure;
    for (size_t attempt = 1;; attempt++) {
        size_t index = pick(client, tried, tg_now_ms());
        tried |= (uint64_t)1 << index;
        bool last = attempt == client->link_count;
        client->link = &client->links[index];
        /* The first try waits as long as a one-server client would; a retry what is left. */
        client->attempt_deadline_ms = attempt == 1 ? 0 : deadline;
        tollgate_status status = tg_client_ensure_connected(client, &failure);
        if (status == TOLLGATE_OK) {
            bool retry = false;
            bool may_retry = repeatable && !last && (deadline == 0 || tg_now_ms() < deadline);
            status = tg_exchange_attempt(client, ops, context, count, window, may_retry, &retry, &failure);
            client->attempt_deadline_ms = 0;
            if (status == TOLLGATE_OK) {
                link_answered(client->link);
                return TOLLGATE_OK;
            }
            if (tg_status_is_dead_connection(status)) tg_link_failed(client, client->link);
            if (retry) continue;
            return tg_error_copy(error, &failure); /* every call failed with it already */
        }
        client->attempt_deadline_ms = 0;
        if (tg_status_is_dead_connection(status)) {
            tg_link_failed(client, client->link);
            if (!last && (deadline == 0 || tg_now_ms() < deadline)) continue; /* nothing was sent */
        }
        for (size_t i = 0; i < count; i++) ops->failed(context, i, &failure);
        return tg_error_copy(error, &failure);
    }
}
