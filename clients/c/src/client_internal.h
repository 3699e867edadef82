/* The client's state, shared by the files that implement it. */
#ifndef TG_CLIENT_INTERNAL_H
#define TG_CLIENT_INTERNAL_H

#include "buffer.h"
#include "tollgate/client.h"

struct tollgate_client {
    char *host;
    uint16_t port;
    tollgate_options options;
    int fd;                    /* -1 while not connected */
    uint32_t next_request_id;
    tg_buffer in;              /* received bytes not yet decoded */
    tg_buffer out;             /* encoded requests not yet sent */
};

/* Makes sure the client has a usable connection: reconnects when there is none or when the
 * server closed the idle one. */
tollgate_status tg_client_ensure_connected(tollgate_client *client, tollgate_error *error);

/* Drops the connection (if any) and whatever was buffered for it. */
void tg_client_disconnect(tollgate_client *client);

#endif
