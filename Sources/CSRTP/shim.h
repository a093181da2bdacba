#ifndef SWITCHBOARD_CSRTP_SHIM_H
#define SWITCHBOARD_CSRTP_SHIM_H

// libsrtp2 (Debian's libsrtp2-dev, 2.5, built on NSS: AES-CM + HMAC-SHA1 and AES-GCM). The suite setters
// for AES_CM_128_HMAC_SHA1_80 are macros, and the buffer limits are #defines: both are re-exported here.

#include <srtp2/srtp.h>

/// AES_CM_128_HMAC_SHA1_80 (RFC 4568 §6.2.1): the default RTP policy.
static inline void sb_srtp_policy_aes_cm_128_hmac_sha1_80(srtp_crypto_policy_t *policy) {
    srtp_crypto_policy_set_rtp_default(policy);
}

/// AES_CM_128_HMAC_SHA1_32 (RFC 4568 §6.2.2): a 32-bit tag on SRTP only.
static inline void sb_srtp_policy_aes_cm_128_hmac_sha1_32(srtp_crypto_policy_t *policy) {
    srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(policy);
}

/// The SRTCP policy of both suites: SRTCP keeps the 80-bit tag (RFC 4568 §6.2.2, RFC 3711 §7.5).
static inline void sb_srtp_policy_srtcp_default(srtp_crypto_policy_t *policy) {
    srtp_crypto_policy_set_rtcp_default(policy);
}

/// The most bytes srtp_protect and srtp_protect_rtcp append (tag, MKI, SRTCP index).
static const int sb_SRTP_MAX_TRAILER_LEN = SRTP_MAX_TRAILER_LEN + 4;

#endif
