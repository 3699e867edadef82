#define _GNU_SOURCE
#include "exchange.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "error.h"
#include "frame.h"
#include "socket.h"
#include "transport.h"

enum { CALL_WAITING = 0, CALL_SENT = 1, CALL_DONE = 2 };

typedef struct exchange {
    tollgate_client *client;
    const tg_exchange_ops *ops;
    void *context;
    size_t count;
    uint8_t *states;       /* CALL_* per call */
    uint32_t first_id;     /* call i has request id first_id + i */
    size_t sent;           /* calls 0..sent-1 are on the wire or done */
    size_t in_flight;
    size_t done;
    int64_t deadline_ms;   /* 0: none */
    bool write_waits;      /* the last send could not take everything: wait for POLLOUT */
    bool read_waits_for_write; /* TLS must write before it can read on */
} exchange;

static void restart_deadline(exchange *x) {
    int timeout = x->client->options.call_timeout_ms;
    x->deadline_ms = timeout > 0 ? tg_now_ms() + timeout : 0;
    int64_t cap = x->client->attempt_deadline_ms; /* a retry on another server: what is left */
    if (cap > 0 && (x->deadline_ms == 0 || cap < x->deadline_ms)) x->deadline_ms = cap;
}

static void finish_failed(exchange *x, size_t index, const tollgate_error *error) {
    x->states[index] = CALL_DONE;
    x->done++;
    x->ops->failed(x->context, index, error);
}

/* Ends the exchange: drops the connection and fails every call not answered yet. */
static tollgate_status abort_exchange(exchange *x, const tollgate_error *error, tollgate_error *out) {
    tg_client_disconnect(x->client);
    for (size_t i = 0; i < x->count; i++) {
        if (x->states[i] != CALL_DONE) finish_failed(x, i, error);
    }
    return tg_error_copy(out, error);
}

static bool encode_window(exchange *x, size_t window) {
    while (x->sent < x->count && x->in_flight < window) {
        const ProtobufCMessage *message = x->ops->request(x->context, x->sent);
        if (!tg_frame_append_request(&x->client->out, x->ops->method_index, x->first_id + (uint32_t)x->sent, message)) {
            return false;
        }
        x->states[x->sent++] = CALL_SENT;
        x->in_flight++;
    }
    return true;
}

/* Sends what the connection takes now. */
static tollgate_status flush(exchange *x, tollgate_error *error) {
    tg_buffer *out = &x->client->out;
    x->write_waits = false;
    while (tg_buffer_length(out) > 0) {
        size_t written = 0;
        tg_io io = tg_transport_send(&x->client->link->transport, out->data + out->start, tg_buffer_length(out), &written,
                                     x->client->link->peer, error);
        if (io == TG_IO_FAILED) return error->code;
        if (io != TG_IO_DONE) {
            x->write_waits = io == TG_IO_WANT_WRITE;
            break;
        }
        tg_buffer_consume(out, written);
    }
    return TOLLGATE_OK;
}

/* Hands one complete response frame to its call. */
static tollgate_status dispatch(exchange *x, const tg_response_header *header, const uint8_t *payload,
                                tollgate_error *error) {
    size_t index = (size_t)(uint32_t)(header->request_id - x->first_id);
    if (index >= x->count || x->states[index] != CALL_SENT) return TOLLGATE_OK; /* nobody waits for it */
    if (header->method_index != x->ops->method_index) {
        return tg_error_set(error, TOLLGATE_BAD_RESPONSE, "answer for method %u to a call of method %u",
                            header->method_index, x->ops->method_index);
    }
    x->in_flight--;
    restart_deadline(x);
    tollgate_status status = tg_frame_status(header->status_code);
    if (status == TOLLGATE_OK) {
        x->states[index] = CALL_DONE;
        x->done++;
        x->ops->answered(x->context, index, payload, header->message_length);
        return TOLLGATE_OK;
    }
    tollgate_error refusal;
    if (status == TOLLGATE_SERVICE_FAILED) {
        tg_error_set(&refusal, status, "the server could not run method %u", header->method_index);
    } else if (status == TOLLGATE_TOO_MANY_PENDING) {
        tg_error_set(&refusal, status, "too many calls in flight on this connection");
    } else {
        tg_error_set(&refusal, status, "unknown frame status %u", header->status_code);
    }
    finish_failed(x, index, &refusal);
    return TOLLGATE_OK;
}

