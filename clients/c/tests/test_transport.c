/* Transport, against a scripted fake server (what a real one does not do on demand) or a port
 * nobody listens on: refused, timeout, hang-up mid-call, malformed responses; Authenticate on
 * connect, Unix sockets, TLS and mutual TLS (with a CA made for the run by clients/test-certs). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "fake_server.h"
#include "golden.h"
#include "server.h"
#include "socket.h"
#include "tollgate.h"

static void connect_refused(void) {
    /* A port that was just free: bind, read it back, close. */
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    REQUIRE(bind(probe, (struct sockaddr *)&address, sizeof address) == 0);
    getsockname(probe, (struct sockaddr *)&address, &length);
    close(probe);
    tollgate_client *client = (tollgate_client *)&address; /* must come back NULL */
    tollgate_error error = {0};
    CHECK_INT(tollgate_connect("127.0.0.1", ntohs(address.sin_port), 1000, &client, &error), TOLLGATE_CONNECT_FAILED);
    CHECK(client == NULL);
    CHECK(strstr(error.message, "refused") != NULL);
    CHECK_INT(tollgate_connect("no-such-host.invalid", 1, 1000, &client, &error), TOLLGATE_CONNECT_FAILED);
}

static void timeout_when_no_answer(void) {
    fake_server fake;
    REQUIRE(fake_server_start(&fake, FAKE_SILENT, NULL, 0) == 0);
    tollgate_options options;
    tollgate_options_init(&options);
    options.call_timeout_ms = 200;
    tollgate_client *client = NULL;
    CHECK_INT(tollgate_connect_with("127.0.0.1", fake.port, &options, &client, NULL), TOLLGATE_OK);
    if (client) {
        tollgate_is_subscriber_result *result = NULL;
        tollgate_error error = {0};
        int64_t started = tg_now_ms();
        CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_TIMEOUT);
        int64_t waited = tg_now_ms() - started;
        CHECK(waited >= 190 && waited < 3000);
        CHECK(tollgate_status_is_retryable(error.code));
    }
    tollgate_close(client);
    fake_server_stop(&fake);
}

static void connection_closed_mid_call(void) {
    fake_server fake;
    REQUIRE(fake_server_start(&fake, FAKE_HANG_UP, NULL, 0) == 0);
    tollgate_client *client = NULL;
    CHECK_INT(tollgate_connect("127.0.0.1", fake.port, 2000, &client, NULL), TOLLGATE_OK);
    if (client) {
        tollgate_query queries[3] = {{"a", "premium"}, {"b", "premium"}, {"c", "premium"}};
        tollgate_is_subscriber_item items[3];
        tollgate_error error = {0};
        CHECK_INT(tollgate_is_subscriber_batch(client, queries, 3, 0, items, &error), TOLLGATE_CONNECTION_CLOSED);
        for (int i = 0; i < 3; i++) CHECK_INT(items[i].error.code, TOLLGATE_CONNECTION_CLOSED);
        tollgate_is_subscriber_items_clear(items, 3);
    }
    tollgate_close(client);
    fake_server_stop(&fake);
}

