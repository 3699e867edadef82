#include "internal.h"

#include <openssl/core_names.h>
#include <openssl/param_build.h>
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

/// An RSA public key with modulus `n` and exponent `e`, or NULL.
static EVP_PKEY *rsa_public_from_bignums(const BIGNUM *n, const BIGNUM *e) {
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  if (bld == NULL) return NULL;
  OSSL_PARAM *params = NULL;
  EVP_PKEY_CTX *ctx = NULL;
  EVP_PKEY *key = NULL;
  int ok = OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) == 1 &&
           OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) == 1 &&
           (params = OSSL_PARAM_BLD_to_param(bld)) != NULL &&
           (ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) != NULL && EVP_PKEY_fromdata_init(ctx) == 1 &&
           EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) == 1;
  if (!ok) {
    EVP_PKEY_free(key);
    key = NULL;
  }
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  return key;
}

tg_status tg_pkey_rsa_public_from_components(const uint8_t *modulus, size_t modulus_len, const uint8_t *exponent,
                                             size_t exponent_len, tg_pkey **out_key) {
  if (modulus == NULL || exponent == NULL || out_key == NULL || modulus_len == 0 || exponent_len == 0 ||
      modulus_len > 4096 || exponent_len > 8) {
    return TG_ERR_ARGUMENT;
  }
  BIGNUM *n = BN_bin2bn(modulus, (int)modulus_len, NULL);
  BIGNUM *e = BN_bin2bn(exponent, (int)exponent_len, NULL);
  tg_status status = TG_ERR_INTERNAL;
  if (n != NULL && e != NULL) {
    int bits = BN_num_bits(n);
    if (bits < 1024 || bits > 8192 || !BN_is_odd(e) || BN_is_one(e)) {
      status = TG_ERR_PARSE;
    } else {
      EVP_PKEY *key = rsa_public_from_bignums(n, e);
      if (key != NULL) {
        *out_key = (tg_pkey *)key;
        status = TG_OK;
      }
    }
  }
  BN_free(n);
  BN_free(e);
  ERR_clear_error();
  return status;
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
