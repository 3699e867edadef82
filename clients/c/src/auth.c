/* Authenticate, sent on every new connection before any other call when the options name a
 * caller. The key goes on the wire only: no message here contains it. */
#include <openssl/crypto.h>

#include "decode.h"
#include "error.h"
#include "exchange.h"
#include "frame.h"

typedef struct authentication {
    Tollgate__V1__AuthenticateRequest request;
    tollgate_identity *identity;
    tollgate_error error;
} authentication;

static const ProtobufCMessage *request(void *context, size_t index) {
    (void)index;
    return &((authentication *)context)->request.base;
}

static void answered(void *context, size_t index, const uint8_t *payload, size_t length) {
    (void)index;
    authentication *a = context;
    a->error.code = tg_decode_authenticate(payload, length, &a->identity, &a->error);
}

static void failed(void *context, size_t index, const tollgate_error *error) {
    (void)index;
    tg_error_copy(&((authentication *)context)->error, error);
}

tollgate_status tg_client_authenticate(tollgate_client *client, tollgate_error *error) {
    authentication a = {.request = TOLLGATE__V1__AUTHENTICATE_REQUEST__INIT, .error = {.code = TOLLGATE_OK}};
    a.request.caller = client->caller;
    a.request.key = client->key;
    tg_exchange_ops ops = {.method_index = TG_METHOD_AUTHENTICATE, .request = request, .answered = answered,
                           .failed = failed};
    tg_exchange_connected(client, &ops, &a, 1, &a.error);
    /* The packed request (the key) is gone from the wire buffer once sent. */
    if (client->out.data) OPENSSL_cleanse(client->out.data, client->out.capacity);
    if (a.error.code != TOLLGATE_OK) {
        tg_client_disconnect(client);
        return tg_error_set(error, a.error.code, "authenticating as %s: %s", client->caller, a.error.message);
    }
    tg_identity_free(client->identity);
    client->identity = a.identity;
    return TOLLGATE_OK;
}
