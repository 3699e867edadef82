#include "internal.h"

#include <openssl/hmac.h>

tg_status tg_sha256(const uint8_t *msg, size_t msg_len, uint8_t out_digest[32]) {
  if ((msg == NULL && msg_len > 0) || out_digest == NULL) return TG_ERR_ARGUMENT;
  unsigned int len = 0;
  static const uint8_t empty = 0;
  if (EVP_Digest(msg != NULL ? msg : &empty, msg_len, out_digest, &len, EVP_sha256(), NULL) != 1 || len != 32) {
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  return TG_OK;
}

tg_status tg_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                         uint8_t out_mac[32]) {
  if ((key == NULL && key_len > 0) || (msg == NULL && msg_len > 0) || out_mac == NULL) return TG_ERR_ARGUMENT;
  if (key_len > (size_t)INT32_MAX) return TG_ERR_ARGUMENT;
  static const uint8_t empty = 0;
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key != NULL ? key : &empty, (int)key_len, msg != NULL ? msg : &empty, msg_len, out_mac,
           &len) == NULL ||
      len != 32) {
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  return TG_OK;
}
