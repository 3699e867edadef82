#include "CTollgateCrypto.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

struct tg_tls_context {
  SSL_CTX *ctx;
};

/// The TLS 1.2 suites a server offers (Mozilla's "intermediate" list without DHE).
#define TG_TLS12_SERVER_CIPHERS                                                                      \
  "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"        \
  "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

struct tg_tls {
  SSL *ssl;
};

static void describe(char *error, size_t capacity, const char *what, const char *path) {
  if (error == NULL || capacity == 0) return;
  unsigned long code = ERR_peek_last_error();
  char reason[160] = "";
  if (code != 0) ERR_error_string_n(code, reason, sizeof reason);
  snprintf(error, capacity, "%s %s%s%s", what, path != NULL ? path : "", reason[0] ? ": " : "", reason);
  ERR_clear_error();
}

tg_tls_context *tg_tls_server_context_new(const char *certificate_file, const char *private_key_file,
                                          const char *client_ca_file, char *error, size_t error_capacity) {
  if (certificate_file == NULL || private_key_file == NULL) {
    describe(error, error_capacity, "a certificate file and a private key file are required", NULL);
    return NULL;
  }
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == NULL) {
    describe(error, error_capacity, "cannot make a TLS context", NULL);
    return NULL;
  }
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // TLS 1.2: forward secrecy (ECDHE) and AEAD ciphers only; no RSA key exchange, no CBC, no
  // SHA-1 MACs. TLS 1.3's suites are all ECDHE/AEAD already and keep OpenSSL's defaults.
  if (SSL_CTX_set_cipher_list(ctx, TG_TLS12_SERVER_CIPHERS) != 1) {
    describe(error, error_capacity, "cannot set the TLS 1.2 cipher list", NULL);
    SSL_CTX_free(ctx);
    return NULL;
  }
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_read_ahead(ctx, 1);  // one read(2) per record burst, not a record's header then its body
  if (SSL_CTX_use_certificate_chain_file(ctx, certificate_file) != 1) {
    describe(error, error_capacity, "cannot read the certificate chain", certificate_file);
    SSL_CTX_free(ctx);
    return NULL;
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, private_key_file, SSL_FILETYPE_PEM) != 1) {
    describe(error, error_capacity, "cannot read the private key", private_key_file);
    SSL_CTX_free(ctx);
    return NULL;
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    describe(error, error_capacity, "the private key does not match the certificate", private_key_file);
    SSL_CTX_free(ctx);
    return NULL;
  }
  if (client_ca_file != NULL) {
    if (SSL_CTX_load_verify_locations(ctx, client_ca_file, NULL) != 1) {
      describe(error, error_capacity, "cannot read the client CA file", client_ca_file);
      SSL_CTX_free(ctx);
      return NULL;
    }
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(client_ca_file);
    if (names != NULL) SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
  }
  struct tg_tls_context *context = malloc(sizeof *context);
  if (context == NULL) {
    SSL_CTX_free(ctx);
    describe(error, error_capacity, "out of memory", NULL);
    return NULL;
  }
  context->ctx = ctx;
  signal(SIGPIPE, SIG_IGN);
  return context;
}

void tg_tls_context_free(tg_tls_context *context) {
  if (context == NULL) return;
  SSL_CTX_free(context->ctx);
  free(context);
}

tg_tls *tg_tls_new(tg_tls_context *context, int fd) {
  if (context == NULL) return NULL;
  SSL *ssl = SSL_new(context->ctx);
  if (ssl == NULL) return NULL;
  if (SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    return NULL;
  }
  SSL_set_accept_state(ssl);
  struct tg_tls *tls = malloc(sizeof *tls);
  if (tls == NULL) {
    SSL_free(ssl);
    return NULL;
  }
  tls->ssl = ssl;
  return tls;
}

void tg_tls_free(tg_tls *tls) {
  if (tls == NULL) return;
  SSL_free(tls->ssl);
  free(tls);
}

