#include "internal.h"

#include <openssl/ec.h>
#include <openssl/rsa.h>

/// One-shot sign with SHA-256; `padding` is used for RSA keys.
static tg_status digest_sign_with(EVP_PKEY *key, const EVP_MD *md, const uint8_t *msg, size_t msg_len,
                                  unsigned char **out_sig, size_t *out_len) {
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  if (ctx == NULL) return TG_ERR_INTERNAL;
  tg_status status = TG_ERR_INTERNAL;
  EVP_PKEY_CTX *pctx = NULL;
  size_t len = 0;
  if (EVP_DigestSignInit(ctx, &pctx, md, NULL, key) == 1 &&
      (!EVP_PKEY_is_a(key, "RSA") || EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1) &&
      EVP_DigestSign(ctx, NULL, &len, msg, msg_len) == 1) {
    unsigned char *sig = OPENSSL_malloc(len);
    if (sig != NULL && EVP_DigestSign(ctx, sig, &len, msg, msg_len) == 1) {
      *out_sig = sig;
      *out_len = len;
      status = TG_OK;
    } else {
      OPENSSL_free(sig);
    }
  }
  EVP_MD_CTX_free(ctx);
  ERR_clear_error();
  return status;
}

static tg_status digest_sign(EVP_PKEY *key, const uint8_t *msg, size_t msg_len, unsigned char **out_sig,
                             size_t *out_len) {
  return digest_sign_with(key, EVP_sha256(), msg, msg_len, out_sig, out_len);
}

/// One-shot verify with `md` (SHA-256 unless a caller needs another); PKCS#1 v1.5 for RSA keys.
static tg_status digest_verify(EVP_PKEY *key, const EVP_MD *md, const uint8_t *msg, size_t msg_len,
                               const uint8_t *sig, size_t sig_len) {
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  if (ctx == NULL) return TG_ERR_INTERNAL;
  tg_status status = TG_ERR_INTERNAL;
  EVP_PKEY_CTX *pctx = NULL;
  if (EVP_DigestVerifyInit(ctx, &pctx, md, NULL, key) == 1 &&
      (!EVP_PKEY_is_a(key, "RSA") || EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1)) {
    status = EVP_DigestVerify(ctx, sig, sig_len, msg, msg_len) == 1 ? TG_OK : TG_ERR_SIGNATURE;
  }
  EVP_MD_CTX_free(ctx);
  ERR_clear_error();
  return status;
}

tg_status tg_es256_sign(const tg_pkey *key, const uint8_t *msg, size_t msg_len, uint8_t out_signature[64]) {
  if (key == NULL || (msg == NULL && msg_len > 0) || out_signature == NULL) return TG_ERR_ARGUMENT;
  if (tg_pkey_type(key) != TG_KEY_P256) return TG_ERR_KEY_TYPE;
  unsigned char *der = NULL;
  size_t der_len = 0;
  tg_status status = digest_sign(TG_PKEY(key), msg, msg_len, &der, &der_len);
  if (status != TG_OK) return status;
  const unsigned char *p = der;
  ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
  status = TG_ERR_INTERNAL;
  if (sig != NULL) {
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    if (BN_bn2binpad(r, out_signature, 32) == 32 && BN_bn2binpad(s, out_signature + 32, 32) == 32) {
      status = TG_OK;
    }
    ECDSA_SIG_free(sig);
  }
  OPENSSL_free(der);
  ERR_clear_error();
  return status;
}

tg_status tg_es256_verify(const tg_pkey *key, const uint8_t *msg, size_t msg_len, const uint8_t *sig,
                          size_t sig_len) {
  if (key == NULL || (msg == NULL && msg_len > 0) || (sig == NULL && sig_len > 0)) return TG_ERR_ARGUMENT;
  if (tg_pkey_type(key) != TG_KEY_P256) return TG_ERR_KEY_TYPE;
  if (sig_len != 64) return TG_ERR_SIGNATURE;
  ECDSA_SIG *ecdsa = ECDSA_SIG_new();
  BIGNUM *r = BN_bin2bn(sig, 32, NULL);
  BIGNUM *s = BN_bin2bn(sig + 32, 32, NULL);
  if (ecdsa == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(ecdsa, r, s) != 1) {
    ECDSA_SIG_free(ecdsa);
    BN_free(r);
    BN_free(s);
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  unsigned char *der = NULL;
  int der_len = i2d_ECDSA_SIG(ecdsa, &der);
  ECDSA_SIG_free(ecdsa);  // owns r and s
  if (der_len <= 0) {
    ERR_clear_error();
    return TG_ERR_INTERNAL;
  }
  tg_status status = digest_verify(TG_PKEY(key), EVP_sha256(), msg, msg_len, der, (size_t)der_len);
  OPENSSL_free(der);
  return status;
}

tg_status tg_rs256_sign(const tg_pkey *key, const uint8_t *msg, size_t msg_len, tg_buffer *out_signature) {
  if (key == NULL || (msg == NULL && msg_len > 0) || out_signature == NULL) return TG_ERR_ARGUMENT;
  if (tg_pkey_type(key) != TG_KEY_RSA) return TG_ERR_KEY_TYPE;
  unsigned char *sig = NULL;
  size_t len = 0;
  tg_status status = digest_sign(TG_PKEY(key), msg, msg_len, &sig, &len);
  if (status != TG_OK) return status;
  status = tg_buffer_set(out_signature, sig, len);
  OPENSSL_free(sig);
  return status;
}

tg_status tg_rs256_verify(const tg_pkey *key, const uint8_t *msg, size_t msg_len, const uint8_t *sig,
                          size_t sig_len) {
  if (key == NULL || (msg == NULL && msg_len > 0) || (sig == NULL && sig_len > 0)) return TG_ERR_ARGUMENT;
  if (tg_pkey_type(key) != TG_KEY_RSA) return TG_ERR_KEY_TYPE;
  return digest_verify(TG_PKEY(key), EVP_sha256(), msg, msg_len, sig, sig_len);
}

tg_status tg_rsa_sha1_verify(const tg_pkey *key, const uint8_t *msg, size_t msg_len, const uint8_t *sig,
                             size_t sig_len) {
  if (key == NULL || (msg == NULL && msg_len > 0) || (sig == NULL && sig_len > 0)) return TG_ERR_ARGUMENT;
  if (tg_pkey_type(key) != TG_KEY_RSA) return TG_ERR_KEY_TYPE;
  return digest_verify(TG_PKEY(key), EVP_sha1(), msg, msg_len, sig, sig_len);
}

tg_status tg_rsa_sha1_sign(const tg_pkey *key, const uint8_t *msg, size_t msg_len, tg_buffer *out_signature) {
  if (key == NULL || (msg == NULL && msg_len > 0) || out_signature == NULL) return TG_ERR_ARGUMENT;
  if (tg_pkey_type(key) != TG_KEY_RSA) return TG_ERR_KEY_TYPE;
  unsigned char *sig = NULL;
  size_t len = 0;
  tg_status status = digest_sign_with(TG_PKEY(key), EVP_sha1(), msg, msg_len, &sig, &len);
  if (status != TG_OK) return status;
  status = tg_buffer_set(out_signature, sig, len);
  OPENSSL_free(sig);
  return status;
}
