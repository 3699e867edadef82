/* Tollgate C client: the connection and the calls.
 *
 * A tollgate_client is one connection to `tollgate serve` (or one to each of several replicas:
 * see "Several servers") speaking protobuf-c-rpc's default framing (docs/protocol.md): TCP, TCP
 * with TLS, or a Unix domain socket. Every call blocks until
 * its answer, its timeout or a transport error. The *_batch calls pipeline: they keep up to
 * max_in_flight requests on the wire at once and match the answers by request id, so one
 * connection carries many calls per round trip.
 *
 * Addresses
 *   host is a host name or IP address with a TCP port, or "unix:/path/to/socket" for a Unix
 *   domain socket (port is then ignored: pass 0).
 *
 * Authentication
 *   With options.caller set, every connection (the first and every reconnection) sends
 *   Authenticate(caller, key) before any other call. A refusal fails the connect, or the call that
 *   reconnected, with TOLLGATE_UNAUTHENTICATED and drops the connection. The key is copied at
 *   connect, wiped from memory at close, and never appears in an error message.
 *
 * TLS
 *   With options.tls set, the connection is TLS 1.2 or newer (OpenSSL), verified against
 *   options.tls_ca_file (NULL: the system's roots) for options.tls_server_name (NULL: host; an IP
 *   address is checked against the certificate's IP addresses). Verification cannot be turned
 *   off. options.tls_certificate_file and tls_private_key_file present a client certificate
 *   (mutual TLS). A handshake or certificate failure is TOLLGATE_TLS_FAILED.
 *
 * Connection lifecycle
 *   - tollgate_connect() connects at once and fails early when the server cannot be reached.
 *   - When the connection breaks (the server restarted, a timeout, a protocol error), the call
 *     that saw it fails and the connection is dropped; the next call connects again. A call
 *     first checks whether the server closed an idle connection and, if so, reconnects before
 *     sending, so a server restart between calls costs no failed call. A request already sent is
 *     never sent twice.
 *   - After a timeout the connection is dropped too: answers that come late are never mistaken
 *     for the answers of later calls.
 *
 * Several servers (replicas)
 *   tollgate_connect_servers() takes several servers (replicas of `tollgate serve` on one
 *   database) and keeps a connection to each one it has used. Each call goes to the next server
 *   in turn that is not backed off. When a server's connection cannot be made, or dies before an
 *   answer (refused, reset, closed, timed out), the server is backed off (1 s, doubled for each
 *   further failure in a row, up to 30 s; tollgate_client_set_replica_backoff() changes both) and
 *   the call is tried on another server while its call timeout lasts, but only when that is safe:
 *     - when the request never left (the connection could not be made): any call;
 *     - when it may have reached the server: reads only (IsSubscriber, GetSubscription,
 *       GetSubmission, Health, and their batches when no answer had come yet).
 *   A SubmitPurchase whose connection died after it was sent is NEVER sent again: the call fails
 *   with TOLLGATE_CONNECTION_CLOSED or TOLLGATE_TIMEOUT, and the server may have it (ask
 *   tollgate_get_submission(), or submit again: the server recognises the same purchase). When
 *   every server is backed off, the one whose back-off ends first is tried. The first try of a
 *   call has the usual timeouts; a retry gets what is left of call_timeout_ms (set
 *   connect_timeout_ms below call_timeout_ms to fail over from a host that does not answer at
 *   all within one call). Answers such as TOLLGATE_UNAVAILABLE are returned as they are.
 *
 * Thread safety
 *   A tollgate_client is NOT thread-safe: use one client per thread, or guard a shared client
 *   with your own mutex. Distinct clients share nothing; the library has no global state and
 *   never raises SIGPIPE (it sends with MSG_NOSIGNAL).
 *
 * Errors
 *   Every call returns a tollgate_status (status.h) and, when `error` is not NULL, fills it with
 *   the status and a message. On failure the result pointer is set to NULL.
 *
 * Strings
 *   String arguments are copied onto the wire during the call; NULL is sent as "" (which the
 *   server rejects with TOLLGATE_INVALID_ARGUMENT where a value is required).
 */
