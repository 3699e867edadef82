#include "internal.h"

#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <string.h>

static int looks_like_pem(const uint8_t *data, size_t len) {
  for (size_t i = 0; i + 10 <= len && i < 64; i++) {
    if (memcmp(data + i, "-----BEGIN", 10) == 0) return 1;
  }
  return 0;
}

tg_status tg_pkey_parse_private(const uint8_t *data, size_t len, tg_pkey **out_key) {
  if (data == NULL || out_key == NULL || len == 0 || len > (size_t)INT32_MAX) return TG_ERR_ARGUMENT;
  EVP_PKEY *key = NULL;
  if (looks_like_pem(data, len)) {
    BIO *bio = BIO_new_mem_buf(data, (int)len);
    if (bio == NULL) return TG_ERR_INTERNAL;
    key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
  } else {
    const unsigned char *p = data;
    key = d2i_AutoPrivateKey(NULL, &p, (long)len);
  }
  ERR_clear_error();
  if (key == NULL) return TG_ERR_PARSE;
  *out_key = (tg_pkey *)key;
  return TG_OK;
}

tg_status tg_pkey_parse_public(const uint8_t *data, size_t len, tg_pkey **out_key) {
  if (data == NULL || out_key == NULL || len == 0 || len > (size_t)INT32_MAX) return TG_ERR_ARGUMENT;
  EVP_PKEY *key = NULL;
  if (looks_like_pem(data, len)) {
    BIO *bio = BIO_new_mem_buf(data, (int)len);
    if (bio == NULL) return TG_ERR_INTERNAL;
    key = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
  } else {
    const unsigned char *p = data;
    key = d2i_PUBKEY(NULL, &p, (long)len);
  }
  ERR_clear_error();
  if (key == NULL) return TG_ERR_PARSE;
  *out_key = (tg_pkey *)key;
  return TG_OK;
}

tg_status tg_pkey_generate_p256(tg_pkey **out_key) {
  if (out_key == NULL) return TG_ERR_ARGUMENT;
  EVP_PKEY *key = EVP_EC_gen("P-256");
  if (key == NULL) {
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  *out_key = (tg_pkey *)key;
  return TG_OK;
}

tg_status tg_pkey_generate_rsa(int bits, tg_pkey **out_key) {
  if (out_key == NULL || bits < 1024 || bits > 8192) return TG_ERR_ARGUMENT;
  EVP_PKEY *key = EVP_RSA_gen((unsigned int)bits);
  if (key == NULL) {
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  *out_key = (tg_pkey *)key;
  return TG_OK;
}

void tg_pkey_free(tg_pkey *key) { EVP_PKEY_free(TG_PKEY(key)); }

tg_key_type tg_pkey_type(const tg_pkey *key) {
  if (key == NULL) return TG_KEY_OTHER;
  EVP_PKEY *pkey = TG_PKEY(key);
  if (EVP_PKEY_is_a(pkey, "RSA")) return TG_KEY_RSA;
  if (EVP_PKEY_is_a(pkey, "EC")) {
    char group[64] = {0};
    size_t group_len = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, "group", group, sizeof(group), &group_len) == 1 &&
        (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0)) {
      return TG_KEY_P256;
    }
    ERR_clear_error();
  }
  return TG_KEY_OTHER;
}

tg_status tg_pkey_public_der(const tg_pkey *key, tg_buffer *out) {
  if (key == NULL || out == NULL) return TG_ERR_ARGUMENT;
  unsigned char *der = NULL;
  int len = i2d_PUBKEY(TG_PKEY(key), &der);
  return tg_buffer_take_der(out, der, len);
}

tg_status tg_pkey_private_pkcs8_der(const tg_pkey *key, tg_buffer *out) {
  if (key == NULL || out == NULL) return TG_ERR_ARGUMENT;
  BIO *bio = BIO_new(BIO_s_mem());
  if (bio == NULL) return TG_ERR_INTERNAL;
  tg_status status = TG_ERR_INTERNAL;
  if (i2d_PKCS8PrivateKey_bio(bio, TG_PKEY(key), NULL, NULL, 0, NULL, NULL) == 1) {
    status = tg_buffer_from_bio(out, bio);
  }
  BIO_free(bio);
  ERR_clear_error();
  return status;
}

tg_status tg_pkey_private_pkcs8_pem(const tg_pkey *key, tg_buffer *out) {
  if (key == NULL || out == NULL) return TG_ERR_ARGUMENT;
  BIO *bio = BIO_new(BIO_s_mem());
  if (bio == NULL) return TG_ERR_INTERNAL;
  tg_status status = TG_ERR_INTERNAL;
  if (PEM_write_bio_PKCS8PrivateKey(bio, TG_PKEY(key), NULL, NULL, 0, NULL, NULL) == 1) {
    status = tg_buffer_from_bio(out, bio);
  }
  BIO_free(bio);
  ERR_clear_error();
  return status;
}
