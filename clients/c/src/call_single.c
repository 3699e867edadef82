/* GetSubscription, GetSubmission and Health: one request, one answer. */
#include "decode.h"
#include "error.h"
#include "exchange.h"
#include "frame.h"

typedef tollgate_status (*decode_fn)(const uint8_t *payload, size_t length, void **result, tollgate_error *error);

typedef struct single {
    const ProtobufCMessage *request;
    decode_fn decode;
    void *result;
    tollgate_error error;
} single;

static const ProtobufCMessage *request(void *context, size_t index) {
    (void)index;
    return ((single *)context)->request;
}

static void answered(void *context, size_t index, const uint8_t *payload, size_t length) {
    (void)index;
    single *s = context;
    s->error.code = s->decode(payload, length, &s->result, &s->error);
}

static void failed(void *context, size_t index, const tollgate_error *error) {
    (void)index;
    tg_error_copy(&((single *)context)->error, error);
}

static tollgate_status call(tollgate_client *client, uint32_t method_index, const ProtobufCMessage *message,
                            decode_fn decode, void **result, tollgate_error *error) {
    if (!client) return tg_error_set(error, TOLLGATE_USAGE, "client must not be NULL");
    single s = {.request = message, .decode = decode, .error = {.code = TOLLGATE_OK}};
    tg_exchange_ops ops = {.method_index = method_index, .request = request, .answered = answered, .failed = failed};
    tollgate_status status = tg_exchange(client, &ops, &s, 1, 1, error);
    if (status != TOLLGATE_OK) return status;
    *result = s.result;
    return tg_error_copy(error, &s.error);
}

static tollgate_status decode_subscription_info(const uint8_t *payload, size_t length, void **result,
                                                tollgate_error *error) {
    tollgate_subscription_info *info;
    tollgate_status status = tg_decode_subscription_info(payload, length, &info, error);
    *result = info;
    return status;
}

static tollgate_status decode_health(const uint8_t *payload, size_t length, void **result, tollgate_error *error) {
    tollgate_health_report *report;
    tollgate_status status = tg_decode_health(payload, length, &report, error);
    *result = report;
    return status;
}

tollgate_status tollgate_get_subscription(tollgate_client *client, const char *user_id,
                                          tollgate_subscription_info **info, tollgate_error *error) {
    if (!info) return tg_error_set(error, TOLLGATE_USAGE, "info must not be NULL");
    *info = NULL;
    Tollgate__V1__GetSubscriptionRequest message = TOLLGATE__V1__GET_SUBSCRIPTION_REQUEST__INIT;
    message.user_id = tg_text(user_id);
    void *result = NULL;
    tollgate_status status = call(client, TG_METHOD_GET_SUBSCRIPTION, &message.base, decode_subscription_info, &result, error);
    *info = result;
    return status;
}

static tollgate_status decode_get_submission(const uint8_t *payload, size_t length, void **result,
                                             tollgate_error *error) {
    tollgate_submission *submission;
    tollgate_status status = tg_decode_get_submission(payload, length, &submission, error);
    *result = submission;
    return status;
}

tollgate_status tollgate_get_submission(tollgate_client *client, const char *submission_id,
                                        tollgate_submission **submission, tollgate_error *error) {
    if (!submission) return tg_error_set(error, TOLLGATE_USAGE, "submission must not be NULL");
    *submission = NULL;
    Tollgate__V1__GetSubmissionRequest message = TOLLGATE__V1__GET_SUBMISSION_REQUEST__INIT;
    message.submission_id = tg_text(submission_id);
    void *result = NULL;
    tollgate_status status =
        call(client, TG_METHOD_GET_SUBMISSION, &message.base, decode_get_submission, &result, error);
    *submission = result;
    return status;
}

tollgate_status tollgate_health(tollgate_client *client, tollgate_health_report **report, tollgate_error *error) {
    if (!report) return tg_error_set(error, TOLLGATE_USAGE, "report must not be NULL");
    *report = NULL;
    Tollgate__V1__HealthRequest message = TOLLGATE__V1__HEALTH_REQUEST__INIT;
    void *result = NULL;
    tollgate_status status = call(client, TG_METHOD_HEALTH, &message.base, decode_health, &result, error);
    *report = result;
    return status;
}
