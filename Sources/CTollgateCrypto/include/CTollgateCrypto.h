/// CTollgateCrypto: the only code in Tollgate that touches OpenSSL (Debian's libssl-dev, 3.0).
///
/// Conventions: every function returns a `tg_status` (TG_OK on success); outputs go to
/// caller-provided pointers. Buffers in `tg_buffer` are malloc'd by the shim and released with
/// `tg_buffer_free`; handles (`tg_pkey`, `tg_cert`) are released with their `_free` function.
/// Handles are immutable after creation, so one handle may be used from several threads at once.
/// The shim keeps no global mutable state of its own.
#ifndef CTOLLGATE_CRYPTO_H
#define CTOLLGATE_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TG_OK = 0,
  TG_ERR_ARGUMENT = 1,          // a NULL or out-of-range argument
  TG_ERR_PARSE = 2,             // bytes are not a key / certificate / PKCS#7 structure
  TG_ERR_SIGNATURE = 3,         // a signature does not match
  TG_ERR_CHAIN = 4,             // the certificate chain does not verify (see out_x509_error)
  TG_ERR_LEAF_OID = 5,          // the leaf lacks the required extension
  TG_ERR_INTERMEDIATE_OID = 6,  // the intermediate lacks the required extension
  TG_ERR_KEY_TYPE = 7,          // the key is not of the kind the operation needs
  TG_ERR_INTERNAL = 8,          // OpenSSL failed (allocation, encoding)
} tg_status;

/// A malloc'd byte buffer owned by the caller once returned.
typedef struct {
  uint8_t *data;
  size_t len;
} tg_buffer;

void tg_buffer_free(tg_buffer *buffer);

/// An OpenSSL EVP_PKEY (private or public).
typedef struct tg_pkey tg_pkey;
/// An OpenSSL X509 certificate.
typedef struct tg_cert tg_cert;

typedef enum { TG_KEY_OTHER = 0, TG_KEY_P256 = 1, TG_KEY_RSA = 2 } tg_key_type;

// MARK: Keys

/// Parses a private key: PEM (PKCS#8, SEC1 or PKCS#1) or DER (PKCS#8 or traditional).
tg_status tg_pkey_parse_private(const uint8_t *data, size_t len, tg_pkey **out_key);
/// Parses a public key: SubjectPublicKeyInfo as DER or PEM.
tg_status tg_pkey_parse_public(const uint8_t *data, size_t len, tg_pkey **out_key);
tg_status tg_pkey_generate_p256(tg_pkey **out_key);
tg_status tg_pkey_generate_rsa(int bits, tg_pkey **out_key);
/// Builds an RSA public key from its big-endian modulus and public exponent (a JWK's `n` and `e`,
/// decoded). Leading zero bytes are allowed; the modulus must be 1024 to 8192 bits.
tg_status tg_pkey_rsa_public_from_components(const uint8_t *modulus, size_t modulus_len, const uint8_t *exponent,
                                             size_t exponent_len, tg_pkey **out_key);
void tg_pkey_free(tg_pkey *key);
tg_key_type tg_pkey_type(const tg_pkey *key);
/// SubjectPublicKeyInfo DER of the key (works for private and public keys).
tg_status tg_pkey_public_der(const tg_pkey *key, tg_buffer *out);
/// PKCS#8 PrivateKeyInfo DER (unencrypted).
tg_status tg_pkey_private_pkcs8_der(const tg_pkey *key, tg_buffer *out);
/// PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), as in an App Store Connect .p8 file.
tg_status tg_pkey_private_pkcs8_pem(const tg_pkey *key, tg_buffer *out);

// MARK: Signatures

/// ECDSA P-256 with SHA-256; `out_signature` receives the JWS form r || s (64 bytes).
tg_status tg_es256_sign(const tg_pkey *key, const uint8_t *msg, size_t msg_len, uint8_t out_signature[64]);
/// Verifies a JWS-form (r || s, 64 bytes) ES256 signature. TG_ERR_SIGNATURE on mismatch.
tg_status tg_es256_verify(const tg_pkey *key, const uint8_t *msg, size_t msg_len, const uint8_t *sig, size_t sig_len);
/// RSASSA-PKCS1-v1_5 with SHA-256.
tg_status tg_rs256_sign(const tg_pkey *key, const uint8_t *msg, size_t msg_len, tg_buffer *out_signature);
tg_status tg_rs256_verify(const tg_pkey *key, const uint8_t *msg, size_t msg_len, const uint8_t *sig, size_t sig_len);
/// RSASSA-PKCS1-v1_5 with SHA-1 (Play Billing purchase signatures).
tg_status tg_rsa_sha1_verify(const tg_pkey *key, const uint8_t *msg, size_t msg_len, const uint8_t *sig,
                             size_t sig_len);