static void bad_responses(void) {
    /* status 0 for method 0 with a payload that does not decode */
    const uint8_t undecodable[] = {0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0x7f, 'a'};
    /* status 0 for method 0 with a 2 GiB payload */
    const uint8_t oversized[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0};
    /* status 0, but for method 3 */
    const uint8_t wrong_method[] = {0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    const struct {
        const uint8_t *bytes;
        size_t length;
    } replies[] = {{undecodable, sizeof undecodable}, {oversized, sizeof oversized}, {wrong_method, sizeof wrong_method}};
    for (size_t r = 0; r < sizeof replies / sizeof replies[0]; r++) {
        fake_server fake;
        REQUIRE(fake_server_start(&fake, FAKE_REPLY, replies[r].bytes, replies[r].length) == 0);
        tollgate_client *client = NULL;
        CHECK_INT(tollgate_connect("127.0.0.1", fake.port, 2000, &client, NULL), TOLLGATE_OK);
        if (client) {
            tollgate_is_subscriber_result *result = NULL;
            tollgate_error error = {0};
            CHECK_INT(tollgate_is_subscriber(client, "user-1", "premium", &result, &error), TOLLGATE_BAD_RESPONSE);
            CHECK(result == NULL);
        }
        tollgate_close(client);
        fake_server_stop(&fake);
    }
}

static char certs[512];

/* The path of a file in the certificate directory; the same name always gets the same buffer. */
static const char *cert(const char *name) {
    static char names[16][32], paths[16][700];
    size_t i = 0;
    while (i < 16 && names[i][0] && strcmp(names[i], name) != 0) i++;
    if (i == 16) return "/too-many-certificate-names";
    if (!names[i][0]) {
        snprintf(names[i], sizeof names[i], "%s", name);
        snprintf(paths[i], sizeof paths[i], "%s/%s", certs, name);
    }
    return paths[i];
}

/* Golden frames glued together: the fake server's script. */
static size_t script(uint8_t *out, size_t capacity, const char *first, const char *second) {
    size_t length = golden_read(first, out, capacity);
    if (length && second) {
        size_t more = golden_read(second, out + length, capacity - length);
        length = more ? length + more : 0;
    }
    return length;
}

static void authenticates_before_the_first_call(void) {
    uint8_t reply[256];
    size_t reply_length = script(reply, sizeof reply, "response-success-authenticate.hex",
                                 "response-success-is-subscriber.hex");
    REQUIRE(reply_length > 0);
    fake_server fake;
    REQUIRE(fake_server_start(&fake, FAKE_REPLY, reply, reply_length) == 0);
    tollgate_options options;
    tollgate_options_init(&options);
    options.caller = "web";
    options.key = "example-key-0001";
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_connect_with("127.0.0.1", fake.port, &options, &client, &error), TOLLGATE_OK);
    if (client) {
        const tollgate_identity *identity = tollgate_client_identity(client);
        CHECK(identity != NULL);
        if (identity) {
            CHECK_STR(identity->caller, "web");
            CHECK_INT(identity->scope_count, 2);
        }
        tollgate_is_subscriber_result *result = NULL;
        CHECK_INT(tollgate_is_subscriber(client, "user-42", "premium", &result, &error), TOLLGATE_OK);
        CHECK(result && result->active);
        tollgate_is_subscriber_result_free(result);
    }
    tollgate_close(client);
    fake_server_stop(&fake);
    /* What went on the wire first is the golden Authenticate frame, byte for byte. */
    uint8_t expected[128];
    size_t expected_length = golden_read("request-authenticate.hex", expected, sizeof expected);
    REQUIRE(expected_length > 0 && fake.received_length > expected_length + 12);
    CHECK(memcmp(fake.received, expected, expected_length) == 0);
    CHECK_INT(fake.received[expected_length], 0); /* then IsSubscriber (method 0), request id 2 */
    CHECK_INT(fake.received[expected_length + 8], 2);
}

static void refused_authentication_fails_the_connect(void) {
    uint8_t reply[128];
    size_t reply_length = script(reply, sizeof reply, "response-unauthenticated.hex", NULL);
    REQUIRE(reply_length > 0);
    fake_server fake;
    REQUIRE(fake_server_start(&fake, FAKE_REPLY, reply, reply_length) == 0);
    tollgate_options options;
    tollgate_options_init(&options);
    options.caller = "web";
    options.key = "never-print-this-key";
    tollgate_client *client = (tollgate_client *)&options; /* must come back NULL */
    tollgate_error error = {0};
    CHECK_INT(tollgate_connect_with("127.0.0.1", fake.port, &options, &client, &error), TOLLGATE_UNAUTHENTICATED);
    CHECK(client == NULL);
    CHECK(strstr(error.message, "web") != NULL);
    CHECK(strstr(error.message, "unknown caller or wrong key") != NULL);
    CHECK(strstr(error.message, "never-print-this-key") == NULL);
    CHECK(!tollgate_status_is_retryable(error.code));
    fake_server_stop(&fake);
    CHECK(fake.received_length > 0 && fake.received[0] == 4); /* Authenticate was the first call */

    options.key = NULL;
    CHECK_INT(tollgate_connect_with("127.0.0.1", fake.port, &options, &client, &error), TOLLGATE_USAGE);
}

