/* The C client against a real `tollgate serve`, seeded with `tollgate seed`: the calls, batches,
 * reconnection and TOO_MANY_PENDING on an open server; then callers with keys and scopes,
 * GetSubmission, a Unix socket, TLS and mutual TLS on servers configured for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

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

/* ---- callers, scopes, GetSubmission, Unix socket, TLS ---------------------------------------- */

typedef struct caller {
    const char *name;
    const char *scopes; /* JSON array items */
    char key[80];
} caller;

static caller callers[] = {
    {.name = "web", .scopes = "\"read\", \"submit\""},
    {.name = "reader", .scopes = "\"read\""},
    {.name = "shop", .scopes = "\"read\", \"submit\""},
    {.name = "ops", .scopes = "\"admin\""},
};
enum { WEB, READER, SHOP, OPS };

static char certs[700];
static test_server secured;         /* callers configured, plus a Unix socket */
static char secured_config[700];
static char unix_socket[700];

static const char *cert_path(const char *name) {
    static char paths[8][800];
    static const char *names[8];
    for (int i = 0; i < 8; i++) {
        if (!names[i] || strcmp(names[i], name) == 0) {
            names[i] = name;
            snprintf(paths[i], sizeof paths[i], "%s/%s", certs, name);
            return paths[i];
        }
    }
    return "/too-many-names";
}

/* A random key "tgk_test_<hex>" (the config holds its SHA-256, written by write_config). */
static bool make_key(char *key, size_t key_size) {
    unsigned char random[16];
    if (RAND_bytes(random, sizeof random) != 1) return false;
    int at = snprintf(key, key_size, "tgk_test_");
    for (size_t i = 0; i < sizeof random; i++) at += snprintf(key + at, key_size - (size_t)at, "%02x", random[i]);
    return true;
}

/* Writes {"service": {"callers": [...], EXTRA}} to path. */
static bool write_config(const char *path, const char *extra) {
    FILE *file = fopen(path, "w");
    if (!file) return false;
    fputs("{\"service\": {\"callers\": [", file);
    for (size_t i = 0; i < sizeof callers / sizeof callers[0]; i++) {
        char digest[65];
        unsigned char raw[32];
        unsigned int length = 0;
        EVP_Digest(callers[i].key, strlen(callers[i].key), raw, &length, EVP_sha256(), NULL);
        for (size_t j = 0; j < 32; j++) snprintf(digest + 2 * j, 3, "%02x", raw[j]);
        fprintf(file, "%s{\"name\": \"%s\", \"keySha256\": \"%s\", \"scopes\": [%s]}", i ? ", " : "", callers[i].name,
                digest, callers[i].scopes);
    }
    fprintf(file, "]%s%s}}\n", extra && *extra ? ", " : "", extra ? extra : "");
    return fclose(file) == 0;
}

/* A port that was free a moment ago (for a listener the server does not report back). */
static uint16_t free_port(void) {
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (probe < 0 || bind(probe, (struct sockaddr *)&address, sizeof address) != 0 ||
        getsockname(probe, (struct sockaddr *)&address, &length) != 0) {
        if (probe >= 0) close(probe);
        return 0;
    }
    close(probe);
    return ntohs(address.sin_port);
}

static tollgate_status connect_as(const char *host, uint16_t port, int who, tollgate_options *options,
                                  tollgate_client **client, tollgate_error *error) {
    tollgate_options defaults;
    if (!options) {
        tollgate_options_init(&defaults);
        options = &defaults;
    }
    if (who >= 0) {
        options->caller = callers[who].name;
        options->key = callers[who].key;
    }
    tollgate_status status = tollgate_connect_with(host, port, options, client, error);
    if (status != TOLLGATE_OK && error) fprintf(stderr, "    connect: %s\n", error->message);
    return status;
}

static void authenticated_caller_calls(void) {
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    REQUIRE(connect_as("127.0.0.1", secured.port, WEB, NULL, &client, &error) == TOLLGATE_OK);
    const tollgate_identity *identity = tollgate_client_identity(client);
    CHECK(identity != NULL);
    if (identity) {
        CHECK_STR(identity->caller, "web");
        CHECK_INT(identity->scope_count, 2);
        bool read = false, submit = false;
        for (size_t i = 0; i < identity->scope_count; i++) {
            read = read || strcmp(identity->scopes[i], "read") == 0;
            submit = submit || strcmp(identity->scopes[i], "submit") == 0;
        }
        CHECK(read && submit);
    }
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    CHECK(result && result->active);
    tollgate_is_subscriber_result_free(result);
    tollgate_health_report *report = NULL;
    CHECK_INT(tollgate_health(client, &report, &error), TOLLGATE_OK);
    tollgate_health_report_free(report);
    tollgate_close(client);
}

