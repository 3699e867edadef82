#include "internal.h"

#include <openssl/objects.h>
#include <openssl/x509_vfy.h>

/// Builds a store holding exactly the configured roots, with the check time set.
static X509_STORE *make_store(const tg_cert *const *roots, size_t root_count) {
  X509_STORE *store = X509_STORE_new();
  if (store == NULL) return NULL;
  for (size_t i = 0; i < root_count; i++) {
    if (roots[i] == NULL || X509_STORE_add_cert(store, TG_CERT(roots[i])) != 1) {
      X509_STORE_free(store);
      return NULL;
    }
  }
  return store;
}

/// Configures time and strictness on a verification context. X509_STRICT stays off: Apple's
/// test CA has no AKI/SKI and would fail strict checks. Partial chains stay off: the chain must
/// end at a configured root.
static void configure(X509_STORE_CTX *ctx, int check_time, int64_t at) {
  X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
  X509_VERIFY_PARAM_clear_flags(param, X509_V_FLAG_X509_STRICT | X509_V_FLAG_PARTIAL_CHAIN);
  if (check_time) {
    X509_VERIFY_PARAM_set_time(param, (time_t)at);  // also sets X509_V_FLAG_USE_CHECK_TIME
  } else {
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_NO_CHECK_TIME);
  }
}

tg_status tg_verify_with_store(X509 *leaf, STACK_OF(X509) *untrusted, const tg_cert *const *roots,
                               size_t root_count, int check_time, int64_t at, int *out_x509_error,
                               STACK_OF(X509) **out_chain) {
  X509_STORE *store = make_store(roots, root_count);
  X509_STORE_CTX *ctx = X509_STORE_CTX_new();
  tg_status status = TG_ERR_INTERNAL;
  if (store != NULL && ctx != NULL && X509_STORE_CTX_init(ctx, store, leaf, untrusted) == 1) {
    configure(ctx, check_time, at);
    if (X509_verify_cert(ctx) == 1) {
      status = TG_OK;
      if (out_chain != NULL) *out_chain = X509_STORE_CTX_get1_chain(ctx);
    } else {
      status = TG_ERR_CHAIN;
      if (out_x509_error != NULL) *out_x509_error = X509_STORE_CTX_get_error(ctx);
    }
  }
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  ERR_clear_error();
  return status;
}

tg_status tg_chain_verify(const uint8_t *leaf_der, size_t leaf_len, const uint8_t *intermediate_der,
                          size_t intermediate_len, const tg_cert *const *roots, size_t root_count,
                          int check_time, int64_t at_unix_seconds, const char *leaf_oid,
                          const char *intermediate_oid, tg_pkey **out_leaf_key, int *out_x509_error,
                          int64_t *out_not_before, int64_t *out_not_after) {
  if (leaf_der == NULL || intermediate_der == NULL || (roots == NULL && root_count > 0)) return TG_ERR_ARGUMENT;
  if (out_x509_error != NULL) *out_x509_error = 0;
  X509 *leaf = tg_x509_from_der(leaf_der, leaf_len);
  X509 *intermediate = tg_x509_from_der(intermediate_der, intermediate_len);
  STACK_OF(X509) *untrusted = sk_X509_new_null();
  STACK_OF(X509) *chain = NULL;
  tg_status status = TG_ERR_INTERNAL;
  if (leaf == NULL || intermediate == NULL) {
    status = TG_ERR_PARSE;
  } else if (untrusted != NULL && sk_X509_push(untrusted, intermediate) > 0) {
    status = tg_verify_with_store(leaf, untrusted, roots, root_count, check_time, at_unix_seconds,
                                  out_x509_error, &chain);
  }
  // Exactly leaf <- the given intermediate <- a root: a leaf signed by the root itself is refused.
  if (status == TG_OK && (sk_X509_num(chain) != 3 || X509_cmp(sk_X509_value(chain, 1), intermediate) != 0)) {
    status = TG_ERR_CHAIN;
    if (out_x509_error != NULL) *out_x509_error = X509_V_ERR_PATH_LENGTH_EXCEEDED;
  }
  if (status == TG_OK && leaf_oid != NULL && tg_cert_has_extension((tg_cert *)leaf, leaf_oid) != 1) {
    status = TG_ERR_LEAF_OID;
  }
  if (status == TG_OK && intermediate_oid != NULL &&
      tg_cert_has_extension((tg_cert *)intermediate, intermediate_oid) != 1) {
    status = TG_ERR_INTERMEDIATE_OID;
  }
  if (status == TG_OK && (out_not_before != NULL || out_not_after != NULL)) {
    int64_t latest_start = INT64_MIN, earliest_end = INT64_MAX;
    for (int i = 0; status == TG_OK && i < sk_X509_num(chain); i++) {
      int64_t start = 0, end = 0;
      status = tg_cert_validity((const tg_cert *)sk_X509_value(chain, i), &start, &end);
      if (start > latest_start) latest_start = start;
      if (end < earliest_end) earliest_end = end;
    }
    if (out_not_before != NULL) *out_not_before = latest_start;
    if (out_not_after != NULL) *out_not_after = earliest_end;
  }
  if (status == TG_OK && out_leaf_key != NULL) {
    status = tg_cert_public_key((tg_cert *)leaf, out_leaf_key);
  }
  sk_X509_pop_free(chain, X509_free);
  sk_X509_free(untrusted);
  X509_free(intermediate);
  X509_free(leaf);
  ERR_clear_error();
  return status;
}

const char *tg_x509_error_string(int code) { return X509_verify_cert_error_string(code); }
