#include "decode.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

tollgate_status tg_application_error(const Tollgate__V1__Error *field, tollgate_error *error) {
    if (!field || field->code == TOLLGATE__V1__ERROR_CODE__ERROR_CODE_UNSPECIFIED) return TOLLGATE_OK;
    tollgate_status code = (field->code >= 1 && field->code <= 8) ? (tollgate_status)field->code : TOLLGATE_INTERNAL;
    return tg_error_set(error, code, "%s", field->message ? field->message : "");
}

static tollgate_status undecodable(const char *what, tollgate_error *error) {
    return tg_error_set(error, TOLLGATE_BAD_RESPONSE, "undecodable %s response", what);
}

static tollgate_status out_of_memory(tollgate_error *error) {
    return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
}

static char *copy(const char *text) { return strdup(text ? text : ""); }

tollgate_status tg_decode_is_subscriber(const uint8_t *payload, size_t length, tollgate_is_subscriber_result **result,
                                        tollgate_error *error) {
    *result = NULL;
    Tollgate__V1__IsSubscriberResponse *response = tollgate__v1__is_subscriber_response__unpack(NULL, length, payload);
    if (!response) return undecodable("IsSubscriber", error);
    tollgate_status status = tg_application_error(response->error, error);
    if (status == TOLLGATE_OK) {
        /* One block: the struct, then the strings, so that a plain free() releases it all. */
        const char *product = response->product_id ? response->product_id : "";
        const char *subscription = response->store_subscription_id ? response->store_subscription_id : "";
        const char *level = response->access_level ? response->access_level : "";
        size_t product_length = strlen(product) + 1, subscription_length = strlen(subscription) + 1;
        size_t level_length = strlen(level) + 1;
        tollgate_is_subscriber_result *made = malloc(sizeof *made + product_length + subscription_length + level_length);
        if (made) {
            char *strings = (char *)(made + 1);
            memcpy(strings, product, product_length);
            memcpy(strings + product_length, subscription, subscription_length);
            memcpy(strings + product_length + subscription_length, level, level_length);
            *made = (tollgate_is_subscriber_result){
                .active = response->active,
                .expires_at_ms = response->expires_at_ms,
                .state = (tollgate_subscription_state)response->state,
                .will_renew = response->will_renew,
                .store = (tollgate_store)response->store,
                .product_id = strings,
                .environment = (tollgate_environment)response->environment,
                .verified_at_ms = response->verified_at_ms,
                .evaluated_at_ms = response->evaluated_at_ms,
                .store_subscription_id = strings + product_length,
                .access_level = strings + product_length + subscription_length,
            };
            *result = made;
        } else {
            status = out_of_memory(error);
        }
    }
    tollgate__v1__is_subscriber_response__free_unpacked(response, NULL);
    return status;
}

/* Copies entitlement statuses; false when memory runs out (what was copied is in *out). */
static bool copy_entitlements(Tollgate__V1__EntitlementStatus *const *from, size_t count,
                              tollgate_entitlement_status **out, size_t *out_count) {
    *out = NULL;
    *out_count = 0;
    if (count == 0) return true;
    tollgate_entitlement_status *to = calloc(count, sizeof *to);
    if (!to) return false;
    *out = to;
    *out_count = count;
    bool complete = true;
    for (size_t i = 0; i < count; i++) {
        const Tollgate__V1__EntitlementStatus *e = from[i];
        to[i] = (tollgate_entitlement_status){
            .entitlement = copy(e->entitlement),
            .active = e->active,
            .expires_at_ms = e->expires_at_ms,
            .state = (tollgate_subscription_state)e->state,
            .will_renew = e->will_renew,
            .store = (tollgate_store)e->store,
            .product_id = copy(e->product_id),
            .environment = (tollgate_environment)e->environment,
            .verified_at_ms = e->verified_at_ms,
            .store_subscription_id = copy(e->store_subscription_id),
            .access_level = copy(e->access_level),
        };
        complete = complete && to[i].entitlement && to[i].product_id && to[i].store_subscription_id &&
                   to[i].access_level;
    }
    return complete;
}