static void unix_socket(void) {
    char path[700];
    snprintf(path, sizeof path, "%s/fake.sock", certs);
    uint8_t reply[128];
    size_t reply_length = script(reply, sizeof reply, "response-success-is-subscriber.hex", NULL);
    REQUIRE(reply_length > 0);
    fake_server fake;
    fake_server_options where = {.unix_path = path};
    REQUIRE(fake_server_start_with(&fake, FAKE_REPLY, reply, reply_length, &where) == 0);
    char address[720];
    snprintf(address, sizeof address, "unix:%s", path);
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_connect(address, 0, 2000, &client, &error), TOLLGATE_OK);
    if (client) {
        tollgate_is_subscriber_result *result = NULL;
        CHECK_INT(tollgate_is_subscriber(client, "user-42", "premium", &result, &error), TOLLGATE_OK);
        CHECK(result && result->active);
        tollgate_is_subscriber_result_free(result);
    }
    tollgate_close(client);
    fake_server_stop(&fake);
    CHECK_INT(tollgate_connect(address, 0, 2000, &client, &error), TOLLGATE_CONNECT_FAILED);
    CHECK(strstr(error.message, path) != NULL);
    CHECK_INT(tollgate_connect("unix:", 0, 2000, &client, &error), TOLLGATE_USAGE);
}

static tollgate_status tg_error_set_for_test(tollgate_error *error) {
    snprintf(error->message, sizeof error->message, "the fake server did not start");
    return error->code = TOLLGATE_USAGE;
}

/* Connects with options to a TLS fake server answering IsSubscriber; returns the connect status. */
static tollgate_status tls_round_trip(const fake_server_options *where, const char *host, tollgate_options *options,
                                      const char *authenticate_reply, tollgate_error *error) {
    uint8_t reply[256];
    size_t reply_length = script(reply, sizeof reply, authenticate_reply ? authenticate_reply
                                                                         : "response-success-is-subscriber.hex",
                                 authenticate_reply ? "response-success-is-subscriber.hex" : NULL);
    fake_server fake;
    if (reply_length == 0 || fake_server_start_with(&fake, FAKE_REPLY, reply, reply_length, where) != 0) {
        return tg_error_set_for_test(error);
    }
    options->tls = true;
    tollgate_client *client = NULL;
    tollgate_status status = tollgate_connect_with(host, fake.port, options, &client, error);
    if (client) {
        tollgate_is_subscriber_result *result = NULL;
        status = tollgate_is_subscriber(client, "user-42", "premium", &result, error);
        if (status == TOLLGATE_OK && !(result && result->active)) status = TOLLGATE_BAD_RESPONSE;
        tollgate_is_subscriber_result_free(result);
    }
    tollgate_close(client);
    fake_server_stop(&fake);
    return status;
}

static void tls_verified(void) {
    fake_server_options server = {.tls_cert = cert("server.pem"), .tls_key = cert("server.key")};
    tollgate_options options;
    tollgate_error error = {0};
    tollgate_options_init(&options);
    options.tls_ca_file = cert("ca.pem");
    CHECK_INT(tls_round_trip(&server, "127.0.0.1", &options, NULL, &error), TOLLGATE_OK); /* IP SAN */
    tollgate_options_init(&options);
    options.tls_ca_file = cert("ca.pem");
    options.tls_server_name = "localhost";
    CHECK_INT(tls_round_trip(&server, "127.0.0.1", &options, NULL, &error), TOLLGATE_OK); /* DNS SAN */
    tollgate_options_init(&options);
    options.tls_ca_file = cert("ca.pem");
    CHECK_INT(tls_round_trip(&server, "localhost", &options, NULL, &error), TOLLGATE_OK);
}

static void tls_refuses_an_unverified_server(void) {
    fake_server_options server = {.tls_cert = cert("server.pem"), .tls_key = cert("server.key")};
    tollgate_options options;
    tollgate_error error = {0};
    tollgate_options_init(&options);
    options.tls_ca_file = cert("other-ca.pem");
    CHECK_INT(tls_round_trip(&server, "127.0.0.1", &options, NULL, &error), TOLLGATE_TLS_FAILED);
    CHECK(strstr(error.message, "did not verify") != NULL);
    CHECK(!tollgate_status_is_retryable(error.code));
    tollgate_options_init(&options);
    options.tls_ca_file = cert("ca.pem");
    options.tls_server_name = "tollgate.example";
    CHECK_INT(tls_round_trip(&server, "127.0.0.1", &options, NULL, &error), TOLLGATE_TLS_FAILED);
    CHECK(strstr(error.message, "did not verify") != NULL);
    tollgate_options_init(&options); /* the system's roots do not know the test CA */
    CHECK_INT(tls_round_trip(&server, "127.0.0.1", &options, NULL, &error), TOLLGATE_TLS_FAILED);
}