/// Signs as the Play Billing library does (the store simulator only: nothing real signs with SHA-1 here).
tg_status tg_rsa_sha1_sign(const tg_pkey *key, const uint8_t *msg, size_t msg_len, tg_buffer *out_signature);

// MARK: Digests

tg_status tg_sha256(const uint8_t *msg, size_t msg_len, uint8_t out_digest[32]);
tg_status tg_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t out_mac[32]);

// MARK: Certificates

tg_status tg_cert_parse(const uint8_t *der, size_t len, tg_cert **out_cert);
void tg_cert_free(tg_cert *cert);
tg_status tg_cert_der(const tg_cert *cert, tg_buffer *out);
/// The certificate's public key, as a new handle.
tg_status tg_cert_public_key(const tg_cert *cert, tg_pkey **out_key);
/// Subject as a one-line RFC 2253 string.
tg_status tg_cert_subject(const tg_cert *cert, tg_buffer *out);
/// Serial number as upper-case hex.
tg_status tg_cert_serial_hex(const tg_cert *cert, tg_buffer *out);
/// notBefore / notAfter as Unix seconds.
tg_status tg_cert_validity(const tg_cert *cert, int64_t *out_not_before, int64_t *out_not_after);
/// 1 if the certificate carries an extension with the dotted OID, 0 if not, -1 on a bad OID.
int tg_cert_has_extension(const tg_cert *cert, const char *dotted_oid);

/// Issues an X.509 v3 certificate for `subject_key`, signed by `issuer_key` (SHA-256; the issuer
/// name is taken from `issuer`, or the certificate is self-signed when `issuer` is NULL).
/// `is_ca` adds basicConstraints CA:TRUE and keyUsage keyCertSign/cRLSign (critical);
/// `marker_oid`, when not NULL, adds a non-critical extension with that OID and an ASN.1 NULL
/// value, the way Apple marks its intermediate and leaf certificates.
tg_status tg_cert_issue(const tg_pkey *subject_key, const char *common_name, const tg_cert *issuer,
                        const tg_pkey *issuer_key, int64_t serial, int64_t not_before, int64_t not_after,
                        int is_ca, const char *marker_oid, tg_cert **out_cert);

// MARK: Chains

/// Verifies leaf <- intermediate <- one of `roots` at `at_unix_seconds` (or without time checks
/// when `check_time` is 0). The intermediate is only an untrusted candidate; the chain must be
/// exactly leaf + intermediate + a configured root (no partial chains, purpose any, X509_STRICT
/// off). When the OIDs are not NULL, the leaf and intermediate must carry them. On success
/// `out_leaf_key` (if not NULL) receives the leaf's public key. `out_x509_error` (if not NULL)
/// receives OpenSSL's X509_V_ERR_* code on TG_ERR_CHAIN. On success `out_not_before` and
/// `out_not_after` (if not NULL) receive the window in which every certificate of the verified
/// chain (leaf, intermediate, root) is valid, Unix seconds: the latest notBefore and the earliest
/// notAfter (OpenSSL takes a moment t when notBefore <= t and t < notAfter).
tg_status tg_chain_verify(const uint8_t *leaf_der, size_t leaf_len, const uint8_t *intermediate_der,
                          size_t intermediate_len, const tg_cert *const *roots, size_t root_count,
                          int check_time, int64_t at_unix_seconds, const char *leaf_oid,
                          const char *intermediate_oid, tg_pkey **out_leaf_key, int *out_x509_error,
                          int64_t *out_not_before, int64_t *out_not_after);

/// A short English description of an X509_V_ERR_* code (static storage).
const char *tg_x509_error_string(int code);

// MARK: PKCS#7

