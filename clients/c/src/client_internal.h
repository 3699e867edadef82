/* The client's state, shared by the files that implement it. */
#ifndef TG_CLIENT_INTERNAL_H
#define TG_CLIENT_INTERNAL_H

#include "buffer.h"
#include "tollgate/client.h"
#include "transport.h"

/* Most servers one client may be given (a bit each in the set a call has tried). */
#define TG_MAX_SERVERS 64

/* One server of the client (a replica of `tollgate serve`) and the connection to it. */
typedef struct tg_link {
    char *host;                /* as given: a host name, an address, or "unix:/path" */
    uint16_t port;
    char *peer;                /* for messages: "host:port" or "unix:/path" */
    tg_transport transport;    /* fd -1 while not connected */
    int failures;              /* connection failures in a row */
    int64_t skip_until_ms;     /* backed off until then (0: not) */
} tg_link;

struct tollgate_client {
    tg_link *links;            /* the servers, in the order given */
    size_t link_count;
    size_t next_link;          /* where the next call starts looking for a healthy server */
    tg_link *link;             /* the server of the call in progress */
    int backoff_ms;            /* a failed server is skipped this long, doubled per failure in a row, */
    int backoff_max_ms;        /* up to this */
    int64_t attempt_deadline_ms; /* a retry's share of the call's timeout (0: none, the first try) */
    tollgate_options options;  /* its strings point to the copies below (or are NULL) */
    char *caller;
    char *key;                 /* wiped before it is freed */
    char *tls_ca_file;
    char *tls_server_name;
    char *tls_certificate_file;
    char *tls_private_key_file;
    tg_tls_context *tls;       /* NULL without TLS */
    tollgate_identity *identity; /* the latest Authenticate answer */
    uint32_t next_request_id;
    tg_buffer in;              /* received bytes not yet decoded */
    tg_buffer out;             /* encoded requests not yet sent */
};

/* Makes sure the client has a usable connection: reconnects (TLS handshake and Authenticate
 * included) when there is none or when the server closed the idle one. */
tollgate_status tg_client_ensure_connected(tollgate_client *client, tollgate_error *error);

/* Drops the current server's connection (if any) and whatever was buffered for it. */
void tg_client_disconnect(tollgate_client *client);

/* Backs client's server `link` off after its connection failed or died (failover.c). */
void tg_link_failed(tollgate_client *client, tg_link *link);

/* Sends Authenticate on the fresh connection and keeps the answer in client->identity; drops the
 * connection on failure (auth.c). */
tollgate_status tg_client_authenticate(tollgate_client *client, tollgate_error *error);

#endif