#ifndef TOLLGATE_CLIENT_H
#define TOLLGATE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tollgate/results.h"
#include "tollgate/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tollgate_client tollgate_client;

typedef struct tollgate_options {
    /* Longest wait for a TCP connection, per connection attempt. Default 5000; <= 0 waits forever. */
    int connect_timeout_ms;
    /* Longest wait for a call's answer; for a batch, the longest wait for the next answer.
     * Default 5000; <= 0 waits forever. */
    int call_timeout_ms;
    /* Longest response payload accepted; a longer one is TOLLGATE_BAD_RESPONSE. Default 16 MiB. */
    uint32_t max_response_bytes;

    /* Authentication: the caller's name and its secret key (both copied at connect). NULL caller:
     * no Authenticate call (a server without callers configured, or --insecure-no-auth). */
    const char *caller;
    const char *key;

    /* TLS on the connection (default false). The file names are copied at connect; the files are
     * read at connect (PEM). */
    bool tls;
    const char *tls_ca_file;          /* CA certificates that verify the server; NULL: system roots */
    const char *tls_server_name;      /* the name the server's certificate must carry; NULL: host */
    const char *tls_certificate_file; /* mutual TLS: this client's certificate (chain); NULL: none */
    const char *tls_private_key_file; /* mutual TLS: its private key */
} tollgate_options;

/* Fills options with the defaults. */
void tollgate_options_init(tollgate_options *options);

/* Connects to host:port (or "unix:/path", port 0) with connect and call timeouts of timeout_ms;
 * no authentication, no TLS. On success *client is a new client to release with tollgate_close();
 * on failure it is NULL. */
tollgate_status tollgate_connect(const char *host, uint16_t port, int timeout_ms, tollgate_client **client,
                                 tollgate_error *error);

/* Like tollgate_connect(), with every option given (NULL: the defaults): connects, completes the
 * TLS handshake and authenticates before returning. Unreadable TLS files are TOLLGATE_USAGE. */
tollgate_status tollgate_connect_with(const char *host, uint16_t port, const tollgate_options *options,
                                      tollgate_client **client, tollgate_error *error);

/* One server of several: host as for tollgate_connect() (a host name, an address, or
 * "unix:/path" with port 0). */
typedef struct tollgate_server {
    const char *host;
    uint16_t port;
} tollgate_server;

/* Like tollgate_connect_with(), for `count` servers (1 to 64; the strings are copied): calls are
 * spread over them and fail over as "Several servers" above says. Connects at once to the first
 * server that can be reached (the others when calls go there); fails when none can. One server
 * behaves exactly as tollgate_connect_with(). */
tollgate_status tollgate_connect_servers(const tollgate_server *servers, size_t count, const tollgate_options *options,
                                         tollgate_client **client, tollgate_error *error);

/* How long a server whose connection failed is skipped: backoff_ms (default 1000), doubled for
 * each further failure in a row, up to backoff_max_ms (default 30000). */
void tollgate_client_set_replica_backoff(tollgate_client *client, int backoff_ms, int backoff_max_ms);

/* Who the server says this client is: the caller and scopes its answer to the latest Authenticate
 * named. NULL when options.caller is NULL. Owned by the client; valid until the next call (a
 * reconnection authenticates again) or tollgate_close(). */
const tollgate_identity *tollgate_client_identity(const tollgate_client *client);

/* Closes the connection and frees the client. NULL is accepted. */
void tollgate_close(tollgate_client *client);

/* Is user_id entitled to entitlement now? An unknown user is not an error (active is false). */
tollgate_status tollgate_is_subscriber(tollgate_client *client, const char *user_id, const char *entitlement,
                                       tollgate_is_subscriber_result **result, tollgate_error *error);

