/* Creating, connecting, reconnecting and freeing a client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "client_internal.h"
#include "decode.h"
#include "error.h"
#include "exchange.h"
#include "socket.h"

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
    for (size_t i = 0; i < client->link_count; i++) {
        if (!own->tls_server_name && is_unix_address(client->links[i].host)) {
            return tg_error_set(error, TOLLGATE_USAGE, "TLS over a Unix socket needs tls_server_name");
        }
    }
    return tg_tls_context_new(own, &client->tls, error);
}

/* Copies one server's address into link. */
static tollgate_status adopt_server(tg_link *link, const tollgate_server *server, tollgate_error *error) {
    link->transport.fd = -1;
    if (!server->host || !*server->host) return tg_error_set(error, TOLLGATE_USAGE, "host must not be empty");
    link->port = server->port;
    size_t peer_size = strlen(server->host) + 8;
    link->host = strdup(server->host);
    link->peer = malloc(peer_size);
    if (!link->host || !link->peer) return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    if (is_unix_address(server->host)) {
        snprintf(link->peer, peer_size, "%s", server->host);
    } else {
        snprintf(link->peer, peer_size, "%s:%u", server->host, (unsigned)server->port);
    }
    return TOLLGATE_OK;
}

/* Connects to the first server that can be reached, backing off those that cannot. */
static tollgate_status connect_first(tollgate_client *client, tollgate_error *error) {
    tollgate_status status = TOLLGATE_OK;
    for (size_t i = 0; i < client->link_count; i++) {
        client->link = &client->links[i];
        status = tg_client_ensure_connected(client, error);
        if (status == TOLLGATE_OK || !tg_status_is_dead_connection(status)) break;
        tg_link_failed(client, client->link);
    }
    client->next_link = (size_t)(client->link - client->links);
    return status;
}

tollgate_status tollgate_connect_with(const char *host, uint16_t port, const tollgate_options *options,
                                      tollgate_client **client, tollgate_error *error) {
    tollgate_server server = {.host = host, .port = port};
    return tollgate_connect_servers(&server, 1, options, client, error);
}

tollgate_status tollgate_connect_servers(const tollgate_server *servers, size_t count, const tollgate_options *options,
                                         tollgate_client **client, tollgate_error *error) {
    if (!client) return tg_error_set(error, TOLLGATE_USAGE, "client must not be NULL");
    *client = NULL;
    if (!servers || count == 0) return tg_error_set(error, TOLLGATE_USAGE, "give at least one server");
    if (count > TG_MAX_SERVERS) return tg_error_set(error, TOLLGATE_USAGE, "at most %d servers", TG_MAX_SERVERS);
    tollgate_client *created = calloc(1, sizeof *created);
    if (!created) return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    created->links = calloc(count, sizeof *created->links);
    if (!created->links) {
        free(created);
        return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    }
    created->link_count = count;
    created->link = created->links;
    created->next_request_id = 1;
    created->backoff_ms = 1000;
    created->backoff_max_ms = 30000;
    tollgate_status status = TOLLGATE_OK;
    for (size_t i = 0; i < count; i++) created->links[i].transport.fd = -1;
    for (size_t i = 0; i < count && status == TOLLGATE_OK; i++) status = adopt_server(&created->links[i], &servers[i], error);
    if (status == TOLLGATE_OK) status = adopt_options(created, options, error);
    if (status == TOLLGATE_OK) status = connect_first(created, error);
    if (status != TOLLGATE_OK) {
        tollgate_close(created);
        return status;
    }
    *client = created;
    return TOLLGATE_OK;
}

void tollgate_client_set_replica_backoff(tollgate_client *client, int backoff_ms, int backoff_max_ms) {
    if (!client) return;
    client->backoff_ms = backoff_ms > 0 ? backoff_ms : 1;
    client->backoff_max_ms = backoff_max_ms >= client->backoff_ms ? backoff_max_ms : client->backoff_ms;
}

static void free_secret(char *secret) {
    if (!secret) return;
    OPENSSL_cleanse(secret, strlen(secret));
    free(secret);
}

void tollgate_close(tollgate_client *client) {
    if (!client) return;
    for (size_t i = 0; i < client->link_count; i++) {
        tg_transport_close(&client->links[i].transport);
        free(client->links[i].host);
        free(client->links[i].peer);
    }
    free(client->links);
    tg_tls_context_free(client->tls);
    tg_identity_free(client->identity);
    tg_buffer_free(&client->in);
    if (client->out.data) OPENSSL_cleanse(client->out.data, client->out.capacity); /* Authenticate's key */
    tg_buffer_free(&client->out);
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
    tg_link *link = client->link;
    if (link->transport.fd >= 0 && !tg_transport_is_stale(&link->transport)) return TOLLGATE_OK;
    tg_client_disconnect(client);
    const char *server_name = client->options.tls_server_name ? client->options.tls_server_name : link->host;
    int timeout_ms = client->options.connect_timeout_ms;
    if (client->attempt_deadline_ms > 0) { /* a retry on another server: no longer than the call has left */
        int64_t left = client->attempt_deadline_ms - tg_now_ms();
        if (left < 1) left = 1;
        if (timeout_ms <= 0 || left < timeout_ms) timeout_ms = (int)left;
    }
    tollgate_status status =
        tg_transport_open(&link->transport, link->host, link->port, timeout_ms, client->tls, server_name, error);
    if (status != TOLLGATE_OK) return status;
    if (client->options.caller) return tg_client_authenticate(client, error);
    return TOLLGATE_OK;
}

void tg_client_disconnect(tollgate_client *client) {
    tg_transport_close(&client->link->transport);
    tg_buffer_reset(&client->in);
    tg_buffer_reset(&client->out);
}
