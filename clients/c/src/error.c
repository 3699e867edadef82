#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tollgate_status tg_error_set(tollgate_error *error, tollgate_status code, const char *format, ...) {
    if (error) {
        error->code = code;
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error->message, sizeof error->message, format, arguments);
        va_end(arguments);
    }
    return code;
}

tollgate_status tg_error_copy(tollgate_error *error, const tollgate_error *source) {
    if (error && error != source) memcpy(error, source, sizeof *error);
    return source->code;
}

const char *tollgate_status_name(tollgate_status status) {
    switch (status) {
    case TOLLGATE_OK: return "ok";
    case TOLLGATE_INVALID_ARGUMENT: return "invalid_argument";
    case TOLLGATE_NOT_FOUND: return "not_found";
    case TOLLGATE_UNAUTHENTICATED: return "unauthenticated";
    case TOLLGATE_PERMISSION_DENIED: return "permission_denied";
    case TOLLGATE_RESOURCE_EXHAUSTED: return "resource_exhausted";
    case TOLLGATE_UNAVAILABLE: return "unavailable";
    case TOLLGATE_DEADLINE_EXCEEDED: return "deadline_exceeded";
    case TOLLGATE_INTERNAL: return "internal";
    case TOLLGATE_SERVICE_FAILED: return "service_failed";
    case TOLLGATE_TOO_MANY_PENDING: return "too_many_pending";
    case TOLLGATE_CONNECT_FAILED: return "connect_failed";
    case TOLLGATE_TIMEOUT: return "timeout";
    case TOLLGATE_CONNECTION_CLOSED: return "connection_closed";
    case TOLLGATE_BAD_RESPONSE: return "bad_response";
    case TOLLGATE_NO_MEMORY: return "no_memory";
    case TOLLGATE_USAGE: return "usage";
    case TOLLGATE_TLS_FAILED: return "tls_failed";
    }
    return "unknown";
}

bool tollgate_status_is_retryable(tollgate_status status) {
    switch (status) {
    case TOLLGATE_CONNECT_FAILED:
    case TOLLGATE_TIMEOUT:
    case TOLLGATE_CONNECTION_CLOSED:
    case TOLLGATE_TOO_MANY_PENDING:
    case TOLLGATE_UNAVAILABLE:
    case TOLLGATE_RESOURCE_EXHAUSTED:
    case TOLLGATE_DEADLINE_EXCEEDED:
        return true;
    default:
        return false;
    }
}
