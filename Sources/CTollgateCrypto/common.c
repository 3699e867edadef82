#include "internal.h"

#include <stdlib.h>
#include <string.h>

void tg_buffer_free(tg_buffer *buffer) {
  if (buffer == NULL) return;
  free(buffer->data);
  buffer->data = NULL;
  buffer->len = 0;
}

tg_status tg_buffer_set(tg_buffer *out, const uint8_t *data, size_t len) {
  if (out == NULL) return TG_ERR_ARGUMENT;
  out->data = malloc(len > 0 ? len : 1);
  if (out->data == NULL) return TG_ERR_INTERNAL;
  if (len > 0) memcpy(out->data, data, len);
  out->len = len;
  return TG_OK;
}

tg_status tg_buffer_take_der(tg_buffer *out, unsigned char *der, int len) {
  if (len <= 0) {
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  tg_status status = tg_buffer_set(out, der, (size_t)len);
  OPENSSL_free(der);
  return status;
}

tg_status tg_buffer_from_bio(tg_buffer *out, BIO *bio) {
  const uint8_t *data = NULL;
  long len = BIO_get_mem_data(bio, (char **)&data);
  if (len < 0) return TG_ERR_INTERNAL;
  return tg_buffer_set(out, data, (size_t)len);
}

X509 *tg_x509_from_der(const uint8_t *der, size_t len) {
  if (der == NULL || len == 0 || len > (size_t)INT32_MAX) return NULL;
  const unsigned char *p = der;
  X509 *cert = d2i_X509(NULL, &p, (long)len);
  if (cert != NULL && p != der + len) {  // trailing garbage
    X509_free(cert);
    cert = NULL;
  }
  ERR_clear_error();
  return cert;
}
