#!/bin/sh
# Writes a headless baresip 1.0.0 config directory with DTLS-SRTP (the dtls_srtp module, mediaenc=dtls_srtp) for
# the WebRTC scenarios (scenarios/49-webrtc.sh), on top of media/baresip-mkconf.sh (aufile source, sndfile
# recorder in DIR/rec, aubridge sink, everything on 127.0.0.1).
# Usage: peers/baresip/mkconf-dtls.sh DIR USER PASS SIP_PORT CTRL_PORT RTP_FIRST WAV CODECS [REGISTER [RTCP_MUX]]
#   REGISTER: yes (registers with Kamailio on 127.0.0.1:5060) or no (regint=0: direct calls, the default here)
#   RTCP_MUX: no (the default) or yes
# baresip 1.0's dtls_srtp offers and answers UDP/TLS/RTP/SAVP(F) with a=fingerprint (sha-256) and a=setup,
# verifies the peer's fingerprint, and puts SRTP_AES128_CM_SHA1_80, SRTP_AES128_CM_SHA1_32,
# SRTP_AEAD_AES_128_GCM and SRTP_AEAD_AES_256_GCM in use_srtp, in that order. Its log names the profile the
# handshake chose: "DTLS-SRTP complete (...) Profile=...".
set -e
DIR=$1; U=$2; P=$3; SP=$4; CP=$5; RTP=$6; WAV=$7; CODECS=$8; REG=${9:-no}; MUX=${10:-no}
HERE=$(cd "$(dirname "$0")" && pwd)
"$HERE/../../media/baresip-mkconf.sh" "$DIR" "$U" "$P" "$SP" "$CP" "$RTP" "$WAV" "$CODECS" dtls_srtp "$REG"
sed -i -e 's/^module\t\t\tsrtp.so$/module\t\t\tsrtp.so\nmodule\t\t\tdtls_srtp.so/' \
  -e "s/^rtcp_mux\t\tno$/rtcp_mux\t\t$MUX/" "$DIR/config"
grep -q '^module.*dtls_srtp.so' "$DIR/config" || { echo "mkconf-dtls.sh: no dtls_srtp module line written" >&2; exit 1; }
