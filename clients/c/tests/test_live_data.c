/* The C client against a real `tollgate serve` whose database holds what `tollgate seed` does not
 * write, put there with SQLite as the worker would: the catalog the worker saves at its start (with
 * access levels), and a Google Play subscription in billing retry. */
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

int main(void) {
    if (access(test_tollgate_bin(), X_OK) != 0) {
        fprintf(stderr, "no tollgate binary at %s: run `swift build` or set TOLLGATE_BIN\n", test_tollgate_bin());
        return 2;
    }
    char log_path[700];
    if (!test_make_dir(dir, sizeof dir)) return 2;
    snprintf(database, sizeof database, "%s/tollgate.sqlite", dir);
    snprintf(log_path, sizeof log_path, "%s/serve.log", dir);
    if (!test_seed(database, 2, "0") || !prepare() || !test_server_start(&server, database, NULL, 0, log_path)) {
        fprintf(stderr, "could not prepare and start tollgate serve; files kept in %s\n", dir);
        return 2;
    }
    static const test_case cases[] = {
        {"access_level_in_billing_retry", access_level_in_billing_retry},
    };
    int status = run_tests("c/live-data", cases, sizeof cases / sizeof cases[0]);
    test_server_stop(&server);
    if (status == 0) {
        test_remove_dir(dir);
    } else {
        fprintf(stderr, "server log kept in %s\n", dir);
    }
    return status;
}
