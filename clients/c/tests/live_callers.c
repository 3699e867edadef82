/* The callers a live test configures `tollgate serve` with (see live_callers.h). */
#include "live_callers.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

caller callers[] = {
    {.name = "web", .scopes = "\"read\", \"submit\""},
    {.name = "reader", .scopes = "\"read\""},
    {.name = "shop", .scopes = "\"read\", \"submit\""},
    {.name = "ops", .scopes = "\"admin\""},
};
const size_t caller_count = sizeof callers / sizeof callers[0];

/* A random key "tgk_test_<hex>" (the config holds its SHA-256, written by write_config). */
static bool make_key(char *key, size_t key_size) {
    unsigned char random[16];
    if (RAND_bytes(random, sizeof random) != 1) return false;
    int at = snprintf(key, key_size, "tgk_test_");
    for (size_t i = 0; i < sizeof random; i++) at += snprintf(key + at, key_size - (size_t)at, "%02x", random[i]);
    return true;
}

bool callers_make_keys(void) {
    for (size_t i = 0; i < caller_count; i++) {
        if (!make_key(callers[i].key, sizeof callers[i].key)) return false;
    }
    return true;
}

bool write_config(const char *path, const char *extra) {
    FILE *file = fopen(path, "w");
    if (!file) return false;
    fputs("{\"service\": {\"callers\": [", file);
    for (size_t i = 0; i < caller_count; i++) {
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

uint16_t free_port(void) {
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

tollgate_status connect_as(const char *host, uint16_t port, int who, tollgate_options *options,
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
