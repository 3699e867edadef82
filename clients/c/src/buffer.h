/* A growable byte buffer: bytes live in data[start, end). Used for the connection's input and
 * output so that a steady stream of calls allocates nothing. */
#ifndef TG_BUFFER_H
#define TG_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tg_buffer {
    uint8_t *data;
    size_t start;
    size_t end;
    size_t capacity;
} tg_buffer;

static inline size_t tg_buffer_length(const tg_buffer *buffer) { return buffer->end - buffer->start; }

/* Makes room for `extra` more bytes after end (moving the content to the front when that is
 * enough). Returns false when memory runs out. */
bool tg_buffer_reserve(tg_buffer *buffer, size_t extra);

/* Drops `count` bytes from the front. */
void tg_buffer_consume(tg_buffer *buffer, size_t count);

/* Empties the buffer, keeping its memory. */
void tg_buffer_reset(tg_buffer *buffer);

void tg_buffer_free(tg_buffer *buffer);

#endif