static void wrong_key_or_unknown_caller_is_unauthenticated(void) {
    tollgate_options options;
    tollgate_options_init(&options);
    options.caller = "web";
    options.key = callers[READER].key; /* another caller's key */
    tollgate_client *client = (tollgate_client *)&options; /* must come back NULL */
    tollgate_error error = {0};
    CHECK_INT(tollgate_connect_with("127.0.0.1", secured.port, &options, &client, &error), TOLLGATE_UNAUTHENTICATED);
    CHECK(client == NULL);
    CHECK(strstr(error.message, callers[READER].key) == NULL);
    CHECK(strstr(error.message, "web") != NULL);
    options.caller = "nobody";
    CHECK_INT(tollgate_connect_with("127.0.0.1", secured.port, &options, &client, &error), TOLLGATE_UNAUTHENTICATED);
    CHECK(strstr(error.message, callers[READER].key) == NULL);
}

static void calls_before_authenticating_are_unauthenticated(void) {
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    REQUIRE(tollgate_connect("127.0.0.1", secured.port, 5000, &client, &error) == TOLLGATE_OK); /* no caller */
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_UNAUTHENTICATED);
    CHECK(result == NULL);
    tollgate_subscription_info *info = NULL;
    CHECK_INT(tollgate_get_subscription(client, "user-1", &info, &error), TOLLGATE_UNAUTHENTICATED);
    tollgate_close(client);
}

static void a_call_outside_the_scopes_is_permission_denied(void) {
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    REQUIRE(connect_as("127.0.0.1", secured.port, READER, NULL, &client, &error) == TOLLGATE_OK);
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    tollgate_is_subscriber_result_free(result);
    tollgate_purchase purchase = {.user_id = "buyer-2", .store = TOLLGATE_STORE_APP_STORE,
                                  .receipt = "2000000000778"};
    tollgate_submission *submission = NULL;
    CHECK_INT(tollgate_submit_purchase(client, &purchase, &submission, &error), TOLLGATE_PERMISSION_DENIED);
    CHECK(submission == NULL);
    CHECK(!tollgate_status_is_retryable(error.code));
    CHECK_INT(tollgate_get_submission(client, "anything", &submission, &error), TOLLGATE_PERMISSION_DENIED);
    /* A refusal leaves the connection usable. */
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    tollgate_is_subscriber_result_free(result);
    tollgate_close(client);
}

static void get_submission_after_submitting(void) {
    tollgate_client *web = NULL, *shop = NULL, *ops = NULL;
    tollgate_error error = {0};
    REQUIRE(connect_as("127.0.0.1", secured.port, WEB, NULL, &web, &error) == TOLLGATE_OK);
    tollgate_purchase purchase = {.user_id = "buyer-3", .store = TOLLGATE_STORE_APP_STORE,
                                  .receipt = "2000000000779", .wait_ms = 0};
    tollgate_submission *submitted = NULL;
    CHECK_INT(tollgate_submit_purchase(web, &purchase, &submitted, &error), TOLLGATE_OK);
    if (!submitted) {
        fprintf(stderr, "    submit: %s\n", error.message);
        tollgate_close(web);
        REQUIRE(submitted);
    }
    CHECK(strlen(submitted->submission_id) > 0);
    tollgate_submission *found = NULL;
    CHECK_INT(tollgate_get_submission(web, submitted->submission_id, &found, &error), TOLLGATE_OK);
    if (found) {
        CHECK_STR(found->submission_id, submitted->submission_id);
        CHECK_INT(found->status, submitted->status); /* PENDING (or REJECTED): no worker runs */
        CHECK_STR(found->user_id, "buyer-3");
        CHECK(found->received_at_ms > 1700000000000LL);
    } else {
        CHECK(found != NULL);
    }
    tollgate_submission_free(found);
    CHECK_INT(tollgate_get_submission(web, "999999999", &found, &error), TOLLGATE_NOT_FOUND);
    CHECK(found == NULL);
    CHECK_INT(tollgate_get_submission(web, "no-such-submission", &found, &error), TOLLGATE_INVALID_ARGUMENT);
    /* Another caller does not see it; an admin does. */
    if (connect_as("127.0.0.1", secured.port, SHOP, NULL, &shop, &error) == TOLLGATE_OK) {
        CHECK_INT(tollgate_get_submission(shop, submitted->submission_id, &found, &error), TOLLGATE_NOT_FOUND);
        tollgate_submission_free(found);
    } else {
        CHECK(shop != NULL);
    }
    if (connect_as("127.0.0.1", secured.port, OPS, NULL, &ops, &error) == TOLLGATE_OK) {
        CHECK_INT(tollgate_get_submission(ops, submitted->submission_id, &found, &error), TOLLGATE_OK);
        CHECK(found && strcmp(found->user_id, "buyer-3") == 0);
        tollgate_submission_free(found);
    } else {
        CHECK(ops != NULL);
    }
    tollgate_submission_free(submitted);
    tollgate_close(web);
    tollgate_close(shop);
    tollgate_close(ops);
}

