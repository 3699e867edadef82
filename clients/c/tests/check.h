/* A minimal test runner: CHECK macros record failures with file:line, run_tests() runs each case
 * and ends with the line "N passed, N failed". */
#ifndef TG_TEST_CHECK_H
#define TG_TEST_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case;

void check_failed(const char *file, int line, const char *format, ...) __attribute__((format(printf, 3, 4)));

#define CHECK(condition) \
    do { \
        if (!(condition)) check_failed(__FILE__, __LINE__, "%s", #condition); \
    } while (0)

#define CHECK_INT(actual, expected) \
    do { \
        long long actual_ = (long long)(actual), expected_ = (long long)(expected); \
        if (actual_ != expected_) \
            check_failed(__FILE__, __LINE__, "%s is %lld, expected %lld", #actual, actual_, expected_); \
    } while (0)

#define CHECK_STR(actual, expected) \
    do { \
        const char *actual_ = (actual), *expected_ = (expected); \
        if (!actual_ || strcmp(actual_, expected_) != 0) \
            check_failed(__FILE__, __LINE__, "%s is \"%s\", expected \"%s\"", #actual, actual_ ? actual_ : "(null)", \
                         expected_); \
    } while (0)

/* Stops the current case when the condition does not hold (what follows would crash). */
#define REQUIRE(condition) \
    do { \
        if (!(condition)) { \
            check_failed(__FILE__, __LINE__, "required: %s", #condition); \
            return; \
        } \
    } while (0)

/* Runs the cases; a case whose checks all held passes. Returns the process exit status. */
int run_tests(const char *suite, const test_case *cases, size_t count);

#endif
