/* Filling a tollgate_error. */
#ifndef TG_ERROR_H
#define TG_ERROR_H

#include "tollgate/status.h"

/* Sets error (when not NULL) to code and a printf-formatted message, and returns code. */
tollgate_status tg_error_set(tollgate_error *error, tollgate_status code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies source into error (when not NULL) and returns its code. */
tollgate_status tg_error_copy(tollgate_error *error, const tollgate_error *source);

#endif
