#include "check.h"

#include <stdarg.h>
#include <stdio.h>

static int failures_in_case;

void check_failed(const char *file, int line, const char *format, ...) {
    failures_in_case++;
    fprintf(stderr, "    %s:%d: ", file, line);
    va_list arguments;
    va_start(arguments, format);
    vfprintf(stderr, format, arguments);
    va_end(arguments);
    fputc('\n', stderr);
}

int run_tests(const char *suite, const test_case *cases, size_t count) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        failures_in_case = 0;
        cases[i].run();
        if (failures_in_case == 0) {
            passed++;
            printf("ok   %s/%s\n", suite, cases[i].name);
        } else {
            failed++;
            printf("FAIL %s/%s\n", suite, cases[i].name);
        }
        fflush(stdout);
    }
    printf("%s: %d passed, %d failed\n", suite, passed, failed);
    return failed == 0 ? 0 : 1;
}
