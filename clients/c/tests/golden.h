/* Reading the golden frames in proto/testdata: hex digits, whitespace ignored, lines starting with
 * '#' skipped. */
#ifndef TG_TEST_GOLDEN_H
#define TG_TEST_GOLDEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GOLDEN_DIR TOLLGATE_REPO_DIR "/proto/testdata"

/* Reads GOLDEN_DIR/name into out; returns the byte count, or 0 when unreadable or malformed. */
static inline size_t golden_read(const char *name, uint8_t *out, size_t capacity) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, name);
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    size_t count = 0;
    int high = -1, c, at_line_start = 1, in_comment = 0;
    while ((c = fgetc(file)) != EOF) {
        if (at_line_start && c == '#') in_comment = 1;
        at_line_start = c == '\n';
        if (c == '\n') in_comment = 0;
        if (in_comment || c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        int nibble = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                   : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (nibble < 0 || (high < 0 && count == capacity)) {
            fclose(file);
            return 0;
        }
        if (high < 0) {
            high = nibble;
        } else {
            out[count++] = (uint8_t)(high << 4 | nibble);
            high = -1;
        }
    }
    fclose(file);
    return high < 0 ? count : 0;
}

#endif
