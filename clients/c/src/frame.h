/* protobuf-c-rpc's default framing (docs/protocol.md, "Framing"): little-endian u32 headers,
 * 12 bytes before a request, 16 before a response. */
#ifndef TG_FRAME_H
#define TG_FRAME_H

#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "buffer.h"
#include "tollgate/status.h"

#define TG_REQUEST_HEADER_LENGTH 12
#define TG_RESPONSE_HEADER_LENGTH 16

/* Method indexes: the declaration order in `service Entitlements`. */
enum {
    TG_METHOD_IS_SUBSCRIBER = 0,
    TG_METHOD_GET_SUBSCRIPTION = 1,
    TG_METHOD_SUBMIT_PURCHASE = 2,
    TG_METHOD_HEALTH = 3,
    TG_METHOD_AUTHENTICATE = 4,
    TG_METHOD_GET_SUBMISSION = 5
};

/* Response header status codes (ProtobufC_RPC_Status_Code). */
enum {
    TG_FRAME_SUCCESS = 0,
    TG_FRAME_SERVICE_FAILED = 1,
    TG_FRAME_TOO_MANY_PENDING = 2
};

typedef struct tg_response_header {
    uint32_t status_code;
    uint32_t method_index;
    uint32_t message_length;
    uint32_t request_id;
} tg_response_header;

/* Appends a request frame: the header, then `message` packed. Returns false when memory runs out. */
bool tg_frame_append_request(tg_buffer *out, uint32_t method_index, uint32_t request_id,
                             const ProtobufCMessage *message);

/* Reads a response header from 16 bytes. */
tg_response_header tg_frame_read_response_header(const uint8_t *bytes);

/* What a response header's status code means for its call: TOLLGATE_OK (decode the payload),
 * TOLLGATE_SERVICE_FAILED, TOLLGATE_TOO_MANY_PENDING, or TOLLGATE_BAD_RESPONSE for a code the
 * protocol does not define. */
tollgate_status tg_frame_status(uint32_t status_code);

#endif
