/* tollgate-c: asks a running Tollgate service about a user, through the C client.
 *
 *   tollgate-c [--server HOST:PORT] [--timeout-ms N] is-subscriber USER ENTITLEMENT
 *   tollgate-c [--server HOST:PORT] [--timeout-ms N] subscription USER
 *   tollgate-c [--server HOST:PORT] [--timeout-ms N] health
 *
 * Exit status: 0 success (is-subscriber: entitled), 1 is-subscriber: not entitled, 2 error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tollgate.h"

static int usage(void) {
    fputs("usage: tollgate-c [--server HOST:PORT] [--timeout-ms N] is-subscriber USER ENTITLEMENT\n"
          "       tollgate-c [--server HOST:PORT] [--timeout-ms N] subscription USER\n"
          "       tollgate-c [--server HOST:PORT] [--timeout-ms N] health\n"
          "The server defaults to 127.0.0.1:7701.\n",
          stderr);
    return 2;
}

/* "2026-11-25T05:34:28Z" for milliseconds since the epoch. */
static const char *format_time(int64_t ms, char *out, size_t size) {
    time_t seconds = (time_t)(ms / 1000);
    struct tm utc;
    if (ms <= 0 || !gmtime_r(&seconds, &utc) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0) {
        snprintf(out, size, "-");
    }
    return out;
}

static int fail(const char *what, const tollgate_error *error) {
    fprintf(stderr, "tollgate-c: %s: %s: %s\n", what, tollgate_status_name(error->code), error->message);
    return 2;
}

static int is_subscriber(tollgate_client *client, const char *user, const char *entitlement) {
    tollgate_is_subscriber_result *result = NULL;
    tollgate_error error;
    if (tollgate_is_subscriber(client, user, entitlement, &result, &error) != TOLLGATE_OK) {
        return fail("is-subscriber", &error);
    }
    char until[32], verified[32];
    printf("%s is %s to %s\n", user, result->active ? "entitled" : "NOT entitled", entitlement);
    if (result->state != TOLLGATE_STATE_UNSPECIFIED) {
        printf("  state:        %s\n", tollgate_state_name(result->state));
        printf("  until:        %s (%" PRId64 ")\n", format_time(result->expires_at_ms, until, sizeof until),
               result->expires_at_ms);
        printf("  will renew:   %s\n", result->will_renew ? "yes" : "no");
        printf("  through:      %s %s (%s), %s\n", tollgate_store_name(result->store), result->product_id,
               result->store_subscription_id, tollgate_environment_name(result->environment));
        printf("  verified at:  %s\n", format_time(result->verified_at_ms, verified, sizeof verified));
    }
    int entitled = result->active;
    tollgate_is_subscriber_result_free(result);
    return entitled ? 0 : 1;
}

static int subscription(tollgate_client *client, const char *user) {
    tollgate_subscription_info *info = NULL;
    tollgate_error error;
    if (tollgate_get_subscription(client, user, &info, &error) != TOLLGATE_OK) return fail("subscription", &error);
    char until[32];
    printf("%s\n", info->user_id);
    for (size_t i = 0; i < info->entitlement_count; i++) {
        const tollgate_entitlement_status *e = &info->entitlements[i];
        printf("  entitlement %-12s %-8s %-14s until %s\n", e->entitlement, e->active ? "active" : "inactive",
               tollgate_state_name(e->state), format_time(e->expires_at_ms, until, sizeof until));
    }
    for (size_t i = 0; i < info->subscription_count; i++) {
        const tollgate_subscription *s = &info->subscriptions[i];
        printf("  subscription %s %s (%s): %s, until %s, %s, unlocks", tollgate_store_name(s->store), s->product_id,
               s->store_subscription_id, tollgate_state_name(s->state),
               format_time(s->expires_at_ms, until, sizeof until), s->will_renew ? "renews" : "does not renew");
        for (size_t j = 0; j < s->entitlement_count; j++) printf(" %s", s->entitlements[j]);
        printf("\n");
    }
    tollgate_subscription_info_free(info);
    return 0;
}

static int health(tollgate_client *client) {
    tollgate_health_report *report = NULL;
    tollgate_error error;
    if (tollgate_health(client, &report, &error) != TOLLGATE_OK) return fail("health", &error);
    printf("%s, version %s, up %" PRId64 " ms\n", tollgate_serving_status_name(report->status), report->version,
           report->uptime_ms);
    printf("  index: %" PRIu64 " users, %" PRIu64 " records\n", report->index_users, report->index_records);
    printf("  change feed: applied %" PRId64 ", head %" PRId64 ", lag %" PRId64 " ms\n",
           report->change_feed_applied_seq, report->change_feed_head_seq, report->change_feed_lag_ms);
    tollgate_health_report_free(report);
    return 0;
}

int main(int argc, char **argv) {
    const char *server = "127.0.0.1:7701";
    int timeout_ms = 5000;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (i + 1 >= argc) return usage();
        if (strcmp(argv[i], "--server") == 0) {
            server = argv[i + 1];
        } else if (strcmp(argv[i], "--timeout-ms") == 0) {
            timeout_ms = atoi(argv[i + 1]);
        } else {
            return usage();
        }
    }
    if (i >= argc) return usage();
    const char *command = argv[i];
    int operands = argc - i - 1;

    char host[256];
    const char *colon = strrchr(server, ':');
    if (!colon || colon == server || (size_t)(colon - server) >= sizeof host) return usage();
    snprintf(host, sizeof host, "%.*s", (int)(colon - server), server);
    long port = strtol(colon + 1, NULL, 10);
    if (port <= 0 || port > 65535) return usage();

    if (!((strcmp(command, "is-subscriber") == 0 && operands == 2) ||
          (strcmp(command, "subscription") == 0 && operands == 1) || (strcmp(command, "health") == 0 && operands == 0))) {
        return usage();
    }
    tollgate_client *client = NULL;
    tollgate_error error;
    if (tollgate_connect(host, (uint16_t)port, timeout_ms, &client, &error) != TOLLGATE_OK) {
        return fail("connect", &error);
    }
    int status;
    if (strcmp(command, "is-subscriber") == 0) {
        status = is_subscriber(client, argv[i + 1], argv[i + 2]);
    } else if (strcmp(command, "subscription") == 0) {
        status = subscription(client, argv[i + 1]);
    } else {
        status = health(client);
    }
    tollgate_close(client);
    return status;
}
