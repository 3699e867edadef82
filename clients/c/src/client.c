/* Creating, connecting, reconnecting and freeing a client. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_internal.h"
#include "error.h"
#include "socket.h"

void tollgate_options_init(tollgate_options *options) {
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

tollgate_status tollgate_connect_with(const char *host, uint16_t port, const tollgate_options *options,
                                      tollgate_client **client, tollgate_error *error) {
    if (!client) return tg_error_set(error, TOLLGATE_USAGE, "client must not be NULL");
    *client = NULL;
    if (!host || !*host) return tg_error_set(error, TOLLGATE_USAGE, "host must not be empty");
    tollgate_client *created = calloc(1, sizeof *created);
    if (!created || !(created->host = strdup(host))) {
        free(created);
        return tg_error_set(error, TOLLGATE_NO_MEMORY, "out of memory");
    }
    created->port = port;
    if (options) {
        created->options = *options;
    } else {
        tollgate_options_init(&created->options);
    }
    created->fd = -1;
    created->next_request_id = 1;
    tollgate_status status = tg_client_ensure_connected(created, error);
    if (status != TOLLGATE_OK) {
        tollgate_close(created);
        return status;
    }
    *client = created;
    return TOLLGATE_OK;
}

void tollgate_close(tollgate_client *client) {
    if (!client) return;
    tg_client_disconnect(client);
    tg_buffer_free(&client->in);
    tg_buffer_free(&client->out);
    free(client->host);
    free(client);
}

tollgate_status tg_client_ensure_connected(tollgate_client *client, tollgate_error *error) {
    if (client->fd >= 0 && !tg_socket_is_stale(client->fd)) return TOLLGATE_OK;
    tg_client_disconnect(client);
    return tg_socket_connect(client->host, client->port, client->options.connect_timeout_ms, &client->fd, error);
}

void tg_client_disconnect(tollgate_client *client) {
    if (client->fd >= 0) close(client->fd);
    client->fd = -1;
    tg_buffer_reset(&client->in);
    tg_buffer_reset(&client->out);
}
