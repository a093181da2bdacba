# WebRTC media (issue 16): a WebRTC gateway, baresip's DTLS-SRTP, and aiortc as an independent ICE + DTLS-SRTP
# stack. Interop/README.md, section "WebRTC", has the diagram and what each case proves.
#
# The gateway: Kamailio (peers/kamailio/webrtc.cfg: registrar and proxy, UDP 5060, WS 5080, WSS 5443) with its
# rtpengine module driving rtpengine (webrtc/rtpengine: Debian's rtpengine-daemon 10.5, userspace only, ng on
# 127.0.0.1:22230, media 23000-23199 on 127.0.0.1). Every INVITE's SDP is anchored in rtpengine and rewritten for
# the leg it goes to: WebRTC (ICE, DTLS-SRTP, UDP/TLS/RTP/SAVPF, rtcp-mux) toward a WebSocket client, plain
# RTP/AVP toward a UDP one.
# Without a gateway: baresip 1.0's dtls_srtp module (peers/baresip/mkconf-dtls.sh), and aiortc 1.16.0 from PyPI
# (pinned, in a venv under the run's output folder) driven by webrtc/aiortc-peer.py, whose SDP travels through
# files.
#
# Everything runs in a network namespace made for the group (sb-webrtc-<pid>: its own loopback and nothing
# else, so no packet can leave it, and Kamailio can have 5060 while other runs hold the real loopback's); each
# case re-enters it (wr_ns). tshark captures in it: on the gateway's ports for the gateway cases, all UDP for
# the direct ones.
#
# Controls (no Switchboard needed, in CI now): rtpengine answers an ng ping and rewrites SDP both ways with the
# gateway's flags; baresip calls baresip through Kamailio + rtpengine with RTP/AVP on both legs; aiortc (WebRTC)
# talks to a plain RTP peer through rtpengine; baresip calls baresip with DTLS-SRTP; aiortc calls aiortc, and a
# tampered fingerprint fails on both sides.
# Switchboard's cases are registered only when its build has the flags they need (`--webrtc`,
# `--srtp-keying`, sb-endpoint's SDP-only mode); otherwise the run logs which flag is missing.
#
# Users (peers/kamailio/users.cfg): alice, bob, carol. Ports in the namespace: Kamailio 5060/5061/5080/5443,
# rtpengine 22230 and 23000-23199, baresip alice 5270 (ctrl 5272, RTP 16000-16099) and bob 5290 (ctrl 5292, RTP
# 16100-16199), switchboard 5480-5482 and RTP 17000-17199, aiortc and the plain RTP peer 24000-24099.

export WEBRTC_NS="sb-webrtc-$$"
export WEBRTC_RUN="$OUT/webrtc"
export WEBRTC_HOME="$HERE/webrtc"
export WEBRTC_SB="${WEBRTC_SB:-$ROOT/.build/debug/switchboard}"
export WEBRTC_VENV="$OUT/aiortc-venv"
export WEBRTC_AIORTC="aiortc==1.16.0"
export WEBRTC_NG="127.0.0.1:22230"
export WEBRTC_WS_CLIENT="$OUT/ws-client"
export WEBRTC_GW_BPF="port 5060 or port 5061 or port 5080 or port 5443 or portrange 23000-23199"
export WEBRTC_DIRECT_BPF="udp"
# The rtpengine flags of peers/kamailio/webrtc.cfg (routes RTPENGINE_OFFER_TO_* and RTPENGINE_ANSWER_TO_*).
export WEBRTC_OFFER_TO_WEBRTC="replace-origin replace-session-connection ICE=force DTLS=passive SDES-off UDP/TLS/RTP/SAVPF rtcp-mux-offer rtcp-mux-require generate-mid"
export WEBRTC_OFFER_TO_PLAIN="replace-origin replace-session-connection ICE=remove DTLS=off DTLS-reverse=passive SDES-off RTP/AVP rtcp-mux-demux"
export WEBRTC_ANSWER_TO_WEBRTC="replace-origin replace-session-connection ICE=force DTLS=passive SDES-off"
export WEBRTC_ANSWER_TO_PLAIN="replace-origin replace-session-connection ICE=remove DTLS=off SDES-off"

