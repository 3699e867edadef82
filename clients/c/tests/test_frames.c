/* The golden frames in proto/testdata: what this client writes must equal the request frames
 * byte for byte, and it must read the response frames as documented. */
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "check.h"
#include "decode.h"
#include "frame.h"
#include "golden.h"

static void check_request(const char *file, uint32_t method, uint32_t request_id, const ProtobufCMessage *message) {
    uint8_t expected[256];
    size_t expected_length = golden_read(file, expected, sizeof expected);
    REQUIRE(expected_length > 0);
    tg_buffer out = {0};
    REQUIRE(tg_frame_append_request(&out, method, request_id, message));
    CHECK_INT(tg_buffer_length(&out), expected_length);
    CHECK(tg_buffer_length(&out) == expected_length && memcmp(out.data + out.start, expected, expected_length) == 0);
    tg_buffer_free(&out);
}

static void request_is_subscriber(void) {
    Tollgate__V1__IsSubscriberRequest request = TOLLGATE__V1__IS_SUBSCRIBER_REQUEST__INIT;
    request.user_id = "user-42";
    request.entitlement = "premium";
    check_request("request-is-subscriber.hex", TG_METHOD_IS_SUBSCRIBER, 42, &request.base);
}

static void request_get_subscription(void) {
    Tollgate__V1__GetSubscriptionRequest request = TOLLGATE__V1__GET_SUBSCRIPTION_REQUEST__INIT;
    request.user_id = "user-42";
    check_request("request-get-subscription.hex", TG_METHOD_GET_SUBSCRIPTION, 7, &request.base);
}

static void request_health(void) {
    Tollgate__V1__HealthRequest request = TOLLGATE__V1__HEALTH_REQUEST__INIT;
    check_request("request-health.hex", TG_METHOD_HEALTH, 0xdeadbeef, &request.base);
}

static void request_authenticate(void) {
    Tollgate__V1__AuthenticateRequest request = TOLLGATE__V1__AUTHENTICATE_REQUEST__INIT;
    request.caller = "web";
    request.key = "example-key-0001";
    check_request("request-authenticate.hex", TG_METHOD_AUTHENTICATE, 1, &request.base);
}

static void request_get_submission(void) {
    Tollgate__V1__GetSubmissionRequest request = TOLLGATE__V1__GET_SUBMISSION_REQUEST__INIT;
    request.submission_id = "sub-0001";
    check_request("request-get-submission.hex", TG_METHOD_GET_SUBMISSION, 9, &request.base);
}

/* Reads a golden response: its header, and a pointer to its payload inside `frame`. */
static int read_response(const char *file, uint8_t *frame, size_t capacity, tg_response_header *header) {
    size_t length = golden_read(file, frame, capacity);
    if (length < TG_RESPONSE_HEADER_LENGTH) return 0;
    *header = tg_frame_read_response_header(frame);
    return length == TG_RESPONSE_HEADER_LENGTH + header->message_length;
}

