#include "internal.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

tg_status tg_cert_parse(const uint8_t *der, size_t len, tg_cert **out_cert) {
  if (der == NULL || out_cert == NULL) return TG_ERR_ARGUMENT;
  X509 *cert = tg_x509_from_der(der, len);
  if (cert == NULL) return TG_ERR_PARSE;
  *out_cert = (tg_cert *)cert;
  return TG_OK;
}

void tg_cert_free(tg_cert *cert) { X509_free(TG_CERT(cert)); }

tg_status tg_cert_der(const tg_cert *cert, tg_buffer *out) {
  if (cert == NULL || out == NULL) return TG_ERR_ARGUMENT;
  unsigned char *der = NULL;
  int len = i2d_X509(TG_CERT(cert), &der);
  return tg_buffer_take_der(out, der, len);
}

tg_status tg_cert_public_key(const tg_cert *cert, tg_pkey **out_key) {
  if (cert == NULL || out_key == NULL) return TG_ERR_ARGUMENT;
  EVP_PKEY *key = X509_get_pubkey(TG_CERT(cert));  // new reference
  ERR_clear_error();
  if (key == NULL) return TG_ERR_PARSE;
  *out_key = (tg_pkey *)key;
  return TG_OK;
}

tg_status tg_cert_subject(const tg_cert *cert, tg_buffer *out) {
  if (cert == NULL || out == NULL) return TG_ERR_ARGUMENT;
  BIO *bio = BIO_new(BIO_s_mem());
  if (bio == NULL) return TG_ERR_INTERNAL;
  tg_status status = TG_ERR_INTERNAL;
  if (X509_NAME_print_ex(bio, X509_get_subject_name(TG_CERT(cert)), 0, XN_FLAG_RFC2253) >= 0) {
    status = tg_buffer_from_bio(out, bio);
  }
  BIO_free(bio);
  ERR_clear_error();
  return status;
}

tg_status tg_cert_serial_hex(const tg_cert *cert, tg_buffer *out) {
  if (cert == NULL || out == NULL) return TG_ERR_ARGUMENT;
  BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(TG_CERT(cert)), NULL);
  char *hex = bn != NULL ? BN_bn2hex(bn) : NULL;
  tg_status status = hex != NULL ? tg_buffer_set(out, (const uint8_t *)hex, strlen(hex)) : TG_ERR_INTERNAL;
  OPENSSL_free(hex);
  BN_free(bn);
  ERR_clear_error();
  return status;
}

static int asn1_time_to_unix(const ASN1_TIME *time, int64_t *out) {
  ASN1_TIME *epoch = ASN1_TIME_set(NULL, 0);
  int days = 0, seconds = 0;
  int ok = epoch != NULL && ASN1_TIME_diff(&days, &seconds, epoch, time) == 1;
  ASN1_TIME_free(epoch);
  if (ok) *out = (int64_t)days * 86400 + seconds;
  return ok;
}

tg_status tg_cert_validity(const tg_cert *cert, int64_t *out_not_before, int64_t *out_not_after) {
  if (cert == NULL || out_not_before == NULL || out_not_after == NULL) return TG_ERR_ARGUMENT;
  int ok = asn1_time_to_unix(X509_get0_notBefore(TG_CERT(cert)), out_not_before) &&
           asn1_time_to_unix(X509_get0_notAfter(TG_CERT(cert)), out_not_after);
  ERR_clear_error();
  return ok ? TG_OK : TG_ERR_PARSE;
}

int tg_cert_has_extension(const tg_cert *cert, const char *dotted_oid) {
  if (cert == NULL || dotted_oid == NULL) return -1;
  ASN1_OBJECT *obj = OBJ_txt2obj(dotted_oid, 1);
  if (obj == NULL) {
    ERR_clear_error();
    return -1;
  }
  int index = X509_get_ext_by_OBJ(TG_CERT(cert), obj, -1);
  ASN1_OBJECT_free(obj);
  return index >= 0 ? 1 : 0;
}

static int add_conf_ext(X509 *cert, X509V3_CTX *ctx, int nid, const char *value) {
  X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
  if (ext == NULL) return 0;
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return ok;
}

static int add_marker_ext(X509 *cert, const char *oid) {
  static const unsigned char asn1_null[2] = {0x05, 0x00};
  ASN1_OBJECT *obj = OBJ_txt2obj(oid, 1);
  ASN1_OCTET_STRING *value = ASN1_OCTET_STRING_new();
  X509_EXTENSION *ext = NULL;
  int ok = obj != NULL && value != NULL && ASN1_OCTET_STRING_set(value, asn1_null, 2) == 1 &&
           (ext = X509_EXTENSION_create_by_OBJ(NULL, obj, 0, value)) != NULL && X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  ASN1_OCTET_STRING_free(value);
  ASN1_OBJECT_free(obj);
  return ok;
}

tg_status tg_cert_issue(const tg_pkey *subject_key, const char *common_name, const tg_cert *issuer,
                        const tg_pkey *issuer_key, int64_t serial, int64_t not_before, int64_t not_after,
                        int is_ca, const char *marker_oid, tg_cert **out_cert) {
  if (subject_key == NULL || common_name == NULL || issuer_key == NULL || out_cert == NULL || serial <= 0) {
    return TG_ERR_ARGUMENT;
  }
  X509 *cert = X509_new();
  if (cert == NULL) return TG_ERR_INTERNAL;
  X509 *issuer_cert = issuer != NULL ? TG_CERT(issuer) : cert;
  X509_NAME *name = X509_get_subject_name(cert);
  int ok = X509_set_version(cert, X509_VERSION_3) == 1 &&
           ASN1_INTEGER_set_int64(X509_get_serialNumber(cert), serial) == 1 &&
           ASN1_TIME_set(X509_getm_notBefore(cert), (time_t)not_before) != NULL &&
           ASN1_TIME_set(X509_getm_notAfter(cert), (time_t)not_after) != NULL &&
           X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Tollgate Test", -1, -1,
                                      0) == 1 &&
           X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) ==
               1 &&
           X509_set_issuer_name(cert, X509_get_subject_name(issuer_cert)) == 1 &&
           X509_set_pubkey(cert, TG_PKEY(subject_key)) == 1;
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer_cert, cert, NULL, NULL, 0);
  if (ok && is_ca) {
    ok = add_conf_ext(cert, &ctx, NID_basic_constraints, "critical,CA:TRUE") &&
         add_conf_ext(cert, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else if (ok) {
    ok = add_conf_ext(cert, &ctx, NID_key_usage, "critical,digitalSignature");
  }
  if (ok) ok = add_conf_ext(cert, &ctx, NID_subject_key_identifier, "hash");
  if (ok && issuer != NULL && X509_get0_subject_key_id(TG_CERT(issuer)) != NULL) {
    ok = add_conf_ext(cert, &ctx, NID_authority_key_identifier, "keyid");
  }
  if (ok && marker_oid != NULL) ok = add_marker_ext(cert, marker_oid);
  if (ok) ok = X509_sign(cert, TG_PKEY(issuer_key), EVP_sha256()) > 0;
  ERR_clear_error();
  if (!ok) {
    X509_free(cert);
    return TG_ERR_INTERNAL;
  }
  *out_cert = (tg_cert *)cert;
  return TG_OK;
}
