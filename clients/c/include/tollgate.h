/* Tollgate C client: the one header to include.
 *
 *   #include <tollgate.h>      (pkg-config --cflags --libs tollgate)
 *
 * client.h   the connection, the calls, timeouts, reconnection and thread safety
 * results.h  the plain C structs calls return, and their free functions
 * status.h   status codes and tollgate_error
 */
#ifndef TOLLGATE_H
#define TOLLGATE_H

#include "tollgate/client.h"
#include "tollgate/results.h"
#include "tollgate/status.h"

#define TOLLGATE_CLIENT_VERSION "0.2.0"

#endif
