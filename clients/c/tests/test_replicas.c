/* The C client given two real `tollgate serve` replicas on one database (issue 27): calls spread
 * over both, every call answered after one replica is killed with SIGKILL, the client back on it
 * once it returns, and a SubmitPurchase never sent twice. Which replica took calls is read from the
 * kernel's list of the connections each accepted (/proc/net/tcp), never from timing. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <sys/wait.h>

#include "check.h"
#include "server.h"
#include "tollgate.h"

static char dir[512];
static char database[600];
static test_server a, b;

static void sleep_ms(int ms) { nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L}, NULL); }

/* Established TCP connections whose local port is `port`: those the server on it accepted (a
 * client's side of a connection has the port as its remote port and is not counted). */
static int accepted_connections(uint16_t port) {
    int count = 0;
    const char *tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    for (size_t t = 0; t < 2; t++) {
        FILE *file = fopen(tables[t], "r");
        if (!file) continue;
        char line[512];
        if (!fgets(line, sizeof line, file)) line[0] = 0; /* the header */
        while (fgets(line, sizeof line, file)) {
            char local[128], remote[128], state[8];
            /* sl local_address rem_address st ...; an address is HEXIP:HEXPORT, st 01 is ESTABLISHED. */
            if (sscanf(line, " %*s %127s %127s %7s", local, remote, state) != 3) continue;
            const char *colon = strrchr(local, ':');
            if (colon && strcmp(state, "01") == 0 && strtol(colon + 1, NULL, 16) == port) count++;
        }
        fclose(file);
    }
    return count;
}

/* SIGKILL: no graceful shutdown, the kernel resets its connections. */
static void kill_server(test_server *server) {
    if (server->pid <= 0) return;
    kill(server->pid, SIGKILL);
    int status;
    waitpid(server->pid, &status, 0);
    server->pid = -1;
}

static bool start_replicas(void) {
    char log_a[700], log_b[700];
    snprintf(log_a, sizeof log_a, "%s/a.log", dir);
    snprintf(log_b, sizeof log_b, "%s/b.log", dir);
    return test_server_start(&a, database, NULL, 0, log_a) && test_server_start(&b, database, NULL, 0, log_b);
}

static tollgate_client *connect_both(int call_timeout_ms) {
    tollgate_server servers[] = {{"127.0.0.1", a.port}, {"127.0.0.1", b.port}};
    tollgate_options options;
    tollgate_options_init(&options);
    options.call_timeout_ms = call_timeout_ms;
    tollgate_client *client = NULL;
    tollgate_error error = {0};
    if (tollgate_connect_servers(servers, 2, &options, &client, &error) != TOLLGATE_OK) {
        fprintf(stderr, "    connect: %s\n", error.message);
        return NULL;
    }
    tollgate_client_set_replica_backoff(client, 200, 400);
    return client;
}

static bool active(tollgate_client *client, const char *user) {
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error = {0};
    tollgate_status status = tollgate_is_subscriber(client, user, "premium", &result, &error);
    if (status != TOLLGATE_OK) fprintf(stderr, "    is_subscriber: %s\n", error.message);
    bool yes = status == TOLLGATE_OK && result && result->active;
    tollgate_is_subscriber_result_free(result);
    return yes;
}