/// Returns the signed content of a PKCS#7 SignedData without checking anything.
tg_status tg_pkcs7_content(const uint8_t *der, size_t len, tg_buffer *out_content);
/// Verifies a PKCS#7 SignedData: the signer certificate (embedded) must chain to one of `roots`
/// through the embedded certificates, at `at_unix_seconds` when `check_time` is 1, and the
/// signature must match the content. When `signer_oid` is not NULL, a signer that is not itself
/// one of `roots` must carry that extension (TG_ERR_LEAF_OID otherwise). On success returns the
/// content.
tg_status tg_pkcs7_verify(const uint8_t *der, size_t len, const tg_cert *const *roots, size_t root_count,
                          int check_time, int64_t at_unix_seconds, const char *signer_oid,
                          tg_buffer *out_content, int *out_x509_error);
/// Signs `content` as a PKCS#7 SignedData with attached content (SHA-256, signed attributes),
/// embedding `signer` and `extra_certs` (the chain above it). DER out.
tg_status tg_pkcs7_sign(const uint8_t *content, size_t len, const tg_cert *signer, const tg_pkey *key,
                        const tg_cert *const *extra_certs, size_t extra_count, tg_buffer *out_der);

// MARK: TLS for the RPC server's event loops (non-blocking sockets)

/// An OpenSSL SSL_CTX for accepting TLS 1.2+ connections; shared by every loop (read-only once made).
typedef struct tg_tls_context tg_tls_context;
/// One TLS connection (an SSL on a non-blocking socket); used by one thread at a time.
typedef struct tg_tls tg_tls;

/// What tg_tls_read and tg_tls_write return besides a byte count (> 0) or 0 (the peer closed).
enum {
  TG_TLS_WANT_READ = -1,   // nothing more until the socket is readable
  TG_TLS_WANT_WRITE = -2,  // nothing more until the socket is writable
  TG_TLS_FAILED = -3,      // the connection failed (bad handshake, bad record, reset): close it
};

/// A server context from PEM files: the certificate chain and its private key; with
/// client_ca_file (may be NULL), clients must present a certificate that chains to it (mutual
/// TLS). NULL on failure, with a message in error (never a key's contents). Ignores SIGPIPE for
/// the process: OpenSSL writes to sockets with write(2).
tg_tls_context *tg_tls_server_context_new(const char *certificate_file, const char *private_key_file,
                                          const char *client_ca_file, char *error, size_t error_capacity);
void tg_tls_context_free(tg_tls_context *context);

/// A TLS connection accepting on fd (which it does not own or close); NULL on failure.
tg_tls *tg_tls_new(tg_tls_context *context, int fd);
/// Frees the connection (without a close_notify: the socket is being closed).
void tg_tls_free(tg_tls *tls);
/// Decrypted bytes into bytes[0..<capacity] (the handshake runs within): a count, 0, or TG_TLS_*.
long tg_tls_read(tg_tls *tls, void *bytes, size_t capacity);
/// Whether OpenSSL holds bytes read from the socket and not yet returned (a record, or read-ahead
/// of the next): while it does, the socket's readiness says nothing about them.
int tg_tls_has_pending(tg_tls *tls);
/// Whether the handshake has finished (the server's deadline for it looks, once a second).
int tg_tls_handshake_done(tg_tls *tls);
/// Encrypts bytes[0..<count] onto the socket: how many were taken (> 0), or TG_TLS_*. A call
/// that returned WANT_* may be retried with a different buffer holding the same bytes.
long tg_tls_write(tg_tls *tls, const void *bytes, size_t count);

/// A client context (`tollgate bench` loading a TLS listener): TLS 1.2+, the server's certificate
/// must chain to the CA certificates in ca_file (PEM). NULL on failure, with a message in error.
/// Ignores SIGPIPE for the process, as the server context does.
tg_tls_context *tg_tls_client_context_new(const char *ca_file, char *error, size_t error_capacity);
/// A TLS connection connecting on fd (which it does not own or close) to server_name: a DNS name
/// (also sent as SNI) or an IP address, which the server's certificate must carry. NULL on failure.
tg_tls *tg_tls_client_new(tg_tls_context *context, int fd, const char *server_name);
/// Runs the handshake as far as the socket allows: 1 when it is done, TG_TLS_WANT_* to wait, or
/// TG_TLS_FAILED with the reason in error (a certificate that does not verify, an alert, a close).
long tg_tls_handshake(tg_tls *tls, char *error, size_t error_capacity);

#ifdef __cplusplus
}
#endif

#endif
