/* The C client against a real `tollgate serve`, seeded with `tollgate seed`: the calls, batches,
 * reconnection and TOO_MANY_PENDING on an open server. Callers with keys and scopes, GetSubmission,
 * a Unix socket, TLS and mutual TLS are test_live_secured.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "server.h"
#include "tollgate.h"

#define USERS 50

static char dir[512];
static char database[600];
static test_server shared_server; /* serves most cases; the restart case runs its own */

static tollgate_client *connect_shared(void) {
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    tollgate_status status = tollgate_connect("127.0.0.1", shared_server.port, 5000, &client, &error);
    if (status != TOLLGATE_OK) fprintf(stderr, "    connect: %s\n", error.message);
    return client;
}

static void is_subscriber_active_user(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    CHECK_INT(error.code, TOLLGATE_OK);
    if (result) {
        CHECK(result->active);
        CHECK_INT(result->state, TOLLGATE_STATE_ACTIVE);
        CHECK_INT(result->store, TOLLGATE_STORE_APP_STORE);
        CHECK_STR(result->product_id, "premium_monthly");
        CHECK_INT(result->environment, TOLLGATE_ENVIRONMENT_PRODUCTION);
        CHECK(result->expires_at_ms > result->evaluated_at_ms);
        CHECK(result->verified_at_ms > 0);
        CHECK(strlen(result->store_subscription_id) > 0);
    } else {
        CHECK(result != NULL);
    }
    tollgate_is_subscriber_result_free(result);
    tollgate_close(client);
}

static void is_subscriber_inactive_and_unknown_users(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    tollgate_is_subscriber_result *result = NULL;
    /* --inactive-share 0.2 puts every fifth user (user-4, user-9, ...) in a state without access. */
    CHECK_INT(tollgate_is_subscriber(client, "user-4", "premium", &result, NULL), TOLLGATE_OK);
    REQUIRE(result);
    CHECK(!result->active);
    CHECK(result->state != TOLLGATE_STATE_UNSPECIFIED && result->state != TOLLGATE_STATE_ACTIVE);
    tollgate_is_subscriber_result_free(result);

    CHECK_INT(tollgate_is_subscriber(client, "nobody", "premium", &result, NULL), TOLLGATE_OK);
    REQUIRE(result);
    CHECK(!result->active);
    CHECK_INT(result->state, TOLLGATE_STATE_UNSPECIFIED);
    tollgate_is_subscriber_result_free(result);

    CHECK_INT(tollgate_is_subscriber(client, "user-1", "no-such-entitlement", &result, NULL), TOLLGATE_OK);
    REQUIRE(result);
    CHECK(!result->active);
    tollgate_is_subscriber_result_free(result);
    tollgate_close(client);
}

static void get_subscription(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    tollgate_subscription_info *info = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_get_subscription(client, "user-1", &info, &error), TOLLGATE_OK);
    REQUIRE(info);
    CHECK_STR(info->user_id, "user-1");
    CHECK(info->evaluated_at_ms > 0);
    CHECK_INT(info->subscription_count, 1);
    if (info->subscription_count == 1) {
        const tollgate_subscription *subscription = &info->subscriptions[0];
        CHECK_INT(subscription->store, TOLLGATE_STORE_APP_STORE);
        CHECK_STR(subscription->product_id, "premium_monthly");
        CHECK(subscription->active);
        CHECK_INT(subscription->entitlement_count, 1);
        if (subscription->entitlement_count == 1) CHECK_STR(subscription->entitlements[0], "premium");
    }
    CHECK_INT(info->entitlement_count, 1);
    if (info->entitlement_count == 1) {
        CHECK_STR(info->entitlements[0].entitlement, "premium");
        CHECK(info->entitlements[0].active);
        CHECK_INT(info->entitlements[0].state, TOLLGATE_STATE_ACTIVE);
    }
    tollgate_subscription_info_free(info);
    tollgate_close(client);
}

static void get_subscription_not_found(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    tollgate_subscription_info *info = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_get_subscription(client, "nobody", &info, &error), TOLLGATE_NOT_FOUND);
    CHECK(info == NULL);
    CHECK_INT(error.code, TOLLGATE_NOT_FOUND);
    CHECK(strlen(error.message) > 0);
    /* An application error leaves the connection usable. */
    CHECK_INT(tollgate_get_subscription(client, "user-2", &info, &error), TOLLGATE_OK);
    tollgate_subscription_info_free(info);
    tollgate_close(client);
}