static void calls_spread_and_fail_over(void) {
    REQUIRE(start_replicas());
    tollgate_client *client = connect_both(5000);
    REQUIRE(client);
    CHECK_INT(accepted_connections(a.port), 1); /* connected at once to the first */
    CHECK_INT(accepted_connections(b.port), 0);
    for (int i = 0; i < 10; i++) CHECK(active(client, "user-1"));
    CHECK_INT(accepted_connections(a.port), 1);
    CHECK_INT(accepted_connections(b.port), 1); /* replica B took calls too */

    uint16_t port_a = a.port;
    kill_server(&a);
    int answered = 0;
    for (int i = 0; i < 50; i++) answered += active(client, "user-2");
    CHECK_INT(answered, 50);
    CHECK_INT(accepted_connections(b.port), 1);

    /* A batch of reads, too. */
    tollgate_query queries[20];
    tollgate_is_subscriber_item items[20];
    for (int i = 0; i < 20; i++) queries[i] = (tollgate_query){"user-3", "premium"};
    tollgate_error error = {0};
    CHECK_INT(tollgate_is_subscriber_batch(client, queries, 20, 4, items, &error), TOLLGATE_OK);
    tollgate_is_subscriber_items_clear(items, 20);

    /* A comes back on its port: after its back-off the client uses it again. */
    char log_a[700];
    snprintf(log_a, sizeof log_a, "%s/a.log", dir);
    REQUIRE(test_server_start(&a, database, NULL, port_a, log_a));
    bool back = false;
    for (int waited = 0; waited < 20000 && !back; waited += 20) {
        CHECK(active(client, "user-1"));
        back = accepted_connections(a.port) == 1;
        if (!back) sleep_ms(20);
    }
    CHECK(back);
    tollgate_close(client);
    test_server_stop(&a);
    test_server_stop(&b);
}

static long long inbox_items(void) {
    sqlite3 *db = NULL;
    long long count = -1;
    if (sqlite3_open_v2(database, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_stmt *statement = NULL;
        if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM inbox", -1, &statement, NULL) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW) {
            count = sqlite3_column_int64(statement, 0);
        }
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return count;
}

/* Kills replica A once it has stored the submission (inbox_items reaches *target). */
static void *kill_a_once_stored(void *target) {
    for (int waited = 0; waited < 20000 && inbox_items() < *(long long *)target; waited += 20) sleep_ms(20);
    kill(a.pid, SIGKILL);
    return NULL;
}

static void submissions_are_never_sent_twice(void) {
    REQUIRE(start_replicas());
    long long before = inbox_items();
    tollgate_client *client = connect_both(30000);
    REQUIRE(client);
    /* No worker runs: replica A holds the call while it waits for a verification. */
    tollgate_purchase purchase = {.user_id = "bob", .store = TOLLGATE_STORE_APP_STORE,
                                  .receipt = "2000000000000001", .wait_ms = 20000};
    long long target = before + 1;
    pthread_t killer;
    REQUIRE(pthread_create(&killer, NULL, kill_a_once_stored, &target) == 0);
    tollgate_submission *submission = NULL;
    tollgate_error error = {0};
    CHECK_INT(tollgate_submit_purchase(client, &purchase, &submission, &error), TOLLGATE_CONNECTION_CLOSED);
    pthread_join(killer, NULL);
    kill_server(&a);
    tollgate_submission_free(submission);
    CHECK_INT(accepted_connections(b.port), 0); /* never sent to B */
    CHECK_INT(inbox_items(), before + 1);
    tollgate_close(client);

    /* A is down before the next submission leaves: it goes to B. */
    client = connect_both(5000);
    REQUIRE(client);
    purchase.receipt = "2000000000000002";
    purchase.wait_ms = 0;
    CHECK_INT(tollgate_submit_purchase(client, &purchase, &submission, &error), TOLLGATE_OK);
    if (submission) CHECK_INT(submission->status, TOLLGATE_SUBMISSION_PENDING);
    tollgate_submission_free(submission);
    CHECK_INT(inbox_items(), before + 2);
    tollgate_close(client);
    test_server_stop(&b);
}

int main(void) {
    if (!test_live_setup(dir, sizeof dir, database, sizeof database, 10, "0")) return 2;
    static const test_case cases[] = {
        {"calls_spread_and_fail_over", calls_spread_and_fail_over},
        {"submissions_are_never_sent_twice", submissions_are_never_sent_twice},
    };
    int status = run_tests("c/replicas", cases, sizeof cases / sizeof cases[0]);
    test_server_stop(&a);
    test_server_stop(&b);
    return test_live_finish(dir, status);
}