static long outcome(SSL *ssl, int result) {
  switch (SSL_get_error(ssl, result)) {
  case SSL_ERROR_WANT_READ:
    return TG_TLS_WANT_READ;
  case SSL_ERROR_WANT_WRITE:
    return TG_TLS_WANT_WRITE;
  case SSL_ERROR_ZERO_RETURN:
    ERR_clear_error();
    return 0;
  case SSL_ERROR_SYSCALL:
    // EOF without close_notify, or a reset: the peer is gone either way.
    ERR_clear_error();
    return errno == EAGAIN || errno == EWOULDBLOCK ? TG_TLS_WANT_READ : (result == 0 ? 0 : TG_TLS_FAILED);
  default:
    ERR_clear_error();
    return TG_TLS_FAILED;
  }
}

long tg_tls_read(tg_tls *tls, void *bytes, size_t capacity) {
  if (capacity == 0) return TG_TLS_FAILED;
  int count = capacity > 0x7fffffff ? 0x7fffffff : (int)capacity;
  int result = SSL_read(tls->ssl, bytes, count);
  return result > 0 ? result : outcome(tls->ssl, result);
}

int tg_tls_has_pending(tg_tls *tls) { return SSL_has_pending(tls->ssl); }

int tg_tls_handshake_done(tg_tls *tls) { return SSL_is_init_finished(tls->ssl); }

long tg_tls_write(tg_tls *tls, const void *bytes, size_t count) {
  if (count == 0) return 0;
  int length = count > 0x7fffffff ? 0x7fffffff : (int)count;
  int result = SSL_write(tls->ssl, bytes, length);
  return result > 0 ? result : outcome(tls->ssl, result);
}

// MARK: The client side (`tollgate bench` loading a TLS listener)

tg_tls_context *tg_tls_client_context_new(const char *ca_file, char *error, size_t error_capacity) {
  if (ca_file == NULL) {
    describe(error, error_capacity, "a CA file is required", NULL);
    return NULL;
  }
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == NULL) {
    describe(error, error_capacity, "cannot make a TLS context", NULL);
    return NULL;
  }
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // The caller's send buffer may move and grow between a write that waited and its retry.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Whole socket reads, not a record header and then its body: the load generator stays cheap.
  SSL_CTX_set_read_ahead(ctx, 1);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
  if (SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) {
    describe(error, error_capacity, "cannot read the CA file", ca_file);
    SSL_CTX_free(ctx);
    return NULL;
  }
  struct tg_tls_context *context = malloc(sizeof *context);
  if (context == NULL) {
    SSL_CTX_free(ctx);
    describe(error, error_capacity, "out of memory", NULL);
    return NULL;
  }
  context->ctx = ctx;
  signal(SIGPIPE, SIG_IGN);
  return context;
}

tg_tls *tg_tls_client_new(tg_tls_context *context, int fd, const char *server_name) {
  if (context == NULL || server_name == NULL) return NULL;
  SSL *ssl = SSL_new(context->ctx);
  if (ssl == NULL) return NULL;
  unsigned char address[16];
  int is_address = inet_pton(AF_INET, server_name, address) == 1 || inet_pton(AF_INET6, server_name, address) == 1;
  int named = is_address ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), server_name) == 1
                        : SSL_set_tlsext_host_name(ssl, server_name) == 1 && SSL_set1_host(ssl, server_name) == 1;
  if (!named || SSL_set_fd(ssl, fd) != 1) {
    ERR_clear_error();
    SSL_free(ssl);
    return NULL;
  }
  SSL_set_connect_state(ssl);
  struct tg_tls *tls = malloc(sizeof *tls);
  if (tls == NULL) {
    SSL_free(ssl);
    return NULL;
  }
  tls->ssl = ssl;
  return tls;
}

long tg_tls_handshake(tg_tls *tls, char *error, size_t error_capacity) {
  int result = SSL_do_handshake(tls->ssl);
  if (result == 1) return 1;
  long status = outcome(tls->ssl, result);
  if (status == TG_TLS_WANT_READ || status == TG_TLS_WANT_WRITE) return status;
  long verified = SSL_get_verify_result(tls->ssl);
  if (verified != X509_V_OK) {
    snprintf(error, error_capacity, "the server's certificate did not verify: %s",
             X509_verify_cert_error_string(verified));
  } else {
    describe(error, error_capacity, status == 0 ? "the server closed the connection during the handshake" : "failed",
             NULL);
  }
  return TG_TLS_FAILED;
}
