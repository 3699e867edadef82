/* tollgate-c: asks a running Tollgate service about a user, through the C client.
 *
 *   tollgate-c [OPTIONS] is-subscriber USER ENTITLEMENT
 *   tollgate-c [OPTIONS] subscription USER
 *   tollgate-c [OPTIONS] submission SUBMISSION_ID
 *   tollgate-c [OPTIONS] health
 *
 * OPTIONS: --server HOST:PORT or unix:/PATH (again for replicas, up to 8), --timeout-ms N, --caller NAME (the key from
 * $TOLLGATE_KEY or --key-file FILE: never on the command line, where `ps` shows it), --tls,
 * --tls-ca FILE, --tls-server-name NAME, --tls-cert FILE, --tls-key FILE.
 *
 * Exit status: 0 success (is-subscriber: entitled), 1 is-subscriber: not entitled, 2 error.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tollgate.h"

static int usage(void) {
    fputs("usage: tollgate-c [OPTIONS] is-subscriber USER ENTITLEMENT\n"
          "       tollgate-c [OPTIONS] subscription USER\n"
          "       tollgate-c [OPTIONS] submission SUBMISSION_ID\n"
          "       tollgate-c [OPTIONS] health\n"
          "options: --server HOST:PORT|unix:/PATH (default 127.0.0.1:7701; repeat it for replicas)\n"
          "         --timeout-ms N\n"
          "         --caller NAME  --key-file FILE (default: the key in $TOLLGATE_KEY)\n"
          "         --tls  --tls-ca FILE  --tls-server-name NAME  --tls-cert FILE  --tls-key FILE\n",
          stderr);
    return 2;
}

/* The first line of path, without its line end, into key; false when unreadable or empty. */
static bool read_key(const char *path, char *key, size_t size) {
    FILE *file = fopen(path, "r");
    if (!file) return false;
    bool read = fgets(key, (int)size, file) != NULL;
    fclose(file);
    if (!read) return false;
    key[strcspn(key, "\r\n")] = '\0';
    return key[0] != '\0';
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
        printf("  access level: %s\n", result->access_level);
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
        printf("  entitlement %-12s %-8s %-14s %-10s until %s\n", e->entitlement, e->active ? "active" : "inactive",
               tollgate_state_name(e->state), e->access_level, format_time(e->expires_at_ms, until, sizeof until));
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

static int submission(tollgate_client *client, const char *submission_id) {
    tollgate_submission *found = NULL;
    tollgate_error error;
    if (tollgate_get_submission(client, submission_id, &found, &error) != TOLLGATE_OK) {
        return fail("submission", &error);
    }
    char received[32];
    printf("%s: %s, user %s, received %s\n", found->submission_id, tollgate_submission_status_name(found->status),
           found->user_id, format_time(found->received_at_ms, received, sizeof received));
    if (found->rejection_reason[0]) printf("  rejected: %s\n", found->rejection_reason);
    for (size_t i = 0; i < found->entitlement_count; i++) {
        const tollgate_entitlement_status *e = &found->entitlements[i];
        printf("  entitlement %-12s %s\n", e->entitlement, e->active ? "active" : "inactive");
    }
    tollgate_submission_free(found);
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
    enum { MAX_SERVERS = 8 };
    const char *server_args[MAX_SERVERS] = {"127.0.0.1:7701"};
    size_t server_count = 0;
    const char *key_file = NULL;
    tollgate_options options;
    tollgate_options_init(&options);
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        const char *name = argv[i];
        if (strcmp(name, "--tls") == 0) {
            options.tls = true;
            i--;
            continue;
        }
        if (i + 1 >= argc) return usage();
        const char *value = argv[i + 1];
        if (strcmp(name, "--server") == 0) {
            if (server_count == MAX_SERVERS) return usage();
            server_args[server_count++] = value;
        } else if (strcmp(name, "--timeout-ms") == 0) {
            options.connect_timeout_ms = options.call_timeout_ms = atoi(value);
        } else if (strcmp(name, "--caller") == 0) {
            options.caller = value;
        } else if (strcmp(name, "--key-file") == 0) {
            key_file = value;
        } else if (strcmp(name, "--tls-ca") == 0) {
            options.tls_ca_file = value;
        } else if (strcmp(name, "--tls-server-name") == 0) {
            options.tls_server_name = value;
        } else if (strcmp(name, "--tls-cert") == 0) {
            options.tls_certificate_file = value;
        } else if (strcmp(name, "--tls-key") == 0) {
            options.tls_private_key_file = value;
        } else {
            return usage();
        }
    }
    if (i >= argc) return usage();
    const char *command = argv[i];
    int operands = argc - i - 1;

    if (server_count == 0) server_count = 1;
    char hosts[MAX_SERVERS][256];
    tollgate_server servers[MAX_SERVERS];
    for (size_t n = 0; n < server_count; n++) {
        const char *server = server_args[n];
        char *host = hosts[n];
        long port = 0;
        if (strncmp(server, "unix:", 5) == 0) {
            if (strlen(server) >= sizeof hosts[n]) return usage();
            snprintf(host, sizeof hosts[n], "%s", server);
        } else {
            const char *colon = strrchr(server, ':');
            if (!colon || colon == server || (size_t)(colon - server) >= sizeof hosts[n]) return usage();
            snprintf(host, sizeof hosts[n], "%.*s", (int)(colon - server), server);
            port = strtol(colon + 1, NULL, 10);
            if (port <= 0 || port > 65535) return usage();
        }
        servers[n] = (tollgate_server){.host = host, .port = (uint16_t)port};
    }

    char key[512];
    if (options.caller) {
        const char *from_environment = getenv("TOLLGATE_KEY");
        if (key_file) {
            if (!read_key(key_file, key, sizeof key)) {
                fprintf(stderr, "tollgate-c: cannot read a key from %s\n", key_file);
                return 2;
            }
        } else if (from_environment && *from_environment && strlen(from_environment) < sizeof key) {
            snprintf(key, sizeof key, "%s", from_environment);
        } else {
            fputs("tollgate-c: --caller needs its key: --key-file FILE or $TOLLGATE_KEY\n", stderr);
            return 2;
        }
        options.key = key;
    }

    if (!((strcmp(command, "is-subscriber") == 0 && operands == 2) ||
          (strcmp(command, "subscription") == 0 && operands == 1) ||
          (strcmp(command, "submission") == 0 && operands == 1) || (strcmp(command, "health") == 0 && operands == 0))) {
        return usage();
    }
    tollgate_client *client = NULL;
    tollgate_error error;
    tollgate_status connected = tollgate_connect_servers(servers, server_count, &options, &client, &error);
    memset(key, 0, sizeof key); /* the client keeps its own copy */
    if (connected != TOLLGATE_OK) return fail("connect", &error);
    int status;
    if (strcmp(command, "is-subscriber") == 0) {
        status = is_subscriber(client, argv[i + 1], argv[i + 2]);
    } else if (strcmp(command, "subscription") == 0) {
        status = subscription(client, argv[i + 1]);
    } else if (strcmp(command, "submission") == 0) {
        status = submission(client, argv[i + 1]);
    } else {
        status = health(client);
    }
    tollgate_close(client);
    return status;
}