# Why the group cannot run here, or nothing.
webrtc_unavailable() {
  [ "$(id -u)" -eq 0 ] || { echo "not root: network namespaces cannot be made"; return; }
  local tool
  for tool in ip rtpengine kamailio kamcmd baresip tshark; do
    command -v "$tool" >/dev/null || { echo "$tool is missing"; return; }
  done
}

group_setup_webrtc() {
  mkdir -p "$WEBRTC_RUN"
  ip netns add "$WEBRTC_NS" && ip -n "$WEBRTC_NS" link set lo up || return 1
  ip netns exec "$WEBRTC_NS" "$WEBRTC_HOME/rtpengine" start "$WEBRTC_RUN/rtpengine" || return 1
  RUN="$WEBRTC_RUN/kamailio" CERTDIR="$CERTDIR" CFG=webrtc.cfg ip netns exec "$WEBRTC_NS" \
    "$HERE/peers/kamailio/start.sh" -A WITH_SIPDUMP || return 1
  [ -x "$WEBRTC_WS_CLIENT" ] || bash "$HERE/ws-client/build.sh" "$WEBRTC_WS_CLIENT" || return 1
  python3 "$HERE/media/tonewav.py" "$WEBRTC_RUN/tone440.wav" 440 --seconds 30 \
    && python3 "$HERE/media/tonewav.py" "$WEBRTC_RUN/tone1000.wav" 1000 --seconds 30 || return 1
  # aiortc from PyPI, pinned, wheels only, in this run's own venv (outside the namespace: PyPI is reached here).
  local t0=$SECONDS
  if python3 -m venv "$WEBRTC_VENV" > "$WEBRTC_RUN/venv.log" 2>&1 \
    && "$WEBRTC_VENV/bin/pip" install -q --disable-pip-version-check --only-binary=:all: "$WEBRTC_AIORTC" \
      >> "$WEBRTC_RUN/venv.log" 2>&1; then
    log "webrtc: $WEBRTC_AIORTC installed in $((SECONDS - t0)) s"
  else
    log "webrtc: $WEBRTC_AIORTC could not be installed (see $WEBRTC_RUN/venv.log): the aiortc cases will fail"
  fi
  return 0
}

group_teardown_webrtc() {
  RUN="$WEBRTC_RUN/kamailio" "$HERE/peers/kamailio/stop.sh"
  "$WEBRTC_HOME/rtpengine" stop "$WEBRTC_RUN/rtpengine"
  ip netns del "$WEBRTC_NS" 2>/dev/null
}

# Runs a case function of webrtc/cases.sh (with arguments) inside the group's namespace. The cases are sourced
# there rather than defined here: Interop/run passes every scenario's functions to each case in one argument,
# which the kernel caps at 128 KiB.
wr_ns() { ip netns exec "$WEBRTC_NS" bash -c "source \"\$HERE/lib.sh\"; source \"\$WEBRTC_HOME/cases.sh\"; $*"; }

# ---- the cases, each run in the namespace (their bodies: webrtc/cases.sh)
wr_gateway_ping() { wr_ns wr_gateway_ping_case; }
wr_gateway_offer_to_wss() { wr_ns wr_gateway_offer_to_wss_case; }
wr_gateway_libre_wss() { wr_ns wr_gateway_libre_wss_case; }
wr_gateway_sdp() { wr_ns wr_gateway_sdp_case; }
wr_gateway_baresip_relay() { wr_ns wr_gateway_baresip_relay_case; }
wr_gateway_aiortc() { wr_ns wr_gateway_aiortc_case; }

wr_sb_gateway_out() { wr_ns wr_sb_gateway_out_case; }
wr_sb_gateway_in() { wr_ns wr_sb_gateway_in_case; }
wr_dtls_baresip_control() { wr_ns wr_dtls_baresip_control_case; }

