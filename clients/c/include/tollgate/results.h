/* Tollgate C client: the plain C values calls return.
 *
 * Enum values are the proto's (proto/tollgate.proto). A value this client does not know yet is
 * passed through as its number, so a newer server never breaks an older client: compare against
 * the constants, never assume the list is complete.
 *
 * Results are allocated by the library and owned by the caller: free each with its _free
 * function (NULL is accepted). Strings inside are never NULL ("" when the server sent none).
 */
#ifndef TOLLGATE_RESULTS_H
#define TOLLGATE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tollgate_store {
    TOLLGATE_STORE_UNSPECIFIED = 0,
    TOLLGATE_STORE_APP_STORE = 1,
    TOLLGATE_STORE_GOOGLE_PLAY = 2,
    TOLLGATE_STORE_AMAZON = 3,
    TOLLGATE_STORE_PROMOTIONAL = 4
} tollgate_store;

typedef enum tollgate_environment {
    TOLLGATE_ENVIRONMENT_UNSPECIFIED = 0,
    TOLLGATE_ENVIRONMENT_PRODUCTION = 1,
    TOLLGATE_ENVIRONMENT_SANDBOX = 2
} tollgate_environment;

typedef enum tollgate_subscription_state {
    TOLLGATE_STATE_UNSPECIFIED = 0,
    TOLLGATE_STATE_TRIAL = 1,
    TOLLGATE_STATE_INTRO_OFFER = 2,
    TOLLGATE_STATE_ACTIVE = 3,
    TOLLGATE_STATE_GRACE_PERIOD = 4,
    TOLLGATE_STATE_BILLING_RETRY = 5,
    TOLLGATE_STATE_ON_HOLD = 6,
    TOLLGATE_STATE_PAUSED = 7,
    TOLLGATE_STATE_EXPIRED = 8,
    TOLLGATE_STATE_REVOKED = 9
} tollgate_subscription_state;

typedef enum tollgate_submission_status {
    TOLLGATE_SUBMISSION_UNSPECIFIED = 0,
    TOLLGATE_SUBMISSION_PENDING = 1,
    TOLLGATE_SUBMISSION_VERIFIED = 2,
    TOLLGATE_SUBMISSION_REJECTED = 3
} tollgate_submission_status;

typedef enum tollgate_serving_status {
    TOLLGATE_SERVING_UNSPECIFIED = 0,
    TOLLGATE_SERVING = 1,
    TOLLGATE_SERVING_DEGRADED = 2,
    TOLLGATE_SERVING_NOT_SERVING = 3
} tollgate_serving_status;

/* Static lower-case names ("app_store", "grace_period", ...); "unknown" for a value not listed. */
const char *tollgate_store_name(tollgate_store store);
const char *tollgate_environment_name(tollgate_environment environment);
const char *tollgate_state_name(tollgate_subscription_state state);
const char *tollgate_submission_status_name(tollgate_submission_status status);
const char *tollgate_serving_status_name(tollgate_serving_status status);

/* IsSubscriber's answer. An unknown user or entitlement is not an error: active is false and
 * state TOLLGATE_STATE_UNSPECIFIED. Times are milliseconds since the epoch. */
typedef struct tollgate_is_subscriber_result {
    bool active;
    int64_t expires_at_ms;
    tollgate_subscription_state state;
    bool will_renew;
    tollgate_store store;
    const char *product_id;
    tollgate_environment environment;
    int64_t verified_at_ms;
    int64_t evaluated_at_ms;           /* the server's clock when it answered */
    const char *store_subscription_id;
    /* How much of the app `state` gives under the server's catalog: "full", "none", or a level
     * the operator names ("read_only" in billing retry, say, with active false); "" for an
     * unknown user or entitlement (read it as "none"). */
    const char *access_level;
} tollgate_is_subscriber_result;

void tollgate_is_subscriber_result_free(tollgate_is_subscriber_result *result);

/* One entitlement of a user, as evaluated at the answer's evaluated_at_ms. */
typedef struct tollgate_entitlement_status {
    char *entitlement;
    bool active;
    int64_t expires_at_ms;
    tollgate_subscription_state state;
    bool will_renew;
    tollgate_store store;
    char *product_id;
    tollgate_environment environment;
    int64_t verified_at_ms;
    char *store_subscription_id;
    char *access_level;                /* as tollgate_is_subscriber_result.access_level */
} tollgate_entitlement_status;

/* One store subscription or promotional grant. */
typedef struct tollgate_subscription {
    tollgate_store store;
    char *store_subscription_id;
    char *product_id;
    tollgate_subscription_state state;
    bool active;
    int64_t expires_at_ms;
    bool will_renew;
    tollgate_environment environment;
    int64_t verified_at_ms;
    size_t entitlement_count;
    char **entitlements;               /* what this subscription unlocks */
    /* The lifecycle rule behind `state` as the worker last wrote it ("current_period",
     * "billing_retry", "store_unreachable", ...); "" for a grant, or when the state has changed by
     * itself since. */
    char *reason;
    size_t replace_count;
    char **replaces;                   /* Google Play: the purchase tokens this one replaced, newest first */
} tollgate_subscription;

/* GetSubscription's answer. */
typedef struct tollgate_subscription_info {
    char *user_id;
    size_t subscription_count;
    tollgate_subscription *subscriptions;
    size_t entitlement_count;
    tollgate_entitlement_status *entitlements;
    int64_t evaluated_at_ms;
} tollgate_subscription_info;

void tollgate_subscription_info_free(tollgate_subscription_info *info);

/* SubmitPurchase's and GetSubmission's answer. */
typedef struct tollgate_submission {
    char *submission_id;
    tollgate_submission_status status;
    size_t entitlement_count;          /* with VERIFIED: the user's entitlements afterwards */
    tollgate_entitlement_status *entitlements;
    char *rejection_reason;            /* with REJECTED: why */
    int64_t received_at_ms;            /* GetSubmission: when it was stored (SubmitPurchase: 0) */
    char *user_id;                     /* GetSubmission: whose purchase it is (SubmitPurchase: "") */
} tollgate_submission;

void tollgate_submission_free(tollgate_submission *submission);

/* Authenticate's answer: the caller the server recognised and its scopes ("read", "submit",
 * "admin"). */
typedef struct tollgate_identity {
    char *caller;
    size_t scope_count;
    char **scopes;
} tollgate_identity;

/* Health's answer. */
typedef struct tollgate_health_report {
    tollgate_serving_status status;
    uint64_t index_users;
    uint64_t index_records;
    int64_t change_feed_applied_seq;
    int64_t change_feed_head_seq;
    int64_t change_feed_lag_ms;
    char *version;
    int64_t uptime_ms;
} tollgate_health_report;

void tollgate_health_report_free(tollgate_health_report *report);

#ifdef __cplusplus
}
#endif

#endif