/* Reads what arrived and dispatches every complete frame. */
static tollgate_status receive(exchange *x, tollgate_error *error) {
    tollgate_client *client = x->client;
    tg_buffer *in = &client->in;
    if (!tg_buffer_reserve(in, 16384)) return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    size_t received = 0;
    tg_io io = tg_transport_receive(&client->link->transport, in->data + in->end, in->capacity - in->end, &received,
                                    client->link->peer, error);
    if (io == TG_IO_FAILED) return error->code;
    x->read_waits_for_write = io == TG_IO_WANT_WRITE;
    if (io != TG_IO_DONE) return TOLLGATE_OK;
    in->end += received;
    while (tg_buffer_length(in) >= TG_RESPONSE_HEADER_LENGTH) {
        tg_response_header header = tg_frame_read_response_header(in->data + in->start);
        if (header.message_length > client->options.max_response_bytes) {
            return tg_error_set(error, TOLLGATE_BAD_RESPONSE, "response of %u bytes is over the limit of %u",
                                header.message_length, client->options.max_response_bytes);
        }
        size_t frame_length = TG_RESPONSE_HEADER_LENGTH + (size_t)header.message_length;
        if (tg_buffer_length(in) < frame_length) {
            if (!tg_buffer_reserve(in, frame_length - tg_buffer_length(in))) {
                return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
            }
            break;
        }
        tollgate_status status = dispatch(x, &header, in->data + in->start + TG_RESPONSE_HEADER_LENGTH, error);
        if (status != TOLLGATE_OK) return status;
        tg_buffer_consume(in, frame_length);
    }
    return TOLLGATE_OK;
}

static tollgate_status wait_for_socket(exchange *x, tollgate_error *error) {
    tg_transport *transport = &x->client->link->transport;
    if (tg_transport_has_buffered(transport)) return receive(x, error); /* poll would not see it */
    struct pollfd waiting = {.fd = transport->fd, .events = POLLIN};
    if (x->write_waits || x->read_waits_for_write) waiting.events |= POLLOUT;
    int ready;
    do {
        ready = poll(&waiting, 1, tg_poll_timeout(x->deadline_ms));
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return tg_error_set(error, TOLLGATE_CONNECTION_CLOSED, "poll: %s", strerror(errno));
    if (ready == 0) {
        return tg_error_set(error, TOLLGATE_TIMEOUT, "no answer from %s within %d ms", x->client->link->peer,
                            x->client->options.call_timeout_ms);
    }
    /* TLS may need to read before a write can go on, and the other way round: let it try. */
    if ((waiting.revents & (POLLIN | POLLHUP | POLLERR)) || transport->ssl) return receive(x, error);
    return TOLLGATE_OK;
}

/* Runs the calls on the connection the client has now. With may_retry, a transport failure before
 * any call was answered drops the connection and sets *retry instead of failing the calls. */
static tollgate_status run(tollgate_client *client, const tg_exchange_ops *ops, void *context, size_t count,
                           size_t window, bool may_retry, bool *retry, tollgate_error *error) {
    if (count == 0) return TOLLGATE_OK;
    if (window == 0 || window > count) window = count;
    uint8_t small[64] = {0};
    exchange x = {
        .client = client,
        .ops = ops,
        .context = context,
        .count = count,
        .states = count <= sizeof small ? small : calloc(count, 1),
    };
    if (!x.states) {
        tollgate_error failure;
        tg_error_set(&failure, TOLLGATE_NO_MEMORY, "out of memory");
        for (size_t i = 0; i < count; i++) ops->failed(context, i, &failure);
        return tg_error_copy(error, &failure);
    }
    tollgate_error failure;
    tollgate_status status = TOLLGATE_OK;
    x.first_id = client->next_request_id;
    client->next_request_id += (uint32_t)count;
    restart_deadline(&x);
    while (x.done < count) {
        if (!encode_window(&x, window)) {
            status = tg_error_set(&failure, TOLLGATE_NO_MEMORY, "out of memory");
            break;
        }
        if ((status = flush(&x, &failure)) != TOLLGATE_OK) break;
        if ((status = wait_for_socket(&x, &failure)) != TOLLGATE_OK) break;
    }
    if (status != TOLLGATE_OK && may_retry && x.done == 0 && tg_status_is_dead_connection(status)) {
        tg_client_disconnect(client);
        tg_error_copy(error, &failure);
        *retry = true;
    } else if (status != TOLLGATE_OK) {
        abort_exchange(&x, &failure, error);
    } else {
        tg_buffer_reset(&client->in); /* only answers nobody waits for can be left */
    }
    if (x.states != small) free(x.states);
    return status;
}

tollgate_status tg_exchange_attempt(tollgate_client *client, const tg_exchange_ops *ops, void *context, size_t count,
                                    size_t window, bool may_retry, bool *retry, tollgate_error *error) {
    *retry = false;
    return run(client, ops, context, count, window, may_retry, retry, error);
}

tollgate_status tg_exchange_connected(tollgate_client *client, const tg_exchange_ops *ops, void *context,
                                      size_t count, tollgate_error *error) {
    bool retry = false;
    return run(client, ops, context, count, count, false, &retry, error);
}