static void mutual_tls(void) {
    fake_server_options server = {.tls_cert = cert("server.pem"), .tls_key = cert("server.key"),
                                  .tls_client_ca = cert("ca.pem")};
    tollgate_options options;
    tollgate_error error = {0};
    tollgate_options_init(&options);
    options.tls_ca_file = cert("ca.pem");
    options.tls_certificate_file = cert("client.pem");
    options.tls_private_key_file = cert("client.key");
    options.caller = "web";
    options.key = "example-key-0001";
    CHECK_INT(tls_round_trip(&server, "127.0.0.1", &options, "response-success-authenticate.hex", &error), TOLLGATE_OK);

    /* Without a certificate, or with one from a CA the server does not trust, the server refuses:
     * with TLS 1.3 the client learns it on its first read, the Authenticate answer. */
    static const char *const refused[][2] = {{NULL, NULL}, {"other-client.pem", "other-client.key"}};
    for (size_t i = 0; i < 2; i++) {
        tollgate_options_init(&options);
        options.tls_ca_file = cert("ca.pem");
        options.tls_certificate_file = refused[i][0] ? cert(refused[i][0]) : NULL;
        options.tls_private_key_file = refused[i][1] ? cert(refused[i][1]) : NULL;
        options.caller = "web";
        options.key = "example-key-0001";
        tollgate_status status =
            tls_round_trip(&server, "127.0.0.1", &options, "response-success-authenticate.hex", &error);
        CHECK(status == TOLLGATE_TLS_FAILED || status == TOLLGATE_CONNECTION_CLOSED);
        if (status != TOLLGATE_TLS_FAILED && status != TOLLGATE_CONNECTION_CLOSED) {
            fprintf(stderr, "    got %s: %s\n", tollgate_status_name(status), error.message);
        }
        CHECK(strstr(error.message, "example-key-0001") == NULL);
    }
}

static void tls_over_a_unix_socket(void) {
    char path[700], address[720];
    snprintf(path, sizeof path, "%s/tls.sock", certs);
    snprintf(address, sizeof address, "unix:%s", path);
    fake_server_options server = {.unix_path = path, .tls_cert = cert("server.pem"), .tls_key = cert("server.key")};
    tollgate_options options;
    tollgate_error error = {0};
    tollgate_options_init(&options);
    options.tls_ca_file = cert("ca.pem");
    tollgate_client *client = NULL;
    options.tls = true;
    CHECK_INT(tollgate_connect_with(address, 0, &options, &client, &error), TOLLGATE_USAGE); /* needs a name */
    options.tls_server_name = "localhost";
    CHECK_INT(tls_round_trip(&server, address, &options, NULL, &error), TOLLGATE_OK);
}

static void tls_files_that_do_not_load(void) {
    tollgate_options options;
    tollgate_error error = {0};
    tollgate_client *client = NULL;
    tollgate_options_init(&options);
    options.tls = true;
    options.tls_ca_file = cert("no-such-ca.pem");
    CHECK_INT(tollgate_connect_with("127.0.0.1", 1, &options, &client, &error), TOLLGATE_USAGE);
    CHECK(strstr(error.message, "no-such-ca.pem") != NULL);
    tollgate_options_init(&options);
    options.tls = true;
    options.tls_private_key_file = cert("client.key");
    CHECK_INT(tollgate_connect_with("127.0.0.1", 1, &options, &client, &error), TOLLGATE_USAGE);
    tollgate_options_init(&options);
    options.tls = true;
    options.tls_certificate_file = cert("client.pem");
    options.tls_private_key_file = cert("server.key"); /* not this certificate's key */
    CHECK_INT(tollgate_connect_with("127.0.0.1", 1, &options, &client, &error), TOLLGATE_USAGE);
    CHECK(client == NULL);
}

int main(void) {
    static const test_case cases[] = {
        {"connect_refused", connect_refused},
        {"timeout_when_no_answer", timeout_when_no_answer},
        {"connection_closed_mid_call", connection_closed_mid_call},
        {"bad_responses", bad_responses},
        {"authenticates_before_the_first_call", authenticates_before_the_first_call},
        {"refused_authentication_fails_the_connect", refused_authentication_fails_the_connect},
        {"unix_socket", unix_socket},
        {"tls_verified", tls_verified},
        {"tls_refuses_an_unverified_server", tls_refuses_an_unverified_server},
        {"mutual_tls", mutual_tls},
        {"tls_over_a_unix_socket", tls_over_a_unix_socket},
        {"tls_files_that_do_not_load", tls_files_that_do_not_load},
    };
    if (!test_make_dir(certs, sizeof certs) || !test_make_certs(certs)) return 2;
    int status = run_tests("c/transport", cases, sizeof cases / sizeof cases[0]);
    test_remove_dir(certs);
    return status;
}
