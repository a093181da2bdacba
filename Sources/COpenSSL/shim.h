#ifndef SWITCHBOARD_COPENSSL_SHIM_H
#define SWITCHBOARD_COPENSSL_SHIM_H

// OpenSSL 3 (Debian's libssl-dev) for TLS, digests and randomness. Function-like macros and variadic
// calls that Swift cannot import are wrapped here as static inline functions.

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <time.h>

static inline int sb_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int sb_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline int sb_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline long sb_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long sb_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline long sb_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline size_t sb_BIO_pending(BIO *bio) { return (size_t)BIO_pending(bio); }
static inline long sb_BIO_set_mem_eof_return(BIO *bio, long value) { return BIO_set_mem_eof_return(bio, value); }
static inline int sb_BIO_should_retry(BIO *bio) { return BIO_should_retry(bio); }
static inline void sb_OPENSSL_free(void *p) { OPENSSL_free(p); }

static const int sb_TLS1_2_VERSION = TLS1_2_VERSION;
static const int sb_TLS1_3_VERSION = TLS1_3_VERSION;
static const long sb_SSL_MODE_ENABLE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
static const long sb_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
static const uint64_t sb_SSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t sb_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const uint64_t sb_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;

/// Writes a throwaway self-signed certificate (EC P-256, SHA-256, valid one day, serial from RAND) for
/// `common_name` with one subjectAltName (`san`, e.g. "IP:127.0.0.1" or "DNS:localhost") and its key, both
/// PEM. Returns 1 on success, 0 on any failure (nothing is left half-written that a caller would trust).
static inline int sb_write_self_signed(const char *common_name, const char *san, const char *cert_path,
                                       const char *key_path) {
    int ok = 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    X509_EXTENSION *ext = NULL;
    FILE *out = NULL;
    if (key == NULL || cert == NULL) goto done;
    if (X509_set_version(cert, 2) != 1) goto done;
    unsigned char serial[16];
    if (RAND_bytes(serial, sizeof serial) != 1) goto done;
    serial[0] &= 0x7F;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    if (bn == NULL) goto done;
    ASN1_INTEGER *number = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
    BN_free(bn);
    if (number == NULL) goto done;
    if (X509_gmtime_adj(X509_getm_notBefore(cert), -60) == NULL) goto done;
    if (X509_gmtime_adj(X509_getm_notAfter(cert), 86400) == NULL) goto done;
    X509_NAME *name = X509_get_subject_name(cert);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)common_name, -1, -1, 0) != 1)
        goto done;
    if (X509_set_issuer_name(cert, name) != 1) goto done;
    if (X509_set_pubkey(cert, key) != 1) goto done;
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, san);
    if (ext == NULL || X509_add_ext(cert, ext, -1) != 1) goto done;
    X509_EXTENSION_free(ext);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_basic_constraints, "critical,CA:TRUE");
    if (ext == NULL || X509_add_ext(cert, ext, -1) != 1) goto done;
    if (X509_sign(cert, key, EVP_sha256()) == 0) goto done;
    out = fopen(key_path, "w");
    if (out == NULL || PEM_write_PrivateKey(out, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;
    fclose(out);
    out = fopen(cert_path, "w");
    if (out == NULL || PEM_write_X509(out, cert) != 1) goto done;
    ok = 1;
done:
    if (out != NULL) fclose(out);
    if (ext != NULL) X509_EXTENSION_free(ext);
    X509_free(cert);
    EVP_PKEY_free(key);
    return ok;
}

/// An AES-128-CTR encryption context keyed with `key` (16 bytes), for SRTP (RFC 3711 §4.1.1): the key schedule
/// is done once; each packet then sets its IV with `EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv)`. NULL on failure.
static inline EVP_CIPHER_CTX *sb_aes_128_ctr_new(const unsigned char *key) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return NULL;
    if (EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), NULL, key, NULL) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/// An HMAC-SHA1 context keyed with `key`, for SRTP's authentication (RFC 3711 §4.2.1): the key is set once;
/// each packet re-initialises it with `EVP_MAC_init(ctx, NULL, 0, NULL)`, which keeps the key. NULL on failure.
static inline EVP_MAC_CTX *sb_hmac_sha1_new(const unsigned char *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (ctx == NULL) return NULL;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA1", 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_init(ctx, key, key_length, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

// DTLS (RFC 6347) over memory BIOs, for DTLS-SRTP (RFC 5764).

static inline long sb_SSL_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }
/// 1 and the time left when a retransmission timer runs (0 when it is due), 0 when none runs.
static inline long sb_DTLSv1_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval tv = {0, 0};
    long running = DTLSv1_get_timeout(ssl, &tv);
    *seconds = (long)tv.tv_sec;
    *microseconds = (long)tv.tv_usec;
    return running;
}
static inline long sb_DTLSv1_handle_timeout(SSL *ssl) { return DTLSv1_handle_timeout(ssl); }
static inline int sb_BIO_reset(BIO *bio) { return (int)BIO_reset(bio); }
static inline int sb_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
static const int sb_DTLS1_2_VERSION = DTLS1_2_VERSION;
static const uint64_t sb_SSL_OP_NO_QUERY_MTU = SSL_OP_NO_QUERY_MTU;
static const uint64_t sb_SSL_OP_NO_TICKET = SSL_OP_NO_TICKET;

/// A self-signed certificate for DTLS-SRTP (RFC 5763 §5): a fresh EC P-256 key, a random positive 64-bit
/// serial, subject and issuer CN=`common_name`, valid from `not_before` to `not_after` (seconds since 1970),
/// signed with ECDSA-SHA256. Returns 1 and the certificate and key (the caller frees them), or 0.
static inline int sb_dtls_self_signed(const char *common_name, int64_t not_before, int64_t not_after, X509 **cert_out,
                                      EVP_PKEY **key_out) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    unsigned char serial[8];
    BIGNUM *bn = NULL;
    time_t start = (time_t)not_before, end = (time_t)not_after;
    if (key == NULL || cert == NULL) goto fail;
    if (X509_set_version(cert, 2) != 1) goto fail;
    if (RAND_bytes(serial, sizeof serial) != 1) goto fail;
    serial[0] &= 0x7F;
    serial[0] |= 0x01;
    bn = BN_bin2bn(serial, sizeof serial, NULL);
    if (bn == NULL || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) == NULL) goto fail;
    if (X509_time_adj_ex(X509_getm_notBefore(cert), 0, 0, &start) == NULL) goto fail;
    if (X509_time_adj_ex(X509_getm_notAfter(cert), 0, 0, &end) == NULL) goto fail;
    X509_NAME *name = X509_get_subject_name(cert);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1)
        goto fail;
    if (X509_set_issuer_name(cert, name) != 1) goto fail;
    if (X509_set_pubkey(cert, key) != 1) goto fail;
    if (X509_sign(cert, key, EVP_sha256()) == 0) goto fail;
    BN_free(bn);
    *cert_out = cert;
    *key_out = key;
    return 1;
fail:
    BN_free(bn);
    X509_free(cert);
    EVP_PKEY_free(key);
    return 0;
}

#endif