# Switchboard calling: baresip answers active (the DTLS client), so switchboard, the server, picks the profile from
# its own preference, AEAD_AES_128_GCM first; baresip calling: baresip is the server and picks AES_CM_128_HMAC_SHA1_80,
# unless switchboard's ClientHello offers AEAD_AES_128_GCM alone (--srtp-suites aes-gcm-128).
wr_sb_dtls_out() { wr_ns wr_sb_dtls_case out aes-gcm-128 --srtp mandatory --srtp-keying dtls; }
wr_sb_dtls_in() { wr_ns wr_sb_dtls_case in any --srtp mandatory --srtp-keying dtls; }
wr_sb_dtls_gcm_out() { wr_ns wr_sb_dtls_case out aes-gcm-128 --srtp mandatory --srtp-keying dtls --srtp-suites aes-gcm-128; }
wr_sb_dtls_lossy_out() { wr_ns wr_sb_dtls_lossy_case out --srtp mandatory --srtp-keying dtls; }
wr_sb_dtls_lossy_in() { wr_ns wr_sb_dtls_lossy_case in --srtp mandatory --srtp-keying dtls; }
wr_sb_dtls_gcm_in() { wr_ns wr_sb_dtls_case in aes-gcm-128 --srtp mandatory --srtp-keying dtls --srtp-suites aes-gcm-128; }

wr_aiortc_control() { wr_ns wr_aiortc_control_case; }
wr_aiortc_mismatch() { wr_ns wr_aiortc_mismatch_case; }

# Switchboard against aiortc through sb-endpoint's SDP-only mode. The entry point: `sb-endpoint sdp --role offer|answer --local-sdp FILE --remote-sdp FILE --play tone:HZ --record
# FILE --duration S --webrtc`, as issue 16 item 5 describes (write the local offer or answer to a file, read the
# peer's from one, run the media). wr_sb_sdp_missing names what its usage lacks (empty when all is there).
export WEBRTC_SB_SDP_FLAGS="--local-sdp --remote-sdp --role --webrtc"
wr_sb_sdp_missing() {
  local usage f missing=""
  usage=$("$ENDPOINT" sdp --help 2>&1; "$ENDPOINT" 2>&1)
  grep -q 'sb-endpoint sdp' <<<"$usage" || { echo "the 'sdp' mode"; return; }
  for f in $WEBRTC_SB_SDP_FLAGS; do grep -q -- "$f" <<<"$usage" || missing="$missing $f"; done
  echo "${missing# }"
}

wr_sb_aiortc_sb_offers() { wr_ns wr_sb_aiortc_case offer any; }
wr_sb_aiortc_sb_answers() { wr_ns wr_sb_aiortc_case answer any; }
wr_sb_aiortc_cm80_sb_offers() { wr_ns wr_sb_aiortc_case offer aes-cm-80 --srtp-profile SRTP_AES128_CM_SHA1_80; }
wr_sb_aiortc_cm80_sb_answers() { wr_ns wr_sb_aiortc_case answer aes-cm-80 --srtp-profile SRTP_AES128_CM_SHA1_80; }
wr_sb_aiortc_opus_sb_answers() { wr_ns WR_CODEC=opus wr_sb_aiortc_case answer any; }
wr_sb_aiortc_mismatch_sb_offers() { wr_ns wr_sb_aiortc_mismatch_case offer; }
wr_sb_aiortc_mismatch_sb_answers() { wr_ns wr_sb_aiortc_mismatch_case answer; }
wr_gateway_sb_plain_aiortc() { wr_ns wr_gateway_sb_plain_aiortc_case; }

# ---- registration
webrtc_reason=$(webrtc_unavailable)
if [ -n "$webrtc_reason" ]; then
  log "webrtc: the WebRTC group is skipped: $webrtc_reason"