static void unix_socket_with_a_key(void) {
    char address[720];
    snprintf(address, sizeof address, "unix:%s", unix_socket);
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    REQUIRE(connect_as(address, 0, WEB, NULL, &client, &error) == TOLLGATE_OK);
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    CHECK(result && result->active);
    tollgate_is_subscriber_result_free(result);
    tollgate_close(client);
    tollgate_options options;
    tollgate_options_init(&options);
    options.caller = "web";
    options.key = "not-the-key";
    CHECK_INT(tollgate_connect_with(address, 0, &options, &client, &error), TOLLGATE_UNAUTHENTICATED);
}

/* The server restarts under an authenticated client: the reconnection authenticates again. */
static void reconnection_authenticates_again(void) {
    char config[800], log_path[800];
    snprintf(config, sizeof config, "%s/reauth.json", dir);
    snprintf(log_path, sizeof log_path, "%s/reauth.log", dir);
    REQUIRE(write_config(config, NULL)); /* callers, and no Unix socket: the shared server has it */
    test_server server;
    REQUIRE(test_server_start(&server, database, config, 0, log_path));
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    if (connect_as("127.0.0.1", server.port, WEB, NULL, &client, &error) != TOLLGATE_OK) {
        test_server_stop(&server);
        REQUIRE(client);
    }
    uint16_t port = server.port;
    test_server_stop(&server);
    CHECK(test_server_start(&server, database, config, port, log_path));
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    CHECK(result && result->active);
    tollgate_is_subscriber_result_free(result);
    tollgate_close(client);
    test_server_stop(&server);
}

/* Starts a server with callers and a TLS listener on a free port (client_ca: mutual TLS). */
static bool start_tls_server(test_server *server, uint16_t *tls_port, bool client_ca, const char *name) {
    char config[800], log_path[800], extra[3000];
    snprintf(config, sizeof config, "%s/%s.json", dir, name);
    snprintf(log_path, sizeof log_path, "%s/%s.log", dir, name);
    *tls_port = free_port();
    int at = snprintf(extra, sizeof extra,
                      "\"tls\": {\"listen\": \"127.0.0.1:%u\", \"certificateFile\": \"%s\", \"privateKeyFile\": \"%s\"",
                      (unsigned)*tls_port, cert_path("server.pem"), cert_path("server.key"));
    if (client_ca) {
        at += snprintf(extra + at, sizeof extra - (size_t)at, ", \"clientCAFile\": \"%s\"", cert_path("ca.pem"));
    }
    snprintf(extra + at, sizeof extra - (size_t)at, "}");
    return *tls_port && write_config(config, extra) && test_server_start(server, database, config, 0, log_path);
}

static void tls_with_a_key(void) {
    test_server server;
    uint16_t port;
    REQUIRE(start_tls_server(&server, &port, false, "tls"));
    tollgate_options options;
    tollgate_options_init(&options);
    options.tls = true;
    options.tls_ca_file = cert_path("ca.pem");
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    CHECK_INT(connect_as("127.0.0.1", port, WEB, &options, &client, &error), TOLLGATE_OK);
    if (client) {
        tollgate_is_subscriber_result *result = NULL;
        CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
        CHECK(result && result->active);
        tollgate_is_subscriber_result_free(result);
        /* A batch over TLS: many frames per record, answers split across records. */
        enum { COUNT = 200 };
        static char ids[COUNT][16];
        tollgate_query queries[COUNT];
        for (int i = 0; i < COUNT; i++) {
            snprintf(ids[i], sizeof ids[i], "user-%d", i % USERS);
            queries[i] = (tollgate_query){.user_id = ids[i], .entitlement = "premium"};
        }
        tollgate_is_subscriber_item items[COUNT];
        CHECK_INT(tollgate_is_subscriber_batch(client, queries, COUNT, 64, items, &error), TOLLGATE_OK);
        for (int i = 0; i < COUNT; i++) CHECK(items[i].result && items[i].result->active == (i % USERS % 5 != 4));
        tollgate_is_subscriber_items_clear(items, COUNT);
        tollgate_close(client);
    }
    /* The same server against another CA, or for another name: refused before any call. */
    options.tls_ca_file = cert_path("other-ca.pem");
    CHECK_INT(connect_as("127.0.0.1", port, WEB, &options, &client, &error), TOLLGATE_TLS_FAILED);
    options.tls_ca_file = cert_path("ca.pem");
    options.tls_server_name = "tollgate.example";
    CHECK_INT(connect_as("127.0.0.1", port, WEB, &options, &client, &error), TOLLGATE_TLS_FAILED);
    test_server_stop(&server);
}

