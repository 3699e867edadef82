#include "buffer.h"

#include <stdlib.h>
#include <string.h>

bool tg_buffer_reserve(tg_buffer *buffer, size_t extra) {
    if (buffer->capacity - buffer->end >= extra) return true;
    size_t length = tg_buffer_length(buffer);
    if (buffer->start > 0 && buffer->capacity - length >= extra) {
        memmove(buffer->data, buffer->data + buffer->start, length);
        buffer->start = 0;
        buffer->end = length;
        return true;
    }
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity - length < extra) {
        if (capacity > SIZE_MAX / 2) return false;
        capacity *= 2;
    }
    uint8_t *data = malloc(capacity);
    if (!data) return false;
    if (length) memcpy(data, buffer->data + buffer->start, length);
    free(buffer->data);
    buffer->data = data;
    buffer->start = 0;
    buffer->end = length;
    buffer->capacity = capacity;
    return true;
}

void tg_buffer_consume(tg_buffer *buffer, size_t count) {
    buffer->start += count;
    if (buffer->start == buffer->end) buffer->start = buffer->end = 0;
}

void tg_buffer_reset(tg_buffer *buffer) { buffer->start = buffer->end = 0; }

void tg_buffer_free(tg_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->start = buffer->end = buffer->capacity = 0;
}