/* Every subscription and entitlement of user_id; TOLLGATE_NOT_FOUND for a user with nothing. */
tollgate_status tollgate_get_subscription(tollgate_client *client, const char *user_id,
                                          tollgate_subscription_info **info, tollgate_error *error);

/* The service's health and index size. */
tollgate_status tollgate_health(tollgate_client *client, tollgate_health_report **report, tollgate_error *error);

/* A purchase to submit for verification. NULL strings are sent as empty. Which evidence a store
 * needs: App Store `receipt` (transaction id, signed transaction or app receipt); Google Play
 * `purchase_token` and `product_id`; Amazon `receipt_id` and `amazon_user_id`.
 *
 * Google Play, optional: `google_purchase_data`, the Play Billing library's INAPP_PURCHASE_DATA
 * exactly as the app got it (Purchase.getOriginalJson()), and `google_signature`
 * (Purchase.getSignature(), base64): both or neither (one alone is TOLLGATE_INVALID_ARGUMENT).
 * With the app's licensing key configured on the server, they are what lets a purchase bound to
 * another user move under a transfer policy; the purchase's state still comes from Google. */
typedef struct tollgate_purchase {
    const char *user_id;
    tollgate_store store;
    const char *receipt;
    const char *purchase_token;
    const char *receipt_id;
    const char *amazon_user_id;
    const char *product_id;
    const char *app_id;
    uint32_t wait_ms; /* how long the server may wait for verification before answering PENDING */
    const char *google_purchase_data;
    const char *google_signature;
} tollgate_purchase;

/* Submits one purchase. The call timeout should exceed wait_ms. */
tollgate_status tollgate_submit_purchase(tollgate_client *client, const tollgate_purchase *purchase,
                                         tollgate_submission **submission, tollgate_error *error);

/* A submission's status now, by the id SubmitPurchase returned (for a caller whose wait ran
 * out): the same fields, plus received_at_ms and user_id. TOLLGATE_NOT_FOUND for an unknown id or
 * another caller's submission. Needs the "submit" scope on an authenticated server. */
tollgate_status tollgate_get_submission(tollgate_client *client, const char *submission_id,
                                        tollgate_submission **submission, tollgate_error *error);

/* ---- Pipelined batches ----
 *
 * A batch sends `count` requests on the one connection, at most max_in_flight at a time
 * (0: all at once), and fills items[i] with the outcome of request i. Each item has its own
 * error (an invalid user id fails only its item). The return value is TOLLGATE_OK when every
 * request was answered, whatever the answers were; otherwise the transport error that stopped
 * the batch, which every unanswered item carries too. Release the items' results with the
 * matching *_items_clear function whatever the return value. */

typedef struct tollgate_query {
    const char *user_id;
    const char *entitlement;
} tollgate_query;

typedef struct tollgate_is_subscriber_item {
    tollgate_is_subscriber_result *result; /* set when error.code is TOLLGATE_OK */
    tollgate_error error;
} tollgate_is_subscriber_item;

tollgate_status tollgate_is_subscriber_batch(tollgate_client *client, const tollgate_query *queries, size_t count,
                                             size_t max_in_flight, tollgate_is_subscriber_item *items,
                                             tollgate_error *error);
void tollgate_is_subscriber_items_clear(tollgate_is_subscriber_item *items, size_t count);

typedef struct tollgate_submission_item {
    tollgate_submission *submission; /* set when error.code is TOLLGATE_OK */
    tollgate_error error;
} tollgate_submission_item;

/* SubmitPurchase calls are deferred by the server: more than its per-connection limit in flight
 * (service.maxPendingPerConnection, default 64) are refused with TOLLGATE_TOO_MANY_PENDING. */
tollgate_status tollgate_submit_purchase_batch(tollgate_client *client, const tollgate_purchase *purchases,
                                               size_t count, size_t max_in_flight, tollgate_submission_item *items,
                                               tollgate_error *error);
void tollgate_submission_items_clear(tollgate_submission_item *items, size_t count);

#ifdef __cplusplus
}
#endif

#endif
