/* The client's state, shared by the files that implement it. */
#ifndef TG_CLIENT_INTERNAL_H
#define TG_CLIENT_INTERNAL_H

#include "buffer.h"
#include "tollgate/client.h"
#include "transport.h"

struct tollgate_client {
    char *host;                /* as given: a host name, an address, or "unix:/path" */
    uint16_t port;
    char *peer;                /* for messages: "host:port" or "unix:/path" */
    tollgate_options options;  /* its strings point to the copies below (or are NULL) */
    char *caller;
    char *key;                 /* wiped before it is freed */
    char *tls_ca_file;
    char *tls_server_name;
    char *tls_certificate_file;
    char *tls_private_key_file;
    tg_tls_context *tls;       /* NULL without TLS */
    tg_transport transport;    /* fd -1 while not connected */
    tollgate_identity *identity; /* the latest Authenticate answer */
    uint32_t next_request_id;
    tg_buffer in;              /* received bytes not yet decoded */
    tg_buffer out;             /* encoded requests not yet sent */
};

/* Makes sure the client has a usable connection: reconnects (TLS handshake and Authenticate
 * included) when there is none or when the server closed the idle one. */
tollgate_status tg_client_ensure_connected(tollgate_client *client, tollgate_error *error);

/* Drops the connection (if any) and whatever was buffered for it. */
void tg_client_disconnect(tollgate_client *client);

/* Sends Authenticate on the fresh connection and keeps the answer in client->identity; drops the
 * connection on failure (auth.c). */
tollgate_status tg_client_authenticate(tollgate_client *client, tollgate_error *error);

#endif