static void invalid_arguments(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    tollgate_is_subscriber_result *result = NULL;
    tollgate_subscription_info *info = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_is_subscriber(client, "", "premium", &result, &error), TOLLGATE_INVALID_ARGUMENT);
    CHECK(result == NULL);
    CHECK_INT(error.code, TOLLGATE_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "user_id") != NULL);
    CHECK(!tollgate_status_is_retryable(error.code));
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "", &result, &error), TOLLGATE_INVALID_ARGUMENT);
    CHECK_INT(tollgate_get_subscription(client, "", &info, &error), TOLLGATE_INVALID_ARGUMENT);
    CHECK(info == NULL);
    char long_id[300];
    memset(long_id, 'u', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    CHECK_INT(tollgate_is_subscriber(client, long_id, "premium", &result, &error), TOLLGATE_INVALID_ARGUMENT);
    CHECK_INT(tollgate_is_subscriber(client, NULL, NULL, NULL, &error), TOLLGATE_USAGE);
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    tollgate_is_subscriber_result_free(result);
    tollgate_close(client);
}

static void health(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    tollgate_health_report *report = NULL;
    CHECK_INT(tollgate_health(client, &report, NULL), TOLLGATE_OK);
    REQUIRE(report);
    CHECK_INT(report->status, TOLLGATE_SERVING);
    CHECK_INT(report->index_users, USERS);
    CHECK(strlen(report->version) > 0);
    tollgate_health_report_free(report);
    tollgate_close(client);
}

/* A batch answers each query as the single call does, whatever the window. */
static void batch_matches_single_calls(void) {
    tollgate_client *client = connect_shared();
    REQUIRE(client);
    enum { COUNT = 120 };
    static char ids[COUNT][32];
    tollgate_query queries[COUNT];
    for (int i = 0; i < COUNT; i++) {
        snprintf(ids[i], sizeof ids[i], "user-%d", i % (USERS + 10)); /* user-50.. do not exist */
        queries[i] = (tollgate_query){.user_id = ids[i], .entitlement = "premium"};
    }
    queries[7].user_id = ""; /* one bad query fails alone */
    static const size_t windows[] = {16, 0, 1};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        tollgate_is_subscriber_item items[COUNT];
        CHECK_INT(tollgate_is_subscriber_batch(client, queries, COUNT, windows[w], items, NULL), TOLLGATE_OK);
        for (int i = 0; i < COUNT; i++) {
            if (i == 7) {
                CHECK_INT(items[i].error.code, TOLLGATE_INVALID_ARGUMENT);
                CHECK(items[i].result == NULL);
                continue;
            }
            CHECK_INT(items[i].error.code, TOLLGATE_OK);
            tollgate_is_subscriber_result *single = NULL;
            CHECK_INT(tollgate_is_subscriber(client, queries[i].user_id, "premium", &single, NULL), TOLLGATE_OK);
            if (items[i].result && single) {
                CHECK_INT(items[i].result->active, single->active);
                CHECK_INT(items[i].result->state, single->state);
                CHECK_INT(items[i].result->expires_at_ms, single->expires_at_ms);
                CHECK_STR(items[i].result->store_subscription_id, single->store_subscription_id);
            } else {
                CHECK(items[i].result && single);
            }
            tollgate_is_subscriber_result_free(single);
        }
        tollgate_is_subscriber_items_clear(items, COUNT);
    }
    tollgate_close(client);
}

/* The server restarts under an idle client: the next call reconnects. While it is down, calls
 * fail with a retryable CONNECT_FAILED. */
static void server_restart_reconnects(void) {
    char log_path[700];
    snprintf(log_path, sizeof log_path, "%s/restart.log", dir);
    test_server server;
    REQUIRE(test_server_start(&server, database, NULL, 0, log_path));
    uint16_t port = server.port;
    tollgate_client *client = NULL;
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_connect("127.0.0.1", port, 2000, &client, &error), TOLLGATE_OK);
    if (!client) {
        test_server_stop(&server);
        REQUIRE(client);
    }
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    tollgate_is_subscriber_result_free(result);

    test_server_stop(&server);
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_CONNECT_FAILED);
    CHECK(result == NULL);
    CHECK(tollgate_status_is_retryable(error.code));

    CHECK(test_server_start(&server, database, NULL, port, log_path));
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    CHECK(result && result->active);
    tollgate_is_subscriber_result_free(result);

    /* Restarted between two calls: the client notices the closed connection before sending. */
    test_server_stop(&server);
    CHECK(test_server_start(&server, database, NULL, port, log_path));
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    tollgate_is_subscriber_result_free(result);
    tollgate_health_report *report = NULL;
    CHECK_INT(tollgate_health(client, &report, &error), TOLLGATE_OK);
    CHECK(report && report->uptime_ms < 60000);
    tollgate_health_report_free(report);

    tollgate_close(client);
    test_server_stop(&server);
}