/* Copies a repeated string field; false when memory runs out (what was copied is in *out). */
static bool copy_strings(char *const *from, size_t count, char ***out, size_t *out_count) {
    if (count == 0) return true;
    *out = calloc(count, sizeof **out);
    if (!*out) return false;
    *out_count = count;
    bool complete = true;
    for (size_t i = 0; i < count; i++) {
        (*out)[i] = copy(from[i]);
        complete = complete && (*out)[i];
    }
    return complete;
}

static bool copy_subscription(const Tollgate__V1__Subscription *from, tollgate_subscription *to) {
    *to = (tollgate_subscription){
        .store = (tollgate_store)from->store,
        .store_subscription_id = copy(from->store_subscription_id),
        .product_id = copy(from->product_id),
        .state = (tollgate_subscription_state)from->state,
        .active = from->active,
        .expires_at_ms = from->expires_at_ms,
        .will_renew = from->will_renew,
        .environment = (tollgate_environment)from->environment,
        .verified_at_ms = from->verified_at_ms,
        .reason = copy(from->reason),
    };
    return to->store_subscription_id && to->product_id && to->reason &&
           copy_strings(from->entitlements, from->n_entitlements, &to->entitlements, &to->entitlement_count) &&
           copy_strings(from->replaces, from->n_replaces, &to->replaces, &to->replace_count);
}

static bool copy_subscription_info(const Tollgate__V1__GetSubscriptionResponse *from, tollgate_subscription_info *to) {
    to->user_id = copy(from->user_id);
    to->evaluated_at_ms = from->evaluated_at_ms;
    if (!to->user_id) return false;
    if (from->n_subscriptions > 0) {
        to->subscriptions = calloc(from->n_subscriptions, sizeof *to->subscriptions);
        if (!to->subscriptions) return false;
        to->subscription_count = from->n_subscriptions;
        for (size_t i = 0; i < from->n_subscriptions; i++) {
            if (!copy_subscription(from->subscriptions[i], &to->subscriptions[i])) return false;
        }
    }
    return copy_entitlements(from->entitlements, from->n_entitlements, &to->entitlements, &to->entitlement_count);
}

tollgate_status tg_decode_subscription_info(const uint8_t *payload, size_t length, tollgate_subscription_info **info,
                                            tollgate_error *error) {
    *info = NULL;
    Tollgate__V1__GetSubscriptionResponse *response =
        tollgate__v1__get_subscription_response__unpack(NULL, length, payload);
    if (!response) return undecodable("GetSubscription", error);
    tollgate_status status = tg_application_error(response->error, error);
    if (status == TOLLGATE_OK) {
        tollgate_subscription_info *made = calloc(1, sizeof *made);
        if (made && copy_subscription_info(response, made)) {
            *info = made;
        } else {
            tollgate_subscription_info_free(made);
            status = out_of_memory(error);
        }
    }
    tollgate__v1__get_subscription_response__free_unpacked(response, NULL);
    return status;
}

/* A submission's fields (SubmitPurchaseResponse and GetSubmissionResponse share them). */
static tollgate_status make_submission(const char *submission_id, Tollgate__V1__SubmissionStatus status,
                                       Tollgate__V1__EntitlementStatus *const *entitlements, size_t entitlement_count,
                                       const char *rejection_reason, int64_t received_at_ms, const char *user_id,
                                       tollgate_submission **submission, tollgate_error *error) {
    tollgate_submission *made = calloc(1, sizeof *made);
    bool complete = false;
    if (made) {
        made->status = (tollgate_submission_status)status;
        made->submission_id = copy(submission_id);
        made->rejection_reason = copy(rejection_reason);
        made->received_at_ms = received_at_ms;
        made->user_id = copy(user_id);
        complete = copy_entitlements(entitlements, entitlement_count, &made->entitlements, &made->entitlement_count) &&
                   made->submission_id && made->rejection_reason && made->user_id;
    }
    if (!complete) {
        tollgate_submission_free(made);
        return out_of_memory(error);
    }
    *submission = made;
    return TOLLGATE_OK;
}

