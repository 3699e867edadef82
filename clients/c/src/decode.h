/* Turning a response payload (status 0) into the caller's plain C result: unpack the message,
 * map its application `error` to a status, copy the fields out. */
#ifndef TG_DECODE_H
#define TG_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "generated/tollgate.pb-c.h"
#include "tollgate/results.h"
#include "tollgate/status.h"

/* The status for a response's `error` field: TOLLGATE_OK when absent or unspecified, the proto
 * code otherwise (an unknown code reads as TOLLGATE_INTERNAL), with the server's message. */
tollgate_status tg_application_error(const Tollgate__V1__Error *field, tollgate_error *error);

tollgate_status tg_decode_is_subscriber(const uint8_t *payload, size_t length, tollgate_is_subscriber_result **result,
                                        tollgate_error *error);
tollgate_status tg_decode_subscription_info(const uint8_t *payload, size_t length, tollgate_subscription_info **info,
                                            tollgate_error *error);
tollgate_status tg_decode_submission(const uint8_t *payload, size_t length, tollgate_submission **submission,
                                     tollgate_error *error);
/* GetSubmission's answer, in SubmitPurchase's result struct (with received_at_ms and user_id). */
tollgate_status tg_decode_get_submission(const uint8_t *payload, size_t length, tollgate_submission **submission,
                                         tollgate_error *error);
/* Authenticate's answer. */
tollgate_status tg_decode_authenticate(const uint8_t *payload, size_t length, tollgate_identity **identity,
                                       tollgate_error *error);
void tg_identity_free(tollgate_identity *identity);
tollgate_status tg_decode_health(const uint8_t *payload, size_t length, tollgate_health_report **report,
                                 tollgate_error *error);

#endif