static void mutual_tls_with_a_key(void) {
    test_server server;
    uint16_t port;
    REQUIRE(start_tls_server(&server, &port, true, "mtls"));
    tollgate_options options;
    tollgate_options_init(&options);
    options.tls = true;
    options.tls_ca_file = cert_path("ca.pem");
    options.tls_certificate_file = cert_path("client.pem");
    options.tls_private_key_file = cert_path("client.key");
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    CHECK_INT(connect_as("127.0.0.1", port, WEB, &options, &client, &error), TOLLGATE_OK);
    if (client) {
        tollgate_is_subscriber_result *result = NULL;
        CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
        tollgate_is_subscriber_result_free(result);
        tollgate_close(client);
    }
    static const char *const refused[][2] = {{NULL, NULL}, {"other-client.pem", "other-client.key"}};
    for (size_t i = 0; i < 2; i++) {
        options.tls_certificate_file = refused[i][0] ? cert_path(refused[i][0]) : NULL;
        options.tls_private_key_file = refused[i][1] ? cert_path(refused[i][1]) : NULL;
        tollgate_status status = connect_as("127.0.0.1", port, WEB, &options, &client, &error);
        CHECK(status == TOLLGATE_TLS_FAILED || status == TOLLGATE_CONNECTION_CLOSED);
        CHECK(client == NULL);
    }
    test_server_stop(&server);
}

static bool start_secured(void) {
    for (size_t i = 0; i < sizeof callers / sizeof callers[0]; i++) {
        if (!make_key(callers[i].key, sizeof callers[i].key)) return false;
    }
    char extra[800], log_path[800];
    snprintf(secured_config, sizeof secured_config, "%s/secured.json", dir);
    snprintf(unix_socket, sizeof unix_socket, "%s/tollgate.sock", dir);
    snprintf(log_path, sizeof log_path, "%s/secured.log", dir);
    snprintf(extra, sizeof extra, "\"unixSocket\": \"%s\"", unix_socket);
    snprintf(certs, sizeof certs, "%s/certs", dir);
    return write_config(secured_config, extra) && test_make_certs(certs) &&
           test_server_start(&secured, database, secured_config, 0, log_path);
}

int main(void) {
    printf("tollgate binary: %s\n", test_tollgate_bin());
    if (access(test_tollgate_bin(), X_OK) != 0) {
        fprintf(stderr, "no tollgate binary at %s: run `swift build` or set TOLLGATE_BIN\n", test_tollgate_bin());
        return 2;
    }
    char log_path[700];
    if (!test_make_dir(dir, sizeof dir)) return 2;
    snprintf(database, sizeof database, "%s/tollgate.sqlite", dir);
    snprintf(log_path, sizeof log_path, "%s/serve.log", dir);
    if (!test_seed(database, USERS, "0.2") || !test_server_start(&shared_server, database, NULL, 0, log_path)) {
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
    static const test_case secured_cases[] = {
        {"authenticated_caller_calls", authenticated_caller_calls},
        {"wrong_key_or_unknown_caller_is_unauthenticated", wrong_key_or_unknown_caller_is_unauthenticated},
        {"calls_before_authenticating_are_unauthenticated", calls_before_authenticating_are_unauthenticated},
        {"a_call_outside_the_scopes_is_permission_denied", a_call_outside_the_scopes_is_permission_denied},
        {"get_submission_after_submitting", get_submission_after_submitting},
        {"unix_socket_with_a_key", unix_socket_with_a_key},
        {"reconnection_authenticates_again", reconnection_authenticates_again},
        {"tls_with_a_key", tls_with_a_key},
        {"mutual_tls_with_a_key", mutual_tls_with_a_key},
    };
    int status = run_tests("c/live", cases, sizeof cases / sizeof cases[0]);
    test_server_stop(&shared_server);
    if (!start_secured()) {
        fprintf(stderr, "could not start tollgate serve with callers; see %s/secured.log\n", dir);
        status = 1;
    } else {
        status |= run_tests("c/live-secured", secured_cases, sizeof secured_cases / sizeof secured_cases[0]);
        test_server_stop(&secured);
    }
    if (status == 0) {
        test_remove_dir(dir);
    } else {
        fprintf(stderr, "server logs kept in %s\n", dir);
    }
    return status;
}