tollgate_status tg_decode_submission(const uint8_t *payload, size_t length, tollgate_submission **submission,
                                     tollgate_error *error) {
    *submission = NULL;
    Tollgate__V1__SubmitPurchaseResponse *response =
        tollgate__v1__submit_purchase_response__unpack(NULL, length, payload);
    if (!response) return undecodable("SubmitPurchase", error);
    tollgate_status status = tg_application_error(response->error, error);
    if (status == TOLLGATE_OK) {
        status = make_submission(response->submission_id, response->status, response->entitlements,
                                 response->n_entitlements, response->rejection_reason, 0, "", submission, error);
    }
    tollgate__v1__submit_purchase_response__free_unpacked(response, NULL);
    return status;
}

tollgate_status tg_decode_get_submission(const uint8_t *payload, size_t length, tollgate_submission **submission,
                                         tollgate_error *error) {
    *submission = NULL;
    Tollgate__V1__GetSubmissionResponse *response =
        tollgate__v1__get_submission_response__unpack(NULL, length, payload);
    if (!response) return undecodable("GetSubmission", error);
    tollgate_status status = tg_application_error(response->error, error);
    if (status == TOLLGATE_OK) {
        status = make_submission(response->submission_id, response->status, response->entitlements,
                                 response->n_entitlements, response->rejection_reason, response->received_at_ms,
                                 response->user_id, submission, error);
    }
    tollgate__v1__get_submission_response__free_unpacked(response, NULL);
    return status;
}

void tg_identity_free(tollgate_identity *identity) {
    if (!identity) return;
    if (identity->scopes) {
        for (size_t i = 0; i < identity->scope_count; i++) free(identity->scopes[i]);
        free(identity->scopes);
    }
    free(identity->caller);
    free(identity);
}

tollgate_status tg_decode_authenticate(const uint8_t *payload, size_t length, tollgate_identity **identity,
                                       tollgate_error *error) {
    *identity = NULL;
    Tollgate__V1__AuthenticateResponse *response = tollgate__v1__authenticate_response__unpack(NULL, length, payload);
    if (!response) return undecodable("Authenticate", error);
    tollgate_status status = tg_application_error(response->error, error);
    if (status == TOLLGATE_OK) {
        tollgate_identity *made = calloc(1, sizeof *made);
        bool complete = made && (made->caller = copy(response->caller)) != NULL;
        if (complete && response->n_scopes > 0) {
            made->scopes = calloc(response->n_scopes, sizeof *made->scopes);
            complete = made->scopes != NULL;
            if (complete) made->scope_count = response->n_scopes;
            for (size_t i = 0; complete && i < response->n_scopes; i++) {
                complete = (made->scopes[i] = copy(response->scopes[i])) != NULL;
            }
        }
        if (complete) {
            *identity = made;
        } else {
            tg_identity_free(made);
            status = out_of_memory(error);
        }
    }
    tollgate__v1__authenticate_response__free_unpacked(response, NULL);
    return status;
}

tollgate_status tg_decode_health(const uint8_t *payload, size_t length, tollgate_health_report **report,
                                 tollgate_error *error) {
    *report = NULL;
    Tollgate__V1__HealthResponse *response = tollgate__v1__health_response__unpack(NULL, length, payload);
    if (!response) return undecodable("Health", error);
    tollgate_status status = tg_application_error(response->error, error);
    if (status == TOLLGATE_OK) {
        tollgate_health_report *made = calloc(1, sizeof *made);
        if (made && (made->version = copy(response->version))) {
            made->status = (tollgate_serving_status)response->status;
            made->index_users = response->index_users;
            made->index_records = response->index_records;
            made->change_feed_applied_seq = response->change_feed_applied_seq;
            made->change_feed_head_seq = response->change_feed_head_seq;
            made->change_feed_lag_ms = response->change_feed_lag_ms;
            made->uptime_ms = response->uptime_ms;
            *report = made;
        } else {
            free(made);
            status = out_of_memory(error);
        }
    }
    tollgate__v1__health_response__free_unpacked(response, NULL);
    return status;
}
