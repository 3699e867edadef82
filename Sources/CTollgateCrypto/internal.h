// Shared helpers for the shim's .c files; not part of the public header.
#ifndef CTOLLGATE_CRYPTO_INTERNAL_H
#define CTOLLGATE_CRYPTO_INTERNAL_H

#include "CTollgateCrypto.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

// The opaque public handle types are the OpenSSL types themselves.
#define TG_PKEY(k) ((EVP_PKEY *)(k))
#define TG_CERT(c) ((X509 *)(c))

/// Copies `len` bytes into a new malloc'd buffer.
tg_status tg_buffer_set(tg_buffer *out, const uint8_t *data, size_t len);
/// Copies what an OpenSSL `i2d_*` call wrote (`der`, `len` bytes, or `len <= 0` on failure) into
/// `out` and frees `der`.
tg_status tg_buffer_take_der(tg_buffer *out, unsigned char *der, int len);
/// Moves the contents of a memory BIO into `out`.
tg_status tg_buffer_from_bio(tg_buffer *out, BIO *bio);
/// Parses one DER certificate (no trailing bytes); NULL on failure.
X509 *tg_x509_from_der(const uint8_t *der, size_t len);
/// Verifies `leaf` up to one of `roots` (chain.c); `out_chain` receives a new reference if not NULL.
tg_status tg_verify_with_store(X509 *leaf, STACK_OF(X509) *untrusted, const tg_cert *const *roots,
                               size_t root_count, int check_time, int64_t at, int *out_x509_error,
                               STACK_OF(X509) **out_chain);

#endif
