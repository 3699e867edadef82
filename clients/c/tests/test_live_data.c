/* The C client against a real `tollgate serve` whose database holds what `tollgate seed` does not
 * write, put there with SQLite as the worker would: the catalog the worker saves at its start (with
 * access levels), and a Google Play subscription in billing retry with its reason and the purchases
 * it replaced. Submissions with Play Billing data are read back from the inbox the server wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "server.h"
#include "tollgate.h"

static char dir[512];
static char database[600];
static test_server server;

/* Runs `sql` on the database; false (and a message) when it fails. */
static bool run_sql(const char *sql) {
    sqlite3 *db = NULL;
    char *message = NULL;
    bool ok = sqlite3_open_v2(database, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
              sqlite3_busy_timeout(db, 5000) == SQLITE_OK && sqlite3_exec(db, sql, NULL, NULL, &message) == SQLITE_OK;
    if (!ok) fprintf(stderr, "    sql failed: %s\n", message ? message : (db ? sqlite3_errmsg(db) : "cannot open"));
    sqlite3_free(message);
    sqlite3_close(db);
    return ok;
}

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* The worker's saved catalog with billing_retry read_only, and retry-user's Google Play purchase
 * in billing retry (its period ended an hour ago). */
static bool prepare(void) {
    char sql[2048];
    int64_t now = now_ms();
    snprintf(sql, sizeof sql,
             "INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES "
             "(1, '{\"accessLevels\": {\"billing_retry\": \"read_only\"}}', %lld);"
             "INSERT INTO users (user_id, created_at_ms) VALUES ('retry-user', %lld);"
             "INSERT INTO entitlements (user_id, entitlement, source, store, product_id, environment, state, will_renew,"
             " expires_at_ms, access_ends_at_ms, verified_at_ms, reason, replaces) VALUES ('retry-user', 'premium',"
             " 'google_play:tok-new', 'google_play', 'monthly', 'production', 'billing_retry', 1, %lld, %lld, %lld,"
             " 'billing_retry', 'tok-old-2 tok-old-1');",
             (long long)now, (long long)now, (long long)(now - 3600000), (long long)(now - 3600000), (long long)now);
    return run_sql(sql);
}

static tollgate_client *connect_server(void) {
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    if (tollgate_connect("127.0.0.1", server.port, 5000, &client, &error) != TOLLGATE_OK) {
        fprintf(stderr, "    connect: %s\n", error.message);
    }
    return client;
}

static void access_level_in_billing_retry(void) {
    tollgate_client *client = connect_server();
    REQUIRE(client);
    tollgate_error error = {0};
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "retry-user", "premium", &result, &error), TOLLGATE_OK);
    if (result) {
        CHECK(!result->active);
        CHECK_INT(result->state, TOLLGATE_STATE_BILLING_RETRY);
        CHECK_STR(result->access_level, "read_only");
        CHECK_STR(result->store_subscription_id, "tok-new");
    }
    tollgate_is_subscriber_result_free(result);
    result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "nobody", "premium", &result, &error), TOLLGATE_OK);
    if (result) CHECK_STR(result->access_level, "");
    tollgate_is_subscriber_result_free(result);

    tollgate_subscription_info *info = NULL;
    CHECK_INT(tollgate_get_subscription(client, "retry-user", &info, &error), TOLLGATE_OK);
    if (info) {
        REQUIRE(info->entitlement_count == 1);
        CHECK_STR(info->entitlements[0].entitlement, "premium");
        CHECK_STR(info->entitlements[0].access_level, "read_only");
    }
    tollgate_subscription_info_free(info);
    tollgate_close(client);
}

static void subscription_reason_and_replaces(void) {
    tollgate_client *client = connect_server();
    REQUIRE(client);
    tollgate_error error = {0};
    tollgate_subscription_info *info = NULL;
    CHECK_INT(tollgate_get_subscription(client, "retry-user", &info, &error), TOLLGATE_OK);
    if (info) {
        REQUIRE(info->subscription_count == 1);
        const tollgate_subscription *subscription = &info->subscriptions[0];
        CHECK_STR(subscription->store_subscription_id, "tok-new");
        CHECK_STR(subscription->reason, "billing_retry");
        REQUIRE(subscription->replace_count == 2);
        CHECK_STR(subscription->replaces[0], "tok-old-2");
        CHECK_STR(subscription->replaces[1], "tok-old-1");
    }
    tollgate_subscription_info_free(info);
    /* A seeded App Store user: no replaced purchases. */
    CHECK_INT(tollgate_get_subscription(client, "user-0", &info, &error), TOLLGATE_OK);
    if (info && info->subscription_count > 0) {
        CHECK_INT(info->subscriptions[0].replace_count, 0);
        CHECK(info->subscriptions[0].replaces == NULL);
    }
    tollgate_subscription_info_free(info);
    tollgate_close(client);
}

