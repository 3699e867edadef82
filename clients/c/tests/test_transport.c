/* Transport failures, against a scripted fake server (what a real one does not do on demand) or
 * a port nobody listens on: refused, timeout, hang-up mid-call, malformed responses. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "fake_server.h"
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

int main(void) {
    static const test_case cases[] = {
        {"connect_refused", connect_refused},
        {"timeout_when_no_answer", timeout_when_no_answer},
        {"connection_closed_mid_call", connection_closed_mid_call},
        {"bad_responses", bad_responses},
    };
    return run_tests("c/transport", cases, sizeof cases / sizeof cases[0]);
}