static void response_success_is_subscriber(void) {
    uint8_t frame[256];
    tg_response_header header;
    REQUIRE(read_response("response-success-is-subscriber.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.method_index, TG_METHOD_IS_SUBSCRIBER);
    CHECK_INT(header.request_id, 42);
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_is_subscriber(frame + TG_RESPONSE_HEADER_LENGTH, header.message_length, &result, &error),
              TOLLGATE_OK);
    REQUIRE(result != NULL);
    CHECK(result->active);
    CHECK_INT(result->expires_at_ms, 1700000000000LL);
    CHECK_INT(result->state, TOLLGATE_STATE_ACTIVE);
    CHECK(result->will_renew);
    CHECK_INT(result->store, TOLLGATE_STORE_APP_STORE);
    CHECK_STR(result->product_id, "monthly");
    CHECK_INT(result->environment, TOLLGATE_ENVIRONMENT_PRODUCTION);
    CHECK_INT(result->verified_at_ms, 1699999000000LL);
    CHECK_STR(result->store_subscription_id, "");
    CHECK_STR(result->access_level, "");
    tollgate_is_subscriber_result_free(result);
}

static void response_success_is_subscriber_access_level(void) {
    uint8_t frame[256];
    tg_response_header header;
    REQUIRE(read_response("response-success-is-subscriber-access-level.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.request_id, 43);
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_is_subscriber(frame + TG_RESPONSE_HEADER_LENGTH, header.message_length, &result, &error),
              TOLLGATE_OK);
    REQUIRE(result != NULL);
    CHECK(!result->active);
    CHECK_INT(result->state, TOLLGATE_STATE_BILLING_RETRY);
    CHECK_INT(result->store, TOLLGATE_STORE_GOOGLE_PLAY);
    CHECK_STR(result->product_id, "monthly");
    CHECK_INT(result->evaluated_at_ms, 1700000100000LL);
    CHECK_STR(result->store_subscription_id, "token-1");
    CHECK_STR(result->access_level, "read_only");
    tollgate_is_subscriber_result_free(result);
}

static void response_success_not_found(void) {
    uint8_t frame[256];
    tg_response_header header;
    REQUIRE(read_response("response-success-not-found.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.method_index, TG_METHOD_GET_SUBSCRIPTION);
    CHECK_INT(header.request_id, 7);
    tollgate_subscription_info placeholder;
    tollgate_subscription_info *info = &placeholder; /* must come back NULL */
    tollgate_error error = {0};
    CHECK_INT(tg_decode_subscription_info(frame + TG_RESPONSE_HEADER_LENGTH, header.message_length, &info, &error),
              TOLLGATE_NOT_FOUND);
    CHECK(info == NULL);
    CHECK_INT(error.code, TOLLGATE_NOT_FOUND);
    CHECK_STR(error.message, "no subscriptions or grants for this user");
    CHECK(!tollgate_status_is_retryable(error.code));
}

static void response_success_authenticate(void) {
    uint8_t frame[256];
    tg_response_header header;
    REQUIRE(read_response("response-success-authenticate.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.method_index, TG_METHOD_AUTHENTICATE);
    CHECK_INT(header.request_id, 1);
    tollgate_identity *identity = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_authenticate(frame + TG_RESPONSE_HEADER_LENGTH, header.message_length, &identity, &error),
              TOLLGATE_OK);
    REQUIRE(identity != NULL);
    CHECK_STR(identity->caller, "web");
    CHECK_INT(identity->scope_count, 2);
    if (identity->scope_count == 2) {
        CHECK_STR(identity->scopes[0], "read");
        CHECK_STR(identity->scopes[1], "submit");
    }
    tg_identity_free(identity);
}

static void response_unauthenticated(void) {
    uint8_t frame[256];
    tg_response_header header;
    REQUIRE(read_response("response-unauthenticated.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.method_index, TG_METHOD_AUTHENTICATE);
    CHECK_INT(header.request_id, 1);
    tollgate_identity *identity = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_authenticate(frame + TG_RESPONSE_HEADER_LENGTH, header.message_length, &identity, &error),
              TOLLGATE_UNAUTHENTICATED);
    CHECK(identity == NULL);
    CHECK_STR(error.message, "unknown caller or wrong key");
    CHECK_STR(tollgate_status_name(error.code), "unauthenticated");
    CHECK(!tollgate_status_is_retryable(error.code));
}

static void response_success_get_submission(void) {
    uint8_t frame[256];
    tg_response_header header;
    REQUIRE(read_response("response-success-get-submission.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.method_index, TG_METHOD_GET_SUBMISSION);
    CHECK_INT(header.request_id, 9);
    tollgate_submission *submission = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_get_submission(frame + TG_RESPONSE_HEADER_LENGTH, header.message_length, &submission, &error),
              TOLLGATE_OK);
    REQUIRE(submission != NULL);
    CHECK_STR(submission->submission_id, "sub-0001");
    CHECK_INT(submission->status, TOLLGATE_SUBMISSION_REJECTED);
    CHECK_STR(submission->rejection_reason, "sandbox receipt in production");
    CHECK_INT(submission->received_at_ms, 1700000000000LL);
    CHECK_STR(submission->user_id, "user-42");
    CHECK_INT(submission->entitlement_count, 0);
    tollgate_submission_free(submission);
}

/* The admin methods (issue 28): this client does not call them, but its generated code must
 * read and write their messages as the golden frames hold them. */
static void request_look_up(void) {
    Tollgate__V1__LookUpRequest request = TOLLGATE__V1__LOOK_UP_REQUEST__INIT;
    request.identifier = "MK5TTTVWJH";
    request.kind = TOLLGATE__V1__IDENTIFIER_KIND__IDENTIFIER_KIND_APP_STORE_ORDER_ID;
    check_request("request-look-up.hex", 6 /* LookUp */, 11, &request.base);
}

static void response_success_grant(void) {
    uint8_t frame[128];
    tg_response_header header;
    REQUIRE(read_response("response-success-grant.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_OK);
    CHECK_INT(header.method_index, 9 /* Grant */);
    CHECK_INT(header.request_id, 12);
    Tollgate__V1__GrantResponse *response =
        tollgate__v1__grant_response__unpack(NULL, header.message_length, frame + TG_RESPONSE_HEADER_LENGTH);
    REQUIRE(response != NULL);
    CHECK(response->error == NULL);
    CHECK_STR(response->grant_id, "g-17");
    CHECK_INT(response->n_entitlements, 1);
    if (response->n_entitlements == 1) {
        const Tollgate__V1__EntitlementStatus *status = response->entitlements[0];
        CHECK_STR(status->entitlement, "premium");
        CHECK(status->active);
        CHECK_INT(status->expires_at_ms, 1700000000000LL);
        CHECK_INT(status->state, TOLLGATE__V1__SUBSCRIPTION_STATE__SUBSCRIPTION_STATE_ACTIVE);
        CHECK_INT(status->store, TOLLGATE__V1__STORE__STORE_PROMOTIONAL);
        CHECK_STR(status->store_subscription_id, "g-17");
    }
    tollgate__v1__grant_response__free_unpacked(response, NULL);
}

static void response_service_failed(void) {
    uint8_t frame[64];
    tg_response_header header;
    REQUIRE(read_response("response-service-failed.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_SERVICE_FAILED);
    CHECK_INT(header.method_index, 9);
    CHECK_INT(header.message_length, 0);
    CHECK_INT(header.request_id, 5);
}

static void response_too_many_pending(void) {
    uint8_t frame[64];
    tg_response_header header;
    REQUIRE(read_response("response-too-many-pending.hex", frame, sizeof frame, &header));
    CHECK_INT(tg_frame_status(header.status_code), TOLLGATE_TOO_MANY_PENDING);
    CHECK_INT(header.method_index, TG_METHOD_SUBMIT_PURCHASE);
    CHECK_INT(header.message_length, 0);
    CHECK_INT(header.request_id, 0x01020304);
    CHECK(tollgate_status_is_retryable(TOLLGATE_TOO_MANY_PENDING));
}

static void unknown_frame_status_is_a_bad_response(void) {
    CHECK_INT(tg_frame_status(3), TOLLGATE_BAD_RESPONSE);
    CHECK_INT(tg_frame_status(0xffffffffu), TOLLGATE_BAD_RESPONSE);
}

static void unknown_error_code_reads_as_internal(void) {
    /* IsSubscriberResponse{error: {code: 42, message: "x"}} */
    const uint8_t payload[] = {0x4a, 0x05, 0x08, 0x2a, 0x12, 0x01, 'x'};
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_is_subscriber(payload, sizeof payload, &result, &error), TOLLGATE_INTERNAL);
    CHECK(result == NULL);
    CHECK_STR(error.message, "x");
}

static void undecodable_payload_is_a_bad_response(void) {
    const uint8_t payload[] = {0x0a, 0x7f, 'a'}; /* a string field longer than the payload */
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    CHECK_INT(tg_decode_is_subscriber(payload, sizeof payload, &result, &error), TOLLGATE_BAD_RESPONSE);
    CHECK(result == NULL);
}

static void status_names(void) {
    CHECK_STR(tollgate_status_name(TOLLGATE_TOO_MANY_PENDING), "too_many_pending");
    CHECK_STR(tollgate_status_name(TOLLGATE_INVALID_ARGUMENT), "invalid_argument");
    CHECK_STR(tollgate_status_name((tollgate_status)77), "unknown");
    CHECK_STR(tollgate_status_name(TOLLGATE_TLS_FAILED), "tls_failed");
    CHECK(!tollgate_status_is_retryable(TOLLGATE_TLS_FAILED));
    CHECK_STR(tollgate_state_name(TOLLGATE_STATE_GRACE_PERIOD), "grace_period");
    CHECK_STR(tollgate_state_name((tollgate_subscription_state)42), "unknown");
    CHECK_STR(tollgate_store_name(TOLLGATE_STORE_GOOGLE_PLAY), "google_play");
}

int main(void) {
    static const test_case cases[] = {
        {"request_is_subscriber", request_is_subscriber},
        {"request_get_subscription", request_get_subscription},
        {"request_health", request_health},
        {"request_authenticate", request_authenticate},
        {"request_get_submission", request_get_submission},
        {"response_success_is_subscriber", response_success_is_subscriber},
        {"response_success_is_subscriber_access_level", response_success_is_subscriber_access_level},
        {"response_success_not_found", response_success_not_found},
        {"response_success_authenticate", response_success_authenticate},
        {"response_unauthenticated", response_unauthenticated},
        {"response_success_get_submission", response_success_get_submission},
        {"request_look_up", request_look_up},
        {"response_success_grant", response_success_grant},
        {"response_service_failed", response_service_failed},
        {"response_too_many_pending", response_too_many_pending},
        {"unknown_frame_status_is_a_bad_response", unknown_frame_status_is_a_bad_response},
        {"unknown_error_code_reads_as_internal", unknown_error_code_reads_as_internal},
        {"undecodable_payload_is_a_bad_response", undecodable_payload_is_a_bad_response},
        {"status_names", status_names},
    };
    return run_tests("c/frames", cases, sizeof cases / sizeof cases[0]);
}