else
  case_add webrtc webrtc-gateway-ping rtpengine udp wr_gateway_ping
  case_add webrtc webrtc-gateway-sdp-rewrite rtpengine udp wr_gateway_sdp
  case_add webrtc webrtc-gateway-baresip-relay baresip udp wr_gateway_baresip_relay
  case_add webrtc webrtc-gateway-aiortc-to-rtp aiortc udp wr_gateway_aiortc
  case_add webrtc webrtc-gateway-libre-wss-calls-baresip libre wss wr_gateway_libre_wss
  case_add webrtc webrtc-gateway-offer-to-wss-client libre wss wr_gateway_offer_to_wss
  case_add webrtc webrtc-dtls-baresip-control baresip udp wr_dtls_baresip_control
  case_add webrtc webrtc-aiortc-control aiortc udp wr_aiortc_control
  case_add webrtc webrtc-aiortc-fingerprint-mismatch aiortc udp wr_aiortc_mismatch
  # Switchboard's own WebRTC cases (the gateway both ways, dtls_srtp direct, AEAD_AES_128_GCM) are written against
  # the CLI contract of issue 16 (`--webrtc`, `--srtp-keying dtls`, `keying=... suite=...` on the connected line)
  # and stay off until `switchboard call --help` lists those flags (the branch webrtc-calls adds them).
  wr_help=$("$WEBRTC_SB" call --help 2>&1)
  if grep -q -- '--webrtc' <<<"$wr_help"; then
    case_add webrtc webrtc-gateway-sb-calls-baresip switchboard wss wr_sb_gateway_out
    case_add webrtc webrtc-gateway-baresip-calls-sb switchboard wss wr_sb_gateway_in
  else
    log "webrtc: the Switchboard gateway cases are skipped: \`switchboard call --help\` lists no --webrtc"
  fi
  if grep -q -- '--srtp-keying' <<<"$wr_help"; then
    case_add webrtc webrtc-dtls-sb-calls-baresip switchboard udp wr_sb_dtls_out
    case_add webrtc webrtc-dtls-baresip-calls-sb switchboard udp wr_sb_dtls_in
    case_add webrtc webrtc-dtls-gcm-sb-calls-baresip switchboard udp wr_sb_dtls_gcm_out
    case_add webrtc webrtc-dtls-gcm-baresip-calls-sb switchboard udp wr_sb_dtls_gcm_in
    case_add webrtc webrtc-dtls-lossy-sb-calls-baresip switchboard udp wr_sb_dtls_lossy_out
    case_add webrtc webrtc-dtls-lossy-baresip-calls-sb switchboard udp wr_sb_dtls_lossy_in
  else
    log "webrtc: the Switchboard DTLS-SRTP cases with baresip are skipped: \`switchboard call --help\` lists no --srtp-keying"
  fi
  wr_sdp_missing=$(wr_sb_sdp_missing)
  if [ -z "$wr_sdp_missing" ]; then
    case_add webrtc webrtc-aiortc-sb-offers switchboard udp wr_sb_aiortc_sb_offers
    case_add webrtc webrtc-aiortc-sb-answers switchboard udp wr_sb_aiortc_sb_answers
    case_add webrtc webrtc-aiortc-cm80-sb-offers switchboard udp wr_sb_aiortc_cm80_sb_offers
    case_add webrtc webrtc-aiortc-cm80-sb-answers switchboard udp wr_sb_aiortc_cm80_sb_answers
    case_add webrtc webrtc-aiortc-opus-sb-answers switchboard udp wr_sb_aiortc_opus_sb_answers
    case_add webrtc webrtc-aiortc-sb-offers-fingerprint-mismatch switchboard udp wr_sb_aiortc_mismatch_sb_offers
    case_add webrtc webrtc-aiortc-sb-answers-fingerprint-mismatch switchboard udp wr_sb_aiortc_mismatch_sb_answers
    case_add webrtc webrtc-gateway-aiortc-to-sb-plain switchboard udp wr_gateway_sb_plain_aiortc
  else
    log "webrtc: the Switchboard cases against aiortc are skipped: sb-endpoint's usage lacks $wr_sdp_missing"
  fi
fi