/* With service.maxPendingPerConnection 1, a second deferred SubmitPurchase in flight on the
 * connection is refused with TOO_MANY_PENDING; the first one completes (PENDING: no worker runs). */
static void too_many_pending(void) {
    char config[700], log_path[700];
    snprintf(config, sizeof config, "%s/pending.json", dir);
    snprintf(log_path, sizeof log_path, "%s/pending.log", dir);
    FILE *file = fopen(config, "w");
    REQUIRE(file);
    fputs("{\"service\": {\"maxPendingPerConnection\": 1}}\n", file);
    fclose(file);
    test_server server;
    REQUIRE(test_server_start(&server, database, config, 0, log_path));
    tollgate_client *client = NULL;
    CHECK_INT(tollgate_connect("127.0.0.1", server.port, 5000, &client, NULL), TOLLGATE_OK);
    if (client) {
        tollgate_purchase purchases[3];
        for (int i = 0; i < 3; i++) {
            purchases[i] = (tollgate_purchase){.user_id = "buyer-1", .store = TOLLGATE_STORE_APP_STORE,
                                               .receipt = "2000000000777", .wait_ms = 1000};
        }
        tollgate_submission_item items[3];
        tollgate_error error = {0};
        CHECK_INT(tollgate_submit_purchase_batch(client, purchases, 3, 0, items, &error), TOLLGATE_OK);
        CHECK_INT(items[0].error.code, TOLLGATE_OK);
        CHECK(items[0].submission && strlen(items[0].submission->submission_id) > 0);
        CHECK(items[0].submission && items[0].submission->status == TOLLGATE_SUBMISSION_PENDING);
        for (int i = 1; i < 3; i++) {
            CHECK_INT(items[i].error.code, TOLLGATE_TOO_MANY_PENDING);
            CHECK(items[i].submission == NULL);
        }
        tollgate_submission_items_clear(items, 3);

        /* One at a time is within the limit; the connection is still good. */
        tollgate_submission *submission = NULL;
        purchases[0].wait_ms = 0;
        CHECK_INT(tollgate_submit_purchase(client, &purchases[0], &submission, &error), TOLLGATE_OK);
        CHECK(submission && submission->status == TOLLGATE_SUBMISSION_PENDING);
        tollgate_submission_free(submission);
        purchases[0].receipt = NULL; /* App Store without evidence */
        CHECK_INT(tollgate_submit_purchase(client, &purchases[0], &submission, &error), TOLLGATE_INVALID_ARGUMENT);
        CHECK(submission == NULL);
        CHECK(strstr(error.message, "2000000000777") == NULL);
    }
    tollgate_close(client);
    test_server_stop(&server);
}

int main(void) {
    printf("tollgate binary: %s\n", test_tollgate_bin());
    if (!test_live_setup(dir, sizeof dir, database, sizeof database, USERS, "0.2")) return 2;
    char log_path[700];
    snprintf(log_path, sizeof log_path, "%s/serve.log", dir);
    if (!test_server_start(&shared_server, database, NULL, 0, log_path)) {
        fprintf(stderr, "could not start tollgate serve; files kept in %s\n", dir);
        return 2;
    }
    static const test_case cases[] = {
        {"is_subscriber_active_user", is_subscriber_active_user},
        {"is_subscriber_inactive_and_unknown_users", is_subscriber_inactive_and_unknown_users},
        {"get_subscription", get_subscription},
        {"get_subscription_not_found", get_subscription_not_found},
        {"invalid_arguments", invalid_arguments},
        {"health", health},
        {"batch_matches_single_calls", batch_matches_single_calls},
        {"server_restart_reconnects", server_restart_reconnects},
        {"too_many_pending", too_many_pending},
    };
    int status = run_tests("c/live", cases, sizeof cases / sizeof cases[0]);
    test_server_stop(&shared_server);
    return test_live_finish(dir, status);
}
