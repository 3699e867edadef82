/* Creating, connecting, reconnecting and freeing a client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "client_internal.h"
#include "decode.h"
#include "error.h"

void tollgate_options_init(tollgate_options *options) {
    memset(options, 0, sizeof *options);
    options->connect_timeout_ms = 5000;
    options->call_timeout_ms = 5000;
    options->max_response_bytes = 16u << 20;
}

tollgate_status tollgate_connect(const char *host, uint16_t port, int timeout_ms, tollgate_client **client,
                                 tollgate_error *error) {
    tollgate_options options;
    tollgate_options_init(&options);
    options.connect_timeout_ms = timeout_ms;
    options.call_timeout_ms = timeout_ms;
    return tollgate_connect_with(host, port, &options, client, error);
}

/* *copy = strdup(text) for a non-NULL text; false when memory runs out. */
static bool copy_option(const char *text, char **copy) {
    *copy = NULL;
    return !text || (*copy = strdup(text)) != NULL;
}

static bool is_unix_address(const char *host) { return strncmp(host, "unix:", 5) == 0; }

/* Copies what the options point to, so that the caller's strings may go away after connect. */
static tollgate_status adopt_options(tollgate_client *client, const tollgate_options *options, tollgate_error *error) {
    if (options) {
        client->options = *options;
    } else {
        tollgate_options_init(&client->options);
    }
    tollgate_options *own = &client->options;
    if (own->caller && !*own->caller) return tg_error_set(error, TOLLGATE_USAGE, "caller must not be empty");
    if (own->caller && !own->key) return tg_error_set(error, TOLLGATE_USAGE, "a caller needs its key");
    if (!copy_option(own->caller, &client->caller) || !copy_option(own->key, &client->key) ||
        !copy_option(own->tls_ca_file, &client->tls_ca_file) ||
        !copy_option(own->tls_server_name, &client->tls_server_name) ||
        !copy_option(own->tls_certificate_file, &client->tls_certificate_file) ||
        !copy_option(own->tls_private_key_file, &client->tls_private_key_file)) {
        return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    }
    own->caller = client->caller;
    own->key = client->caller ? client->key : NULL;
    own->tls_ca_file = client->tls_ca_file;
    own->tls_server_name = client->tls_server_name;
    own->tls_certificate_file = client->tls_certificate_file;
    own->tls_private_key_file = client->tls_private_key_file;
    if (!own->tls) return TOLLGATE_OK;
    if (!own->tls_server_name && is_unix_address(client->host)) {
        return tg_error_set(error, TOLLGATE_USAGE, "TLS over a Unix socket needs tls_server_name");
    }
    return tg_tls_context_new(own, &client->tls, error);
}

tollgate_status tollgate_connect_with(const char *host, uint16_t port, const tollgate_options *options,
                                      tollgate_client **client, tollgate_error *error) {
    if (!client) return tg_error_set(error, TOLLGATE_USAGE, "client must not be NULL");
    *client = NULL;
    if (!host || !*host) return tg_error_set(error, TOLLGATE_USAGE, "host must not be empty");
    tollgate_client *created = calloc(1, sizeof *created);
    if (!created) return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    created->transport.fd = -1;
    created->next_request_id = 1;
    created->port = port;
    size_t peer_size = strlen(host) + 8;
    created->host = strdup(host);
    created->peer = malloc(peer_size);
    if (!created->host || !created->peer) {
        tollgate_close(created);
        return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    }
    if (is_unix_address(host)) {
        snprintf(created->peer, peer_size, "%s", host);
    } else {
        snprintf(created->peer, peer_size, "%s:%u", host, (unsigned)port);
    }
    tollgate_status status = adopt_options(created, options, error);
    if (status == TOLLGATE_OK) status = tg_client_ensure_connected(created, error);
    if (status != TOLLGATE_OK) {
        tollgate_close(created);
        return status;
    }
    *client = created;
    return TOLLGATE_OK;
}

static void free_secret(char *secret) {
    if (!secret) return;
    OPENSSL_cleanse(secret, strlen(secret));
    free(secret);
}

void tollgate_close(tollgate_client *client) {
    if (!client) return;
    tg_client_disconnect(client);
    tg_tls_context_free(client->tls);
    tg_identity_free(client->identity);
    tg_buffer_free(&client->in);
    if (client->out.data) OPENSSL_cleanse(client->out.data, client->out.capacity); /* Authenticate's key */
    tg_buffer_free(&client->out);
    free(client->host);
    free(client->peer);
    free(client->caller);
    free_secret(client->key);
    free(client->tls_ca_file);
    free(client->tls_server_name);
    free(client->tls_certificate_file);
    free(client->tls_private_key_file);
    free(client);
}

const tollgate_identity *tollgate_client_identity(const tollgate_client *client) {
    return client ? client->identity : NULL;
}

tollgate_status tg_client_ensure_connected(tollgate_client *client, tollgate_error *error) {
    if (client->transport.fd >= 0 && !tg_transport_is_stale(&client->transport)) return TOLLGATE_OK;
    tg_client_disconnect(client);
    const char *server_name = client->options.tls_server_name ? client->options.tls_server_name : client->host;
    tollgate_status status = tg_transport_open(&client->transport, client->host, client->port,
                                               client->options.connect_timeout_ms, client->tls, server_name, error);
    if (status != TOLLGATE_OK) return status;
    if (client->options.caller) return tg_client_authenticate(client, error);
    return TOLLGATE_OK;
}

void tg_client_disconnect(tollgate_client *client) {
    tg_transport_close(&client->transport);
    tg_buffer_reset(&client->in);
    tg_buffer_reset(&client->out);
}
