#include "frame.h"

static void put_u32le(uint8_t *out, uint32_t value) {
    out[0] = (uint8_t)value;
    out[1] = (uint8_t)(value >> 8);
    out[2] = (uint8_t)(value >> 16);
    out[3] = (uint8_t)(value >> 24);
}

static uint32_t get_u32le(const uint8_t *in) {
    return (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
}

bool tg_frame_append_request(tg_buffer *out, uint32_t method_index, uint32_t request_id,
                             const ProtobufCMessage *message) {
    size_t length = protobuf_c_message_get_packed_size(message);
    if (length > UINT32_MAX) return false;
    if (!tg_buffer_reserve(out, TG_REQUEST_HEADER_LENGTH + length)) return false;
    uint8_t *header = out->data + out->end;
    put_u32le(header, method_index);
    put_u32le(header + 4, (uint32_t)length);
    put_u32le(header + 8, request_id);
    protobuf_c_message_pack(message, header + TG_REQUEST_HEADER_LENGTH);
    out->end += TG_REQUEST_HEADER_LENGTH + length;
    return true;
}

tg_response_header tg_frame_read_response_header(const uint8_t *bytes) {
    tg_response_header header = {
        .status_code = get_u32le(bytes),
        .method_index = get_u32le(bytes + 4),
        .message_length = get_u32le(bytes + 8),
        .request_id = get_u32le(bytes + 12),
    };
    return header;
}

tollgate_status tg_frame_status(uint32_t status_code) {
    switch (status_code) {
    case TG_FRAME_SUCCESS: return TOLLGATE_OK;
    case TG_FRAME_SERVICE_FAILED: return TOLLGATE_SERVICE_FAILED;
    case TG_FRAME_TOO_MANY_PENDING: return TOLLGATE_TOO_MANY_PENDING;
    default: return TOLLGATE_BAD_RESPONSE;
    }
}
