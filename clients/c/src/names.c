/* Names of the proto enums, as the CLI and logs print them. */
#include "tollgate/results.h"

#define NAME_OF(table, value) \
    ((unsigned)(value) < sizeof(table) / sizeof(table)[0] ? (table)[(unsigned)(value)] : "unknown")

const char *tollgate_store_name(tollgate_store store) {
    static const char *const names[] = {"unspecified", "app_store", "google_play", "amazon", "promotional"};
    return NAME_OF(names, store);
}

const char *tollgate_environment_name(tollgate_environment environment) {
    static const char *const names[] = {"unspecified", "production", "sandbox"};
    return NAME_OF(names, environment);
}

const char *tollgate_state_name(tollgate_subscription_state state) {
    static const char *const names[] = {
        "unspecified", "trial",   "intro_offer", "active",  "grace_period",
        "billing_retry", "on_hold", "paused",      "expired", "revoked",
    };
    return NAME_OF(names, state);
}

const char *tollgate_submission_status_name(tollgate_submission_status status) {
    static const char *const names[] = {"unspecified", "pending", "verified", "rejected"};
    return NAME_OF(names, status);
}

const char *tollgate_serving_status_name(tollgate_serving_status status) {
    static const char *const names[] = {"unspecified", "serving", "degraded", "not_serving"};
    return NAME_OF(names, status);
}
