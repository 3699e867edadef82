#include "internal.h"

#include <openssl/pkcs7.h>

static PKCS7 *parse_signed(const uint8_t *der, size_t len) {
  if (der == NULL || len == 0 || len > (size_t)INT32_MAX) return NULL;
  const unsigned char *p = der;
  PKCS7 *p7 = d2i_PKCS7(NULL, &p, (long)len);
  ERR_clear_error();
  if (p7 == NULL) return NULL;
  if (!PKCS7_type_is_signed(p7) || p7->d.sign == NULL || p7->d.sign->contents == NULL ||
      !PKCS7_type_is_data(p7->d.sign->contents) || p7->d.sign->contents->d.data == NULL) {
    PKCS7_free(p7);
    return NULL;
  }
  return p7;
}

static tg_status copy_content(PKCS7 *p7, tg_buffer *out) {
  ASN1_OCTET_STRING *data = p7->d.sign->contents->d.data;
  return tg_buffer_set(out, ASN1_STRING_get0_data(data), (size_t)ASN1_STRING_length(data));
}

tg_status tg_pkcs7_content(const uint8_t *der, size_t len, tg_buffer *out_content) {
  if (out_content == NULL) return TG_ERR_ARGUMENT;
  PKCS7 *p7 = parse_signed(der, len);
  if (p7 == NULL) return TG_ERR_PARSE;
  tg_status status = copy_content(p7, out_content);
  PKCS7_free(p7);
  return status;
}

/// Whether `cert` is (byte for byte) one of `roots`.
static int is_root(X509 *cert, const tg_cert *const *roots, size_t root_count) {
  for (size_t i = 0; i < root_count; i++) {
    if (roots[i] != NULL && X509_cmp(cert, TG_CERT(roots[i])) == 0) return 1;
  }
  return 0;
}

tg_status tg_pkcs7_verify(const uint8_t *der, size_t len, const tg_cert *const *roots, size_t root_count,
                          int check_time, int64_t at_unix_seconds, const char *signer_oid,
                          tg_buffer *out_content, int *out_x509_error) {
  if (out_content == NULL || (roots == NULL && root_count > 0)) return TG_ERR_ARGUMENT;
  if (out_x509_error != NULL) *out_x509_error = 0;
  PKCS7 *p7 = parse_signed(der, len);
  if (p7 == NULL) return TG_ERR_PARSE;
  tg_status status = TG_ERR_PARSE;
  STACK_OF(X509) *signers = PKCS7_get0_signers(p7, NULL, 0);
  if (signers != NULL && sk_X509_num(signers) == 1) {
    // The chain is checked here, with the embedded certificates as untrusted candidates and only
    // the configured roots as anchors; PKCS7_verify then checks just the signature.
    X509 *signer = sk_X509_value(signers, 0);
    status = tg_verify_with_store(signer, p7->d.sign->cert, roots, root_count, check_time, at_unix_seconds,
                                  out_x509_error, NULL);
    // A signer that is itself a configured root (Xcode's self-signed StoreKit certificate) is
    // trusted as configured; any other must carry the signing role's marker extension.
    if (status == TG_OK && signer_oid != NULL && !is_root(signer, roots, root_count) &&
        tg_cert_has_extension((tg_cert *)signer, signer_oid) != 1) {
      status = TG_ERR_LEAF_OID;
    }
    if (status == TG_OK) {
      BIO *content = BIO_new(BIO_s_mem());
      status = TG_ERR_INTERNAL;
      if (content != NULL) {
        status = PKCS7_verify(p7, NULL, NULL, NULL, content, PKCS7_NOVERIFY | PKCS7_NOCHAIN) == 1
                     ? tg_buffer_from_bio(out_content, content)
                     : TG_ERR_SIGNATURE;
      }
      BIO_free(content);
    }
  }
  sk_X509_free(signers);
  PKCS7_free(p7);
  ERR_clear_error();
  return status;
}

tg_status tg_pkcs7_sign(const uint8_t *content, size_t len, const tg_cert *signer, const tg_pkey *key,
                        const tg_cert *const *extra_certs, size_t extra_count, tg_buffer *out_der) {
  if (content == NULL || signer == NULL || key == NULL || out_der == NULL || len > (size_t)INT32_MAX ||
      (extra_certs == NULL && extra_count > 0)) {
    return TG_ERR_ARGUMENT;
  }
  tg_status status = TG_ERR_INTERNAL;
  STACK_OF(X509) *certs = sk_X509_new_null();
  BIO *data = BIO_new_mem_buf(content, (int)len);
  PKCS7 *p7 = NULL;
  int ok = certs != NULL && data != NULL;
  for (size_t i = 0; ok && i < extra_count; i++) ok = sk_X509_push(certs, TG_CERT(extra_certs[i])) > 0;
  if (ok) p7 = PKCS7_sign(TG_CERT(signer), TG_PKEY(key), certs, data, PKCS7_BINARY);
  if (p7 != NULL) {
    unsigned char *der = NULL;
    int der_len = i2d_PKCS7(p7, &der);
    status = tg_buffer_take_der(out_der, der, der_len);
  }
  PKCS7_free(p7);
  BIO_free(data);
  sk_X509_free(certs);  // the certificates stay the caller's
  ERR_clear_error();
  return status;
}
