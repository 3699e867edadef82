/* The C client against a real `tollgate serve` configured with callers (keys and scopes) and a
 * Unix socket, on a database seeded with `tollgate seed`: authentication, scopes, GetSubmission,
 * the Unix socket, re-authentication on reconnection, TLS and mutual TLS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "live_callers.h"
#include "server.h"
#include "tollgate.h"

#define USERS 50

static char dir[512];
static char database[600];
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

/* Default options with TLS, verifying the server against the test CA. */
static void tls_options(tollgate_options *options) {
    tollgate_options_init(options);
    options->tls = true;
    options->tls_ca_file = cert_path("ca.pem");
}

/* Connects as WEB with options and asks for user-1's premium, which is active; the client, or
 * NULL when the connection failed (a failed check). */
static tollgate_client *connect_and_ask(uint16_t port, tollgate_options *options) {
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    CHECK_INT(connect_as("127.0.0.1", port, WEB, options, &client, &error), TOLLGATE_OK);
    if (!client) return NULL;
    tollgate_is_subscriber_result *result = NULL;
    CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_OK);
    CHECK(result && result->active);
    tollgate_is_subscriber_result_free(result);
    return client;
}

static void tls_with_a_key(void) {
    test_server server;
    uint16_t port;
    REQUIRE(start_tls_server(&server, &port, false, "tls"));
    tollgate_options options;
    tls_options(&options);
    tollgate_client *client = connect_and_ask(port, &options);
    tollgate_error error = {0};
    if (client) {
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
    tls_options(&options);
    options.tls_certificate_file = cert_path("client.pem");
    options.tls_private_key_file = cert_path("client.key");
    tollgate_client *client = connect_and_ask(port, &options);
    tollgate_close(client);
    tollgate_error error = {0};
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
    if (!callers_make_keys()) return false;
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
    if (!test_live_setup(dir, sizeof dir, database, sizeof database, USERS, "0.2")) return 2;
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
    int status = 0;
    if (!start_secured()) {
        fprintf(stderr, "could not start tollgate serve with callers; see %s/secured.log\n", dir);
        status = 1;
    } else {
        status = run_tests("c/live-secured", secured_cases, sizeof secured_cases / sizeof secured_cases[0]);
        test_server_stop(&secured);
    }
    return test_live_finish(dir, status);
}