/* The Play Billing data and signature the server stored for `submission_id` (read from the inbox
 * as the worker would), into data and signature; false when there is no such submission. */
static bool stored_billing_data(const char *submission_id, char *data, size_t data_size, char *signature,
                                size_t signature_size) {
    sqlite3 *db = NULL;
    sqlite3_stmt *statement = NULL;
    bool found = false;
    if (sqlite3_open_v2(database, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT json_extract(CAST(payload AS TEXT), '$.googlePurchaseData'),"
                           " json_extract(CAST(payload AS TEXT), '$.googleSignature') FROM inbox WHERE id = ?",
                           -1, &statement, NULL) == SQLITE_OK &&
        sqlite3_bind_int64(statement, 1, strtoll(submission_id, NULL, 10)) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
        const unsigned char *stored_data = sqlite3_column_text(statement, 0);
        const unsigned char *stored_signature = sqlite3_column_text(statement, 1);
        snprintf(data, data_size, "%s", stored_data ? (const char *)stored_data : "(none)");
        snprintf(signature, signature_size, "%s", stored_signature ? (const char *)stored_signature : "(none)");
        found = true;
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return found;
}

static void google_play_billing_data_is_sent(void) {
    static const char purchase_data[] =
        "{\"orderId\":\"GPA.3372-0000-0001-00000\",\"packageName\":\"com.example.app\",\"productId\":\"monthly\","
        "\"purchaseTime\":1700000000000,\"purchaseState\":0,\"purchaseToken\":\"tok-c-1\",\"autoRenewing\":true}";
    static const char signature[] = "c2lnbmVkIGJ5IHBsYXk+Lz0=";
    tollgate_client *client = connect_server();
    REQUIRE(client);
    tollgate_error error = {0};
    tollgate_purchase purchase = {.user_id = "buyer-g", .store = TOLLGATE_STORE_GOOGLE_PLAY,
                                  .purchase_token = "tok-c-1", .product_id = "monthly",
                                  .google_purchase_data = purchase_data, .google_signature = signature};
    tollgate_submission *submitted = NULL;
    CHECK_INT(tollgate_submit_purchase(client, &purchase, &submitted, &error), TOLLGATE_OK);
    if (submitted) {
        CHECK_INT(submitted->status, TOLLGATE_SUBMISSION_PENDING); /* no worker runs */
        char data[512], stored_signature[128];
        CHECK(stored_billing_data(submitted->submission_id, data, sizeof data, stored_signature,
                                  sizeof stored_signature));
        CHECK_STR(data, purchase_data);
        CHECK_STR(stored_signature, signature);
    }
    tollgate_submission_free(submitted);

    /* One without the other is refused by the server: it read the field that was sent. */
    tollgate_purchase lone = purchase;
    lone.google_signature = NULL;
    submitted = NULL;
    CHECK_INT(tollgate_submit_purchase(client, &lone, &submitted, &error), TOLLGATE_INVALID_ARGUMENT);
    CHECK(submitted == NULL);
    CHECK(strstr(error.message, "google_purchase_data and google_signature go together") != NULL);
    lone = purchase;
    lone.google_purchase_data = "";
    CHECK_INT(tollgate_submit_purchase(client, &lone, &submitted, &error), TOLLGATE_INVALID_ARGUMENT);
    CHECK(submitted == NULL);

    /* A batch sends them too. */
    tollgate_purchase batch[2] = {purchase, purchase};
    batch[1].purchase_token = "tok-c-2";
    tollgate_submission_item items[2];
    CHECK_INT(tollgate_submit_purchase_batch(client, batch, 2, 0, items, &error), TOLLGATE_OK);
    for (size_t i = 0; i < 2; i++) {
        CHECK_INT(items[i].error.code, TOLLGATE_OK);
        char data[512], stored_signature[128];
        if (items[i].submission) {
            CHECK(stored_billing_data(items[i].submission->submission_id, data, sizeof data, stored_signature,
                                      sizeof stored_signature));
            CHECK_STR(data, purchase_data);
        }
    }
    tollgate_submission_items_clear(items, 2);
    tollgate_close(client);
}

int main(void) {
    if (!test_live_setup(dir, sizeof dir, database, sizeof database, 2, "0")) return 2;
    char log_path[700];
    snprintf(log_path, sizeof log_path, "%s/serve.log", dir);
    if (!prepare() || !test_server_start(&server, database, NULL, 0, log_path)) {
        fprintf(stderr, "could not prepare and start tollgate serve; files kept in %s\n", dir);
        return 2;
    }
    static const test_case cases[] = {
        {"access_level_in_billing_retry", access_level_in_billing_retry},
        {"subscription_reason_and_replaces", subscription_reason_and_replaces},
        {"google_play_billing_data_is_sent", google_play_billing_data_is_sent},
    };
    int status = run_tests("c/live-data", cases, sizeof cases / sizeof cases[0]);
    test_server_stop(&server);
    return test_live_finish(dir, status);
}
