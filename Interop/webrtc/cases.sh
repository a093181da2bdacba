# The WebRTC group's helpers and cases (sourced inside the group's network namespace by scenarios/49-webrtc.sh's
# wr_ns, after lib.sh; bash). They live here, not in the scenario file, because Interop/run hands each case every
# function of every scenario as one `bash -c` argument, and the kernel caps one argument at 128 KiB.
# Variables come from the scenario file's exports (WEBRTC_*, HERE, OUT, CERTDIR, ENDPOINT) and Interop/run
# (CASE_DIR, TRANSPORT). What each case proves: scenarios/49-webrtc.sh's header and Interop/README.md, "WebRTC".

wr_kamcmd() { kamcmd -s "unix:$WEBRTC_RUN/kamailio/kamailio_ctl" "$@"; }

# Forgets every binding of USER..., so one left by a failed case cannot fork the next call.
wr_fresh_bindings() { local u; for u in "$@"; do wr_kamcmd ul.rm location "$u" >/dev/null 2>&1; done; return 0; }

wr_python() { "$WEBRTC_VENV/bin/python" "$@"; }
wr_need_aiortc() { [ -x "$WEBRTC_VENV/bin/python" ] && wr_python -c 'import aiortc' 2>/dev/null || { echo "aiortc is not installed (see $WEBRTC_RUN/venv.log)"; return 1; }; }

# ---- captures: each is decoded once (every UDP payload tried as RTP, so media is seen without the SDP, which
# travels encrypted over WSS) into FILE.tsv, one line per UDP packet: frame, ip.src, ip.dst, udp.srcport,
# udp.dstport, udp.length, rtp.version, dtls.handshake.type (a list), the ServerHello's use_srtp profile, stun.type,
# dtls.record.content_type. The checks below are awk over that table.
wr_table() {
  [ -s "$1.tsv" ] || tshark -r "$1" --enable-heuristic rtp_udp -Y udp -T fields -E separator=/t -E occurrence=a \
    -E aggregator=, -e frame.number -e ip.src -e ip.dst -e udp.srcport -e udp.dstport -e udp.length -e rtp.version \
    -e dtls.handshake.type -e dtls.use_srtp.protection_profile -e stun.type -e dtls.record.content_type \
    > "$1.tsv" 2>/dev/null
  echo "$1.tsv"
}

# RTP from port A to port B in FILE (neither STUN nor DTLS): "N SIZE:COUNT..." (UDP payload sizes, most
# frequent first).
wr_rtp_dir() {
  awk -F'\t' -v a="$2" -v b="$3" '$4 == a && $5 == b && $7 == 2 && $10 == "" && $11 == "" { s[$6 - 8]++ }
    END { for (k in s) print s[k], k }' "$(wr_table "$1")" \
    | sort -rn | awk '{ n += $1; out = out " " $2 ":" $1 } END { print n + 0 out }'
}

# DTLS between ports A and B in FILE: "CLIENTHELLOS SERVERHELLOS PROFILE RECORDS".
wr_dtls_between() {
  awk -F'\t' -v a="$2" -v b="$3" '($4 == a && $5 == b) || ($4 == b && $5 == a) {
      if ($11 != "") records++
      hello = 0; n = split($8, t, ",")
      for (i = 1; i <= n; i++) { if (t[i] == 1) ch++; if (t[i] == 2) { sh++; hello = 1 } }
      if (hello && $9 != "" && profile == "") profile = $9
    } END { printf "%d %d %s %d\n", ch, sh, (profile == "" ? "none" : profile), records }' "$(wr_table "$1")"
}

# Asserts a DTLS-SRTP leg in FILE between ports A and B: a ClientHello and a ServerHello that chose a use_srtp
# profile, and SRTP: at least MIN RTP packets each way whose main size is a PCMU frame's (172 bytes: header and
# 160 bytes) plus an authentication tag. Prints the profile (tshark's value, e.g. 0x0001).
# wr_expect_dtls_srtp FILE PORT_A PORT_B MIN LABEL
wr_expect_dtls_srtp() {
  local file=$1 a=$2 b=$3 min=$4 label=$5 dtls ab ba
  dtls=($(wr_dtls_between "$file" "$a" "$b")); ab=($(wr_rtp_dir "$file" "$a" "$b")); ba=($(wr_rtp_dir "$file" "$b" "$a"))
  echo "$label ($a <-> $b): DTLS ClientHello ${dtls[0]}, ServerHello ${dtls[1]} (use_srtp profile ${dtls[2]}); RTP ${ab[0]} one way (sizes ${ab[*]:1}), ${ba[0]} the other (${ba[*]:1})"
  [ "${dtls[0]}" -ge 1 ] && [ "${dtls[1]}" -ge 1 ] || { echo "$label: no DTLS handshake"; return 1; }
  [ "${dtls[2]}" != none ] || { echo "$label: the ServerHello chose no SRTP profile"; return 1; }
  [ "${ab[0]}" -ge "$min" ] && [ "${ba[0]}" -ge "$min" ] || { echo "$label: fewer than $min RTP packets each way"; return 1; }
  [ "${ab[1]%%:*}" -gt 172 ] 2>/dev/null && [ "${ba[1]%%:*}" -gt 172 ] 2>/dev/null \
    || { echo "$label: the RTP packets carry no authentication tag (PCMU in clear is 172 bytes)"; return 1; }
}

# Asserts plain RTP in FILE between ports A and B: at least MIN packets each way, 172 bytes (PCMU, 20 ms, no
# tag), and no DTLS record at all: wr_expect_plain_rtp FILE PORT_A PORT_B MIN LABEL
wr_expect_plain_rtp() {
  local file=$1 a=$2 b=$3 min=$4 label=$5 dtls ab ba
  dtls=($(wr_dtls_between "$file" "$a" "$b")); ab=($(wr_rtp_dir "$file" "$a" "$b")); ba=($(wr_rtp_dir "$file" "$b" "$a"))
  echo "$label ($a <-> $b): DTLS records ${dtls[3]}; RTP ${ab[0]} one way (sizes ${ab[*]:1}), ${ba[0]} the other (${ba[*]:1})"
  [ "${dtls[3]}" -eq 0 ] || { echo "$label: DTLS on a plain leg"; return 1; }
  [ "${ab[0]}" -ge "$min" ] && [ "${ba[0]}" -ge "$min" ] || { echo "$label: fewer than $min RTP packets each way"; return 1; }
  [ "${ab[1]%%:*}" = 172 ] && [ "${ba[1]%%:*}" = 172 ] || { echo "$label: not plain PCMU (172-byte packets)"; return 1; }
}

# Packets of FILE matching an awk condition over the table's columns: wr_table_count FILE CONDITION.
wr_table_count() { awk -F'\t' "$2 { n++ } END { print n + 0 }" "$(wr_table "$1")"; }

# tshark's value of a use_srtp profile for a suite name of the connected line.
wr_profile_id() {
  case $1 in
    aes-cm-80) echo 0x0001 ;; aes-cm-32) echo 0x0002 ;; aes-gcm-128) echo 0x0007 ;; aes-gcm-256) echo 0x0008 ;;
  esac
}

# ---- baresip
# wr_baresip_up NAME USER SIP CTRL RTP WAV MEDIA [REGISTER]: MEDIA plain (RTP/AVP, PCMU) or dtls (dtls_srtp, PCMU);
# REGISTER yes (with the gateway over UDP) or no (direct calls).
wr_baresip_up() {
  local name=$1 user=$2 sip=$3 ctrl=$4 rtp=$5 wav=$6 media=$7 reg=${8:-yes}
  if [ "$media" = dtls ]; then
    "$HERE/peers/baresip/mkconf-dtls.sh" "$CASE_DIR/$name" "$user" "${user}pw" "$sip" "$ctrl" "$rtp" "$wav" pcmu "$reg"
  else
    "$HERE/media/baresip-mkconf.sh" "$CASE_DIR/$name" "$user" "${user}pw" "$sip" "$ctrl" "$rtp" "$wav" pcmu none "$reg"
  fi && "$HERE/media/baresip-start.sh" "$CASE_DIR/$name"
}
wr_baresip_down() {
  local n pids=()
  for n in "$@"; do "$HERE/media/baresip-stop.sh" "$CASE_DIR/$n" 2>/dev/null & pids+=($!); done
  wait "${pids[@]}"
}
wr_baresip_recording() { ls "$CASE_DIR/$1"/rec/*-dec.wav 2>/dev/null | head -n 1; }
wr_tone() {
  local rec=$1 hz=$2 other=$3
  [ -n "$rec" ] && [ -f "$rec" ] || { echo "no recording for the $hz Hz check"; return 1; }
  python3 "$HERE/media/tonecheck.py" "$rec" --expect "$hz" --other "$other" --profile 1
}

# The SDP of the capture, one line per body: source port, m= line, attributes.
wr_sdp() {
  tshark -r "$1" -Y sdp -T fields -E separator='|' -e udp.srcport -e udp.dstport -e sdp.media -e sdp.media_attr \
    2>/dev/null
}

# ============================================================================================== the gateway
# rtpengine answers a ping on its ng port, listens on 127.0.0.1 only, and Kamailio's rtpengine module has it
# enabled.
wr_gateway_ping_case() {
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" ping || { echo "no pong"; return 1; }
  ss -Hlunp | grep rtpengine | tee listening.txt
  ! awk '{ print $4 }' listening.txt | grep -v '^127\.0\.0\.1:' || { echo "rtpengine listens beyond 127.0.0.1"; return 1; }
  wr_kamcmd rtpengine.show all | tee show.txt
  grep -q "udp:$WEBRTC_NG" show.txt && grep -Eq 'disabled: 0|"disabled": 0|disabled *0' show.txt \
    || { echo "Kamailio's rtpengine module does not have $WEBRTC_NG enabled"; return 1; }
  ! grep -qi "kernel.*table 0\|in-kernel packet forwarding enabled" "$WEBRTC_RUN/rtpengine/rtpengine.log" \
    || { echo "rtpengine uses the kernel module"; return 1; }
}

# The gateway's flags on rtpengine 10.5, both ways, with real SDP: a plain RTP/AVP offer (baresip's kind)
# rewritten toward a WebRTC leg gets UDP/TLS/RTP/SAVPF, ICE (rtpengine's host candidate on 127.0.0.1), a=rtcp-mux,
# a sha-256 fingerprint, a=setup:actpass, a=mid and no a=crypto; aiortc's WebRTC offer rewritten toward a plain
# leg gets RTP/AVP with no ICE, no fingerprint, no setup and no crypto attribute.
wr_gateway_sdp_case() {
  wr_need_aiortc || return 1
  printf 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 16000 RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n' > plain.sdp
  # shellcheck disable=SC2086
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" offer plain.sdp to-webrtc.sdp --call-id "sdp-a-$$" --from-tag a \
    $WEBRTC_OFFER_TO_WEBRTC || return 1
  echo "--- plain offer rewritten toward a WebRTC leg"; cat to-webrtc.sdp
  local fail=0 want
  for want in '^m=audio 23[01][0-9][0-9] UDP/TLS/RTP/SAVPF 0 101' '^a=rtcp-mux' '^a=setup:actpass' \
    '^a=fingerprint:sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}' '^a=ice-ufrag:' '^a=ice-pwd:' \
    '^a=candidate:[^ ]+ 1 UDP [0-9]+ 127\.0\.0\.1 23[01][0-9][0-9] typ host' '^a=mid:'; do
    grep -Eq "$want" to-webrtc.sdp || { echo "missing /$want/"; fail=1; }
  done
  grep -q '^a=crypto' to-webrtc.sdp && { echo "a=crypto toward WebRTC"; fail=1; }
  grep -E '^a=candidate' to-webrtc.sdp | grep -v ' 127\.0\.0\.1 ' && { echo "a candidate off loopback"; fail=1; }
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" delete --call-id "sdp-a-$$" --from-tag a > /dev/null
  timeout 20 "$WEBRTC_VENV/bin/python" "$WEBRTC_HOME/aiortc-peer.py" --role offer --local webrtc.sdp --offer-only \
    --codec pcmu --timeout 10 > aiortc.out 2> aiortc.err || { cat aiortc.out aiortc.err; return 1; }
  # shellcheck disable=SC2086
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" offer webrtc.sdp to-plain.sdp --call-id "sdp-b-$$" --from-tag b \
    $WEBRTC_OFFER_TO_PLAIN || return 1
  echo "--- aiortc's offer"; cat webrtc.sdp; echo "--- rewritten toward a plain leg"; cat to-plain.sdp
  grep -Eq '^m=audio [0-9]+ UDP/TLS/RTP/SAVPF ' webrtc.sdp && grep -q '^a=fingerprint' webrtc.sdp \
    || { echo "aiortc's offer is not a WebRTC offer"; fail=1; }
  grep -Eq '^m=audio 23[01][0-9][0-9] RTP/AVP 0' to-plain.sdp || { echo "no RTP/AVP m= line on rtpengine's port"; fail=1; }
  for want in '^a=fingerprint' '^a=setup' '^a=ice-' '^a=candidate' '^a=crypto' '^a=rtcp-mux'; do
    grep -Eq "$want" to-plain.sdp && { echo "/$want/ toward a plain leg"; fail=1; }
  done
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" delete --call-id "sdp-b-$$" --from-tag b > /dev/null
  return $fail
}

# The media relay's control: baresip alice calls baresip bob through Kamailio and rtpengine, both on UDP with
# RTP/AVP and PCMU. Both INVITE and 200 reach each baresip with rtpengine's port (23000-23199) in place of the
# other's, RTP flows on both legs through rtpengine (alice <-> rtpengine <-> bob, plain 172-byte PCMU), and each
# recording holds the other's tone.
wr_gateway_baresip_relay_case() {
  wr_fresh_bindings alice bob
  wr_baresip_up bob bob 5290 5292 16100 "$WEBRTC_RUN/tone1000.wav" plain || return 1
  wr_baresip_up alice alice 5270 5272 16000 "$WEBRTC_RUN/tone440.wav" plain || { wr_baresip_down bob; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_GW_BPF" || { wr_baresip_down alice bob; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5292 callee --timeout 25 > bob.ctl 2> bob.err &
  local bp=$!
  wait_for bob.ctl ready || { echo "baresip-ctl did not connect to bob"; stop_pid $bp; wr_baresip_down alice bob; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5272 dial sip:bob@127.0.0.1 --for 4 --timeout 25 > alice.ctl 2> alice.err
  local arc=$?
  wait $bp; local brc=$?
  wr_baresip_down alice bob
  capture_stop "$CASE_DIR/capture.pcap"
  echo "alice: $(cat alice.ctl) (exit $arc); bob: $(cat bob.ctl | tail -n 1) (exit $brc)"
  [ $arc -eq 0 ] && [ $brc -eq 0 ] || { tail -n 5 alice.err bob.err; return 1; }
  wr_sdp "$CASE_DIR/capture.pcap" | tee sdp.txt
  local fail=0 a_port b_port e_a e_b
  a_port=$(awk -F'|' '$1 == 5270 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  b_port=$(awk -F'|' '$1 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  e_b=$(awk -F'|' '$1 == 5060 && $2 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  e_a=$(awk -F'|' '$1 == 5060 && $2 == 5270 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  echo "alice's RTP port $a_port, bob's $b_port; rtpengine offers bob $e_b and answers alice with $e_a"
  [ -n "$a_port" ] && [ -n "$b_port" ] && [ -n "$e_a" ] && [ -n "$e_b" ] || { echo "SDP missing in the capture"; return 1; }
  [ "$e_a" -ge 23000 ] && [ "$e_a" -le 23199 ] && [ "$e_b" -ge 23000 ] && [ "$e_b" -le 23199 ] \
    || { echo "the SDP Kamailio relayed does not name rtpengine's ports"; fail=1; }
  grep -q 'RTP/SAVP\|fingerprint\|ice-ufrag\|crypto' sdp.txt && { echo "WebRTC or SRTP attributes on a plain call"; fail=1; }
  wr_expect_plain_rtp "$CASE_DIR/capture.pcap" $a_port $e_a 150 "alice's leg" || fail=1
  wr_expect_plain_rtp "$CASE_DIR/capture.pcap" $b_port $e_b 150 "bob's leg" || fail=1
  wr_tone "$(wr_baresip_recording alice)" 1000 440 || fail=1
  wr_tone "$(wr_baresip_recording bob)" 440 1000 || fail=1
  return $fail
}

# rtpengine between a WebRTC stack and plain RTP, with the gateway's flags: aiortc offers (ICE, DTLS-SRTP, PCMU),
# the offer goes to rtpengine toward a plain leg; webrtc/rtp-peer.py answers it with plain RTP/AVP PCMU; the
# answer goes back through rtpengine toward the WebRTC leg. aiortc does ICE and DTLS with rtpengine, the peer sends
# and receives plain RTP: aiortc's recording holds the peer's 1000 Hz, the peer's its 440 Hz; the capture shows
# DTLS + SRTP on aiortc's leg and plain RTP on the other.
wr_gateway_aiortc_case() {
  wr_need_aiortc || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || return 1
  local cid="aiortc-$$"
  timeout 40 "$WEBRTC_VENV/bin/python" "$WEBRTC_HOME/aiortc-peer.py" --role offer --local offer.sdp \
    --remote answer-webrtc.sdp --codec pcmu --tone 440 --record aiortc.wav --duration 4 --timeout 30 \
    > aiortc.out 2> aiortc.err &
  local ap=$!
  local i=0; until [ -f offer.sdp ] || [ $i -gt 300 ]; do i=$((i+1)); sleep 0.05; done
  # shellcheck disable=SC2086
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" offer offer.sdp offer-plain.sdp --call-id "$cid" --from-tag w \
    $WEBRTC_OFFER_TO_PLAIN || { stop_pid $ap; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  timeout 40 python3 "$WEBRTC_HOME/rtp-peer.py" --remote offer-plain.sdp --local answer-plain.sdp --port 24000 \
    --tone 1000 --record peer.wav --duration 6 > peer.out 2> peer.err &
  local pp=$!
  i=0; until [ -f answer-plain.sdp ] || [ $i -gt 100 ]; do i=$((i+1)); sleep 0.05; done
  # shellcheck disable=SC2086
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" answer answer-plain.sdp answer-webrtc.sdp --call-id "$cid" --from-tag w \
    --to-tag p $WEBRTC_ANSWER_TO_WEBRTC || { stop_pid $ap; stop_pid $pp; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  wait $ap; local arc=$?
  wait $pp; local prc=$?
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" delete --call-id "$cid" --from-tag w > /dev/null
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- aiortc (exit $arc)"; cat aiortc.out; echo "--- rtp-peer (exit $prc)"; cat peer.out
  echo "--- the answer aiortc got"; cat answer-webrtc.sdp
  [ $arc -eq 0 ] && [ $prc -eq 0 ] || { tail -n 5 aiortc.err peer.err; return 1; }
  local fail=0 a_port e_w e_p
  a_port=$(awk '/^a=candidate/ { print $6; exit }' offer.sdp)
  e_w=$(awk '/^m=audio/ { print $2; exit }' answer-webrtc.sdp)
  e_p=$(awk '/^m=audio/ { print $2; exit }' offer-plain.sdp)
  grep -Eq '^m=audio [0-9]+ UDP/TLS/RTP/SAVPF 0' answer-webrtc.sdp && grep -q '^a=fingerprint:sha-256' answer-webrtc.sdp \
    && grep -q '^a=rtcp-mux' answer-webrtc.sdp && grep -q '^a=setup:passive' answer-webrtc.sdp \
    && grep -q '^a=candidate:.* 127\.0\.0\.1 23[01][0-9][0-9] typ host' answer-webrtc.sdp \
    || { echo "the answer toward aiortc is not WebRTC (SAVPF, fingerprint, rtcp-mux, setup:passive, a candidate)"; fail=1; }
  wr_expect_dtls_srtp "$CASE_DIR/capture.pcap" $a_port $e_w 150 "aiortc's leg (WebRTC)" || fail=1
  wr_expect_plain_rtp "$CASE_DIR/capture.pcap" 24000 $e_p 150 "the plain leg" || fail=1
  wr_tone aiortc.wav 1000 440 || fail=1
  wr_tone peer.wav 440 1000 || fail=1
  return $fail
}

# The gateway's WSS leg with an independent WebSocket client: ws-client (Interop/ws-client, libre 1.1.0's SIP
# stack and WebSocket transport, plain RTP/AVP PCMU: libre has no DTLS-SRTP) calls baresip bob over WSS (its
# certificate checked against the run's CA). Kamailio takes the INVITE as a WebSocket leg: bob gets plain RTP/AVP
# from rtpengine; the answer back over WSS is rewritten with the WebRTC leg's flags, and since the offer was
# RTP/AVP, rtpengine keeps RTP/AVP and adds its ICE candidate. Both recordings hold the other's tone, and the RTP
# on both legs goes through rtpengine's ports.
wr_gateway_libre_wss_case() {
  wr_fresh_bindings alice bob
  wr_baresip_up bob bob 5290 5292 16100 "$WEBRTC_RUN/tone1000.wav" plain || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_GW_BPF" || { wr_baresip_down bob; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5292 callee --timeout 25 > bob.ctl 2> bob.err &
  local bp=$!
  wait_for bob.ctl ready || { echo "baresip-ctl did not connect to bob"; stop_pid $bp; wr_baresip_down bob; return 1; }
  timeout 30 "$WEBRTC_WS_CLIENT" --user alice --password alicepw --transport wss --ca "$CERTDIR/ca.crt" \
    --server 127.0.0.1:5443 --call sip:bob@127.0.0.1 --duration 4 --tone 440 --record libre.wav \
    --rtp-ports 24100-24199 --timeout 20 --trace > libre.out 2> libre.err
  local lrc=$?
  wait $bp; local brc=$?
  wr_baresip_down bob
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- ws-client (exit $lrc)"; cat libre.out; echo "--- bob: $(tail -n 1 bob.ctl) (exit $brc)"
  [ $lrc -eq 0 ] && [ $brc -eq 0 ] || { tail -n 40 libre.err; return 1; }
  wr_sdp "$CASE_DIR/capture.pcap" > sdp.txt
  cat sdp.txt
  local fail=0 e_b b_port answer
  answer=$(awk '/^SIP\/2.0 200 / { inside = 1 } inside && /^m=audio/ { print; exit }' libre.err)
  echo "the 200 ws-client got over WSS: $answer"
  grep -q '^a=candidate:.* 127\.0\.0\.1 23[01][0-9][0-9] typ host' libre.err || { echo "no rtpengine ICE candidate toward the WebSocket leg"; fail=1; }
  echo "$answer" | grep -Eq '^m=audio 23[01][0-9][0-9] RTP/AVP 0' || { echo "the answer over WSS is not RTP/AVP from rtpengine"; fail=1; }
  b_port=$(awk -F'|' '$1 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  e_b=$(awk -F'|' '$1 == 5060 && $2 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  grep -q "^5060|5290|audio $e_b RTP/AVP " sdp.txt && ! grep -q 'ice-ufrag\|fingerprint' sdp.txt \
    || { echo "bob was not offered plain RTP/AVP on rtpengine's port"; fail=1; }
  wr_expect_plain_rtp "$CASE_DIR/capture.pcap" $b_port $e_b 150 "bob's leg" || fail=1
  [ "$(wr_table_count "$CASE_DIR/capture.pcap" '$7 == 2 && $4 >= 24100 && $4 <= 24199')" -ge 150 ] \
    || { echo "no RTP from ws-client to rtpengine"; fail=1; }
  wr_tone libre.wav 1000 440 || fail=1
  wr_tone "$(wr_baresip_recording bob)" 440 1000 || fail=1
  return $fail
}

# The callee's side of the same decision: ws-client registers carol over WSS and baresip alice (UDP) calls her.
# Kamailio's branch goes to a transport=ws binding, so the offer carol gets over WSS is rtpengine's WebRTC offer:
# UDP/TLS/RTP/SAVPF on rtpengine's port, a sha-256 fingerprint, a=setup:actpass, ICE with rtpengine's candidate
# on 127.0.0.1, a=rtcp-mux, a=mid, no a=crypto. (libre has no DTLS-SRTP, so no media follows: the case checks
# the offer and that both ends stop within their bounds.)
wr_gateway_offer_to_wss_case() {
  wr_fresh_bindings alice carol
  timeout 30 "$WEBRTC_WS_CLIENT" --user carol --password carolpw --transport wss --ca "$CERTDIR/ca.crt" \
    --server 127.0.0.1:5443 --register --answer --duration 2 --rtp-ports 24100-24199 --timeout 15 --trace \
    > libre.out 2> libre.err &
  local lp=$!
  wait_for libre.out "^registered" || { stop_pid $lp; echo "ws-client did not register"; cat libre.out; tail -n 30 libre.err; return 1; }
  wr_baresip_up alice alice 5270 5272 16000 "$WEBRTC_RUN/tone440.wav" plain || { stop_pid $lp; return 1; }
  timeout 30 python3 "$HERE/media/baresip-ctl.py" 5272 dial sip:carol@127.0.0.1 --for 2 --timeout 20 > alice.ctl 2> alice.err
  local i=0; while kill -0 $lp 2>/dev/null && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done
  stop_pid $lp
  wr_baresip_down alice
  echo "--- ws-client"; cat libre.out; echo "--- alice: $(cat alice.ctl)"
  awk '/^INVITE sip:carol/ { inside = 1 } inside && /^(SIP\/2.0|ACK|BYE)/ { exit } inside' libre.err > invite.txt
  echo "--- the INVITE carol got over WSS"; grep -E '^(INVITE|[mac]=)' invite.txt
  local fail=0 want
  [ -s invite.txt ] || { echo "no INVITE reached carol"; return 1; }
  for want in '^m=audio 23[01][0-9][0-9] UDP/TLS/RTP/SAVPF 0' '^a=fingerprint:sha-256 ' '^a=setup:actpass' \
    '^a=ice-ufrag:' '^a=candidate:[^ ]+ 1 UDP [0-9]+ 127\.0\.0\.1 23[01][0-9][0-9] typ host' '^a=rtcp-mux' '^a=mid:'; do
    grep -Eq "$want" invite.txt || { echo "the offer over WSS lacks /$want/"; fail=1; }
  done
  grep -q '^a=crypto' invite.txt && { echo "a=crypto toward the WebSocket leg"; fail=1; }
  grep -q "^m=audio 160[0-9][0-9] " invite.txt && { echo "alice's own port reached the WebSocket leg"; fail=1; }
  return $fail
}

# ---- Switchboard through the gateway (needs `--webrtc`)
# switchboard registers over WSS with --webrtc and calls baresip bob (UDP, RTP/AVP, PCMU): Kamailio offers bob
# plain RTP/AVP from rtpengine, rtpengine does ICE and DTLS-SRTP with switchboard. The connected line says
# keying=dtls, the capture shows DTLS + SRTP between switchboard and rtpengine and plain RTP between rtpengine and
# bob, and both recordings hold the other's tone.
wr_sb_gateway_out_case() {
  wr_fresh_bindings alice bob
  wr_baresip_up bob bob 5290 5292 16100 "$WEBRTC_RUN/tone1000.wav" plain || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_GW_BPF" || { wr_baresip_down bob; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5292 callee --timeout 30 > bob.ctl 2> bob.err &
  local bp=$!
  wait_for bob.ctl ready || { echo "baresip-ctl did not connect to bob"; stop_pid $bp; wr_baresip_down bob; return 1; }
  timeout 60 "$WEBRTC_SB" call sip:bob@127.0.0.1 --user alice@127.0.0.1 --password alicepw --register \
    --registrar sip:127.0.0.1 \
    --ws-url wss://127.0.0.1:5443/ --tls-ca "$CERTDIR/ca.crt" --webrtc --codecs pcmu --rtp-ports 17000-17099 \
    --duration 5 --play tone:440 --record sb.wav --trace > events.out 2> trace.out < /dev/null
  local rc=$?
  wait $bp; local brc=$?
  wr_baresip_down bob
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- switchboard (exit $rc)"; cat events.out
  [ $rc -eq 0 ] || { tail -n 30 trace.out; return 1; }
  [ $brc -eq 0 ] || { echo "bob's side of the call failed"; tail -n 5 bob.err; return 1; }
  wr_sb_gateway_checks bob 16100 || return 1
  wr_tone sb.wav 1000 440 && wr_tone "$(wr_baresip_recording bob)" 440 1000
}

# baresip bob (UDP, plain) calls switchboard answer, registered over WSS with --webrtc, through the gateway.
wr_sb_gateway_in_case() {
  wr_fresh_bindings carol bob
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_GW_BPF" || return 1
  timeout 60 "$WEBRTC_SB" answer --registrar sip:127.0.0.1 --user carol@127.0.0.1 --password carolpw \
    --ws-url wss://127.0.0.1:5443/ --tls-ca "$CERTDIR/ca.crt" --listen none --webrtc --codecs pcmu \
    --rtp-ports 17100-17199 --auto-answer --count 1 --play tone:440 --record sb.wav --trace \
    > events.out 2> trace.out < /dev/null &
  local sp=$!
  wait_for events.out "registered expires" || { cat events.out; tail -n 20 trace.out; stop_pid $sp; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  wr_baresip_up bob bob 5290 5292 16100 "$WEBRTC_RUN/tone1000.wav" plain || { stop_pid $sp; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5292 dial sip:carol@127.0.0.1 --for 5 --timeout 30 > bob.ctl 2> bob.err
  local brc=$?
  local i=0; while kill -0 $sp 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local rc; if kill -0 $sp 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $sp; rc=1; else wait $sp; rc=$?; fi
  wr_baresip_down bob
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- switchboard answer (exit $rc)"; cat events.out; echo "--- bob: $(cat bob.ctl)"
  [ $brc -eq 0 ] || { echo "bob's call failed"; tail -n 5 bob.err; return 1; }
  [ $rc -eq 0 ] || { tail -n 30 trace.out; return 1; }
  wr_sb_gateway_checks bob 16100 || return 1
  wr_tone sb.wav 1000 440 && wr_tone "$(wr_baresip_recording bob)" 440 1000
}

# The checks both directions share: the connected line (keying=dtls, a suite), the SDP switchboard saw in its
# --trace (WebRTC from rtpengine), bob's SDP in the capture (plain), DTLS + SRTP on switchboard's leg and plain
# RTP on bob's: wr_sb_gateway_checks BARESIP_NAME BARESIP_RTP_FIRST
wr_sb_gateway_checks() {
  local fail=0 line suite sb_port e_sb e_b b_port
  line=$(grep -E '^T=[0-9.]+ connected ' events.out | head -n 1)
  echo "$line" | grep -Eq ' srtp=yes .*keying=dtls suite=(aes-cm-80|aes-cm-32|aes-gcm-128)' \
    || { echo "the connected line does not say srtp=yes keying=dtls suite=..."; return 1; }
  suite=$(echo "$line" | sed -E 's/.*suite=([a-z0-9-]+).*/\1/')
  grep -Eq '^m=audio [0-9]+ UDP/TLS/RTP/SAVPF ' trace.out && grep -q '^a=fingerprint:sha-256' trace.out \
    && grep -q '^a=ice-ufrag' trace.out || { echo "no WebRTC SDP in switchboard's trace"; fail=1; }
  # switchboard's own m= port and rtpengine's, from its trace (the WSS leg is encrypted on the wire).
  sb_port=$(awk '/^m=audio/ && !seen[$2]++ { print $2 }' trace.out | awk '$1 >= 17000 && $1 <= 17199' | head -n 1)
  e_sb=$(awk '/^m=audio/ { print $2 }' trace.out | awk '$1 >= 23000 && $1 <= 23199' | head -n 1)
  wr_sdp "$CASE_DIR/capture.pcap" > sdp.txt
  b_port=$(awk -F'|' '$1 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  e_b=$(awk -F'|' '$1 == 5060 && $2 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  echo "switchboard's RTP port $sb_port (rtpengine's $e_sb on that leg); bob's $b_port (rtpengine's $e_b); suite $suite"
  [ -n "$sb_port" ] && [ -n "$e_sb" ] && [ -n "$b_port" ] && [ -n "$e_b" ] || { echo "ports missing"; return 1; }
  grep -Eq "^5060\|5290\|audio $e_b RTP/AVP " sdp.txt && ! grep -E '^5060\|5290\|' sdp.txt | grep -q 'fingerprint\|ice-ufrag\|crypto' \
    || { echo "bob was not offered/answered plain RTP/AVP by rtpengine"; fail=1; }
  wr_expect_dtls_srtp "$CASE_DIR/capture.pcap" $sb_port $e_sb 150 "switchboard's leg (WebRTC)" > leg.txt || fail=1
  cat leg.txt
  grep -q "use_srtp profile $(wr_profile_id "$suite")" leg.txt || { echo "the wire's profile is not $suite"; fail=1; }
  wr_expect_plain_rtp "$CASE_DIR/capture.pcap" $b_port $e_b 150 "bob's leg (plain)" || fail=1
  return $fail
}

# ================================================================================ baresip's dtls_srtp, direct
# The control: baresip alice calls baresip bob directly (no proxy, no gateway), both with mediaenc=dtls_srtp:
# UDP/TLS/RTP/SAVP(F) with fingerprints in the SDP, a DTLS handshake on the media ports, SRTP both ways, the
# profile both logs name, and each recording holds the other's tone.
wr_dtls_baresip_control_case() {
  wr_baresip_up bob bob 5290 5292 16100 "$WEBRTC_RUN/tone1000.wav" dtls no || return 1
  wr_baresip_up alice alice 5270 5272 16000 "$WEBRTC_RUN/tone440.wav" dtls no || { wr_baresip_down bob; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || { wr_baresip_down alice bob; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5292 callee --timeout 25 > bob.ctl 2> bob.err &
  local bp=$!
  wait_for bob.ctl ready || { echo "baresip-ctl did not connect to bob"; stop_pid $bp; wr_baresip_down alice bob; return 1; }
  python3 "$HERE/media/baresip-ctl.py" 5272 dial sip:bob@127.0.0.1:5290 --for 5 --timeout 25 > alice.ctl 2> alice.err
  local arc=$?
  wait $bp; local brc=$?
  wr_baresip_down alice bob
  capture_stop "$CASE_DIR/capture.pcap"
  echo "alice: $(cat alice.ctl) (exit $arc); bob: $(tail -n 1 bob.ctl) (exit $brc)"
  [ $arc -eq 0 ] && [ $brc -eq 0 ] || { tail -n 5 alice.err bob.err; return 1; }
  wr_sdp "$CASE_DIR/capture.pcap" | tee sdp.txt
  local fail=0 a_port b_port
  grep -Eq 'UDP/TLS/RTP/SAVPF? ' sdp.txt && grep -qi 'fingerprint:sha-256' sdp.txt \
    || { echo "no UDP/TLS/RTP/SAVP(F) with a fingerprint in the SDP"; fail=1; }
  grep -h 'DTLS-SRTP complete\|fingerprint' alice/baresip.log bob/baresip.log
  grep -qi 'verified sha-256 fingerprint OK' alice/baresip.log && grep -qi 'verified sha-256 fingerprint OK' bob/baresip.log \
    || { echo "a baresip did not verify the other's fingerprint"; fail=1; }
  a_port=$(awk -F'|' '$1 == 5270 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  b_port=$(awk -F'|' '$1 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  wr_expect_dtls_srtp "$CASE_DIR/capture.pcap" $a_port $b_port 150 "alice <-> bob" || fail=1
  wr_tone "$(wr_baresip_recording alice)" 1000 440 || fail=1
  wr_tone "$(wr_baresip_recording bob)" 440 1000 || fail=1
  return $fail
}

# Switchboard and baresip with DTLS-SRTP, direct (needs --srtp-keying): wr_sb_dtls_case DIRECTION SUITE [FLAGS...]
#   DIRECTION out: switchboard calls baresip bob; in: baresip bob calls switchboard answer.
#   SUITE any, or the suite the connected line and the wire must show (aes-gcm-128: switchboard is told to use only
#   AEAD_AES_128_GCM, which baresip offers third).
# FLAGS: switchboard's media flags (e.g. --srtp mandatory --srtp-keying dtls, or --webrtc).
wr_sb_dtls_case() {
  local dir=$1 suite=$2; shift 2
  wr_baresip_up bob bob 5290 5292 16100 "$WEBRTC_RUN/tone1000.wav" dtls no || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || { wr_baresip_down bob; return 1; }
  local rc brc sb_port b_port
  if [ "$dir" = out ]; then
    python3 "$HERE/media/baresip-ctl.py" 5292 callee --timeout 30 > bob.ctl 2> bob.err &
    local bp=$!
    wait_for bob.ctl ready || { echo "baresip-ctl did not connect to bob"; stop_pid $bp; wr_baresip_down bob; return 1; }
    timeout 60 "$WEBRTC_SB" call sip:bob@127.0.0.1:5290 --user alice@127.0.0.1 --listen 127.0.0.1:5480 \
      --codecs pcmu --rtp-ports 17000-17099 --duration 5 --play tone:440 --record sb.wav --trace "$@" \
      > events.out 2> trace.out < /dev/null
    rc=$?
    wait $bp; brc=$?
  else
    timeout 60 "$WEBRTC_SB" answer --listen 127.0.0.1:5481 --user carol@127.0.0.1 --codecs pcmu \
      --rtp-ports 17100-17199 --auto-answer --count 1 --play tone:440 --record sb.wav --trace "$@" \
      > events.out 2> trace.out < /dev/null &
    local sp=$!
    wait_udp_port 5481 || { echo "switchboard answer does not listen"; stop_pid $sp; wr_baresip_down bob; return 1; }
    python3 "$HERE/media/baresip-ctl.py" 5292 dial sip:carol@127.0.0.1:5481 --for 5 --timeout 30 > bob.ctl 2> bob.err
    brc=$?
    local i=0; while kill -0 $sp 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
    if kill -0 $sp 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $sp; rc=1; else wait $sp; rc=$?; fi
  fi
  wr_baresip_down bob
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- switchboard (exit $rc)"; cat events.out; echo "--- bob: $(tail -n 1 bob.ctl) (exit $brc)"
  grep -h 'DTLS-SRTP complete\|fingerprint' bob/baresip.log
  [ $rc -eq 0 ] || { tail -n 30 trace.out; return 1; }
  [ $brc -eq 0 ] || { tail -n 5 bob.err; return 1; }
  local fail=0 line got
  line=$(grep -E '^T=[0-9.]+ connected ' events.out | head -n 1)
  echo "$line" | grep -Eq ' srtp=yes .*keying=dtls suite=(aes-cm-80|aes-cm-32|aes-gcm-128)' \
    || { echo "the connected line does not say srtp=yes keying=dtls suite=..."; return 1; }
  got=$(echo "$line" | sed -E 's/.*suite=([a-z0-9-]+).*/\1/')
  [ "$suite" = any ] || [ "$got" = "$suite" ] || { echo "suite $got, expected $suite"; fail=1; }
  grep -qi 'verified sha-256 fingerprint OK' bob/baresip.log || { echo "baresip did not verify switchboard's fingerprint"; fail=1; }
  wr_sdp "$CASE_DIR/capture.pcap" > sdp.txt
  b_port=$(awk -F'|' '$1 == 5290 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  sb_port=$(awk -F'|' '$1 == 5480 || $1 == 5481 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  wr_expect_dtls_srtp "$CASE_DIR/capture.pcap" $sb_port $b_port 150 "switchboard <-> baresip" > leg.txt || fail=1
  cat leg.txt
  grep -q "use_srtp profile $(wr_profile_id "$got")" leg.txt || { echo "the wire's profile is not $got"; fail=1; }
  wr_tone sb.wav 1000 440 || fail=1
  wr_tone "$(wr_baresip_recording bob)" 440 1000 || fail=1
  return $fail
}

# The same call with the first DTLS handshake datagram each way dropped on its way in (nftables in the case's
# namespace, on the RTP ports: switchboard's 17000-17199 and baresip's even ones): the client's first flight and
# the server's first answer are lost, and the handshake completes on both sides' retransmissions (RFC 6347
# §4.2.4), switchboard's driven by its loop timer. (A loss pattern that alternates can starve a flight for ever,
# so each rule drops one datagram only.) wr_sb_dtls_lossy_case out|in [switchboard flags]
wr_sb_dtls_lossy_case() {
  local dir=$1; shift
  nft -f - <<NFT || { echo "cannot add the nftables rules"; return 1; }
table inet wrdtlsloss {
  chain in {
    type filter hook input priority 0;
    udp dport 17000-17199 udp dport & 1 == 0 @th,64,8 22 numgen inc mod 100000 0 counter drop
    udp dport 16100-16999 udp dport & 1 == 0 @th,64,8 22 numgen inc mod 100000 0 counter drop
  }
}
NFT
  wr_sb_dtls_case "$dir" any "$@"
  local rc=$? dropped
  dropped=$(nft list table inet wrdtlsloss | grep -o 'counter packets [0-9]*' | awk '{ print $3 }' | paste -sd' ')
  nft delete table inet wrdtlsloss
  echo "handshake datagrams dropped (to switchboard, to baresip): $dropped"
  [ $rc -eq 0 ] || return 1
  [ "$dropped" = "1 1" ] || { echo "expected one handshake datagram dropped each way"; return 1; }
}

# ======================================================================== aiortc, SDP through files
# One aiortc-to-X exchange through files: the offerer writes offer.sdp, the answerer reads it (or a copy with
# every fingerprint tampered with) and writes answer.sdp, the offerer reads that (or its tampered copy).
# wr_aiortc_peer ROLE NAME TONE DURATION [extra aiortc-peer.py flags]: one aiortc in the background, its PID in
# WR_PID (call it directly, never in $(...): the PID must be this shell's child), its files NAME.out/.err/.wav;
# its own timeout 30 s, and timeout(1) at 40 s.
wr_aiortc_peer() {
  local role=$1 name=$2 tone=$3 duration=$4 local_file remote_file
  shift 4
  if [ "$role" = offer ]; then local_file=offer.sdp; remote_file=${WR_ANSWER_IN:-answer.sdp}
  else local_file=answer.sdp; remote_file=${WR_OFFER_IN:-offer.sdp}; fi
  timeout 40 "$WEBRTC_VENV/bin/python" "$WEBRTC_HOME/aiortc-peer.py" --role "$role" --local "$local_file" \
    --remote "$remote_file" --tone "$tone" --record "$name.wav" --duration "$duration" --timeout 30 "$@" \
    > "$name.out" 2> "$name.err" &
  WR_PID=$!
}

# Waits (bounded, 15 s) for FILE to appear.
wr_wait_file() { local i=0; until [ -f "$1" ]; do i=$((i+1)); [ $i -gt 300 ] && return 1; sleep 0.05; done; }

# The control: aiortc offers, aiortc answers, through the files; ICE on 127.0.0.1, DTLS-SRTP, Opus; each
# recording holds the other's tone; the capture shows the DTLS handshake and SRTP (tshark: the negotiated
# profile).
wr_aiortc_control_case() {
  wr_need_aiortc || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || return 1
  local op ap orc arc
  wr_aiortc_peer offer offerer 1000 4; op=$WR_PID
  wr_wait_file offer.sdp || { stop_pid "$op"; capture_stop "$CASE_DIR/capture.pcap"; cat offerer.out offerer.err; return 1; }
  wr_aiortc_peer answer answerer 440 6; ap=$WR_PID
  wait "$op"; orc=$?
  wait "$ap"; arc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- offerer (exit $orc)"; cat offerer.out; echo "--- answerer (exit $arc)"; cat answerer.out
  [ $orc -eq 0 ] && [ $arc -eq 0 ] || { tail -n 5 offerer.err answerer.err; return 1; }
  local fail=0 hello
  grep -q '^a=candidate:.* 127\.0\.0\.1 ' offer.sdp && ! grep '^a=candidate' offer.sdp answer.sdp | grep -v ' 127\.0\.0\.1 ' \
    || { echo "a candidate off loopback"; fail=1; }
  hello=$(wr_table_count "$CASE_DIR/capture.pcap" '$8 ~ /(^|,)1(,|$)/')
  echo "DTLS ClientHello: $hello; SRTP profile: $(awk -F'\t' '$8 ~ /(^|,)2(,|$)/ && $9 != "" { print $9; exit }' "$(wr_table "$CASE_DIR/capture.pcap")")"
  [ "$hello" -ge 1 ] || { echo "no DTLS handshake on the wire"; fail=1; }
  [ "$(wr_table_count "$CASE_DIR/capture.pcap" '$2 != "127.0.0.1" || $3 != "127.0.0.1"')" -eq 0 ] \
    || { echo "traffic off 127.0.0.1"; fail=1; }
  wr_tone offerer.wav 440 1000 || fail=1
  wr_tone answerer.wav 1000 440 || fail=1
  return $fail
}

# The fingerprint-mismatch control: both SDPs reach the other side with every fingerprint tampered with
# (webrtc/tamper-fingerprint.py). Each aiortc must end with `failed reason="DTLS fingerprint mismatch"`, exit 1,
# no audio, well inside the bound (10 s; nothing hangs).
wr_aiortc_mismatch_case() {
  wr_need_aiortc || return 1
  local op ap orc arc t0=$SECONDS
  WR_ANSWER_IN=answer.tampered.sdp wr_aiortc_peer offer offerer 1000 4; op=$WR_PID
  wr_wait_file offer.sdp || { stop_pid "$op"; cat offerer.out offerer.err; return 1; }
  python3 "$WEBRTC_HOME/tamper-fingerprint.py" offer.sdp offer.tampered.sdp || { stop_pid "$op"; return 1; }
  WR_OFFER_IN=offer.tampered.sdp wr_aiortc_peer answer answerer 440 4; ap=$WR_PID
  wr_wait_file answer.sdp || { stop_pid "$op"; stop_pid "$ap"; cat answerer.out answerer.err; return 1; }
  python3 "$WEBRTC_HOME/tamper-fingerprint.py" answer.sdp answer.tampered.sdp || { stop_pid "$op"; stop_pid "$ap"; return 1; }
  wait "$op"; orc=$?
  wait "$ap"; arc=$?
  echo "--- offerer (exit $orc)"; cat offerer.out; echo "--- answerer (exit $arc)"; cat answerer.out
  echo "both ended $((SECONDS - t0)) s after the offerer started"
  grep -h 'x DTLS' offerer.err answerer.err
  local fail=0
  [ $orc -eq 1 ] && [ $arc -eq 1 ] || { echo "expected exit 1 on both sides (not 0, not a timeout's 3 or 124)"; fail=1; }
  grep -q '^T=[0-9.]* failed reason="DTLS fingerprint mismatch"' offerer.out \
    && grep -q '^T=[0-9.]* failed reason="DTLS fingerprint mismatch"' answerer.out \
    || { echo "a side did not name the fingerprint mismatch"; fail=1; }
  grep -q 'rx-frames=0 ' offerer.out && grep -q 'rx-frames=0 ' answerer.out || { echo "audio got through"; fail=1; }
  ! grep -q 'Traceback' offerer.err answerer.err || { echo "a traceback"; fail=1; }
  [ $((SECONDS - t0)) -le 10 ] || { echo "took longer than 10 s"; fail=1; }
  return $fail
}

# wr_sb_sdp_peer ROLE TONE DURATION: sb-endpoint's SDP-only mode (`sb-endpoint sdp`, --webrtc: ICE, DTLS-SRTP,
# UDP/TLS/RTP/SAVPF) on port 17150 (a fixed port: tshark's heuristics left one random port undecoded), codec
# $WR_CODEC (pcmu by default), in the background (PID in WR_PID), files sb.out/sb.err/sb.wav; its own --timeout
# 20 s, and timeout(1) at 40 s.
wr_sb_sdp_peer() {
  local role=$1 tone=$2 duration=$3 local_file remote_file
  if [ "$role" = offer ]; then local_file=offer.sdp; remote_file=${WR_ANSWER_IN:-answer.sdp}
  else local_file=answer.sdp; remote_file=${WR_OFFER_IN:-offer.sdp}; fi
  timeout 40 "$ENDPOINT" sdp --role "$role" --local-sdp "$local_file" --remote-sdp "$remote_file" --webrtc \
    --port 17150 --codecs "${WR_CODEC:-pcmu}" --play "tone:$tone" --record sb.wav --duration "$duration" --timeout 20 \
    > sb.out 2> sb.err &
  WR_PID=$!
}

# sb-endpoint's and aiortc's media ports, from the SDP files: "SB AIORTC".
wr_sb_aiortc_ports() {
  local sb_file=offer.sdp ai_file=answer.sdp
  [ "$1" = answer ] && { sb_file=answer.sdp; ai_file=offer.sdp; }
  echo "$(awk '/^m=audio/ { print $2; exit }' $sb_file) $(awk '/^a=candidate:.* 127\.0\.0\.1 / { print $6; exit }' $ai_file)"
}

# wr_sb_aiortc_case SB_ROLE SUITE [aiortc flags...]: SB_ROLE offer: sb-endpoint offers, aiortc answers; answer: the
# reverse. ICE on 127.0.0.1, DTLS-SRTP, $WR_CODEC (pcmu by default, or opus). sb-endpoint's connected line names
# keying=dtls, SUITE (any: one of the three) and the codec, the capture shows the handshake and SRTP both ways on
# the two ports (the profile SUITE's; with PCMU each packet longer than 172 bytes by its tag), and each recording
# holds the other's tone.
wr_sb_aiortc_case() {
  local sb_role=$1 suite=$2 sp ap src arc codec=${WR_CODEC:-pcmu}
  shift 2
  wr_need_aiortc || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || return 1
  if [ "$sb_role" = offer ]; then
    wr_sb_sdp_peer offer 440 5; sp=$WR_PID
    wr_wait_file offer.sdp || { stop_pid "$sp"; capture_stop "$CASE_DIR/capture.pcap"; cat sb.out sb.err; return 1; }
    wr_aiortc_peer answer aiortc 1000 6 --codec "$codec" "$@"; ap=$WR_PID
  else
    wr_aiortc_peer offer aiortc 1000 5 --codec "$codec" "$@"; ap=$WR_PID
    wr_wait_file offer.sdp || { stop_pid "$ap"; capture_stop "$CASE_DIR/capture.pcap"; cat aiortc.out aiortc.err; return 1; }
    wr_sb_sdp_peer answer 440 6; sp=$WR_PID
  fi
  wait "$sp"; src=$?
  wait "$ap"; arc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- sb-endpoint (exit $src)"; cat sb.out; echo "--- aiortc (exit $arc)"; cat aiortc.out
  [ $src -eq 0 ] && [ $arc -eq 0 ] || { tail -n 20 sb.err; tail -n 5 aiortc.err; return 1; }
  local fail=0 got ports
  grep -Eq '^connected srtp=yes keying=dtls suite=(aes-cm-80|aes-cm-32|aes-gcm-128) ' sb.out \
    || { echo "sb-endpoint names no DTLS keying and suite"; return 1; }
  got=$(sed -nE 's/^connected .*suite=([a-z0-9-]+).*/\1/p' sb.out)
  [ "$suite" = any ] || [ "$got" = "$suite" ] || { echo "suite $got, expected $suite"; fail=1; }
  grep -Eq '^m=audio [0-9]+ UDP/TLS/RTP/SAVPF ' offer.sdp && grep -Eq '^m=audio [0-9]+ UDP/TLS/RTP/SAVPF ' answer.sdp \
    || { echo "not UDP/TLS/RTP/SAVPF both ways"; fail=1; }
  grep -qi "^connected .* codec=$codec " sb.out || { echo "sb-endpoint's codec is not $codec"; fail=1; }
  ports=($(wr_sb_aiortc_ports "$sb_role"))
  if [ "$codec" = pcmu ]; then
    wr_expect_dtls_srtp "$CASE_DIR/capture.pcap" "${ports[0]}" "${ports[1]}" 150 "sb-endpoint <-> aiortc" > leg.txt || fail=1
  else
    local dtls ab ba
    dtls=($(wr_dtls_between "$CASE_DIR/capture.pcap" "${ports[0]}" "${ports[1]}"))
    ab=($(wr_rtp_dir "$CASE_DIR/capture.pcap" "${ports[0]}" "${ports[1]}"))
    ba=($(wr_rtp_dir "$CASE_DIR/capture.pcap" "${ports[1]}" "${ports[0]}"))
    echo "sb-endpoint <-> aiortc: DTLS ClientHello ${dtls[0]}, ServerHello ${dtls[1]} (use_srtp profile ${dtls[2]}); RTP ${ab[0]} one way, ${ba[0]} the other" > leg.txt
    [ "${dtls[0]}" -ge 1 ] && [ "${dtls[1]}" -ge 1 ] && [ "${ab[0]}" -ge 150 ] && [ "${ba[0]}" -ge 150 ] \
      || { echo "no handshake, or fewer than 150 SRTP packets each way"; fail=1; }
  fi
  cat leg.txt
  grep -q "use_srtp profile $(wr_profile_id "$got")" leg.txt || { echo "the wire's profile is not $got"; fail=1; }
  wr_tone sb.wav 1000 440 || fail=1
  wr_tone aiortc.wav 440 1000 || fail=1
  return $fail
}

# wr_sb_aiortc_mismatch_case SB_ROLE: both SDPs reach the other side with every fingerprint tampered with.
# sb-endpoint checks aiortc's certificate during the handshake, so it is the first to find the mismatch: it ends
# `failed reason="DTLS fingerprint mismatch"` and sends a fatal alert (a DTLS record of content type 21 on the
# wire, from its port); aiortc's handshake then fails (`failed reason="DTLS ..."`, its own wording). Both exit 1,
# no audio either way, within 10 s.
wr_sb_aiortc_mismatch_case() {
  local sb_role=$1 sp ap src arc t0=$SECONDS
  wr_need_aiortc || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || return 1
  if [ "$sb_role" = offer ]; then
    WR_ANSWER_IN=answer.tampered.sdp wr_sb_sdp_peer offer 440 4; sp=$WR_PID
    wr_wait_file offer.sdp || { stop_pid "$sp"; capture_stop "$CASE_DIR/capture.pcap"; cat sb.out sb.err; return 1; }
    python3 "$WEBRTC_HOME/tamper-fingerprint.py" offer.sdp offer.tampered.sdp || { stop_pid "$sp"; return 1; }
    WR_OFFER_IN=offer.tampered.sdp wr_aiortc_peer answer aiortc 1000 4 --codec pcmu; ap=$WR_PID
    wr_wait_file answer.sdp || { stop_pid "$sp"; stop_pid "$ap"; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
    python3 "$WEBRTC_HOME/tamper-fingerprint.py" answer.sdp answer.tampered.sdp || { stop_pid "$sp"; stop_pid "$ap"; return 1; }
  else
    WR_ANSWER_IN=answer.tampered.sdp wr_aiortc_peer offer aiortc 1000 4 --codec pcmu; ap=$WR_PID
    wr_wait_file offer.sdp || { stop_pid "$ap"; capture_stop "$CASE_DIR/capture.pcap"; cat aiortc.out aiortc.err; return 1; }
    python3 "$WEBRTC_HOME/tamper-fingerprint.py" offer.sdp offer.tampered.sdp || { stop_pid "$ap"; return 1; }
    WR_OFFER_IN=offer.tampered.sdp wr_sb_sdp_peer answer 440 4; sp=$WR_PID
    wr_wait_file answer.sdp || { stop_pid "$sp"; stop_pid "$ap"; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
    python3 "$WEBRTC_HOME/tamper-fingerprint.py" answer.sdp answer.tampered.sdp || { stop_pid "$sp"; stop_pid "$ap"; return 1; }
  fi
  wait "$sp"; src=$?
  wait "$ap"; arc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- sb-endpoint (exit $src)"; cat sb.out; tail -n 5 sb.err; echo "--- aiortc (exit $arc)"; cat aiortc.out
  grep -h 'x DTLS' aiortc.err
  echo "both ended $((SECONDS - t0)) s after the first started"
  local fail=0 ports alerts
  [ $src -eq 1 ] || { echo "sb-endpoint: exit $src, expected 1 (0 is a pass it should not have, 124+ a hang or a crash)"; fail=1; }
  grep -q '^failed reason="DTLS fingerprint mismatch" .*rx-packets=0 ' sb.out || { echo "sb-endpoint does not name the fingerprint mismatch (or got audio)"; fail=1; }
  [ $arc -eq 1 ] && grep -q '^T=[0-9.]* failed reason="DTLS ' aiortc.out || { echo "aiortc did not fail its DTLS handshake"; fail=1; }
  grep -q 'rx-frames=0 ' aiortc.out || { echo "audio reached aiortc"; fail=1; }
  ! grep -q 'Traceback' aiortc.err || { echo "a traceback"; fail=1; }
  ports=($(wr_sb_aiortc_ports "$sb_role"))
  alerts=$(wr_table_count "$CASE_DIR/capture.pcap" "\$4 == ${ports[0]} && \$11 ~ /(^|,)21(,|\$)/")
  echo "DTLS alert records from sb-endpoint's port ${ports[0]}: $alerts"
  [ "$alerts" -ge 1 ] || { echo "sb-endpoint sent no DTLS alert"; fail=1; }
  [ $((SECONDS - t0)) -le 10 ] || { echo "took longer than 10 s"; fail=1; }
  return $fail
}

# sb-endpoint's plain path against a real WebRTC stack through the gateway's media relay: aiortc offers (ICE,
# DTLS-SRTP), rtpengine rewrites the offer toward a plain leg with the gateway's flags, `sb-endpoint sdp` (no
# --webrtc: RTP/AVP, PCMU, port 24000) answers it, and rtpengine rewrites that answer back toward aiortc. The
# capture shows DTLS + SRTP on aiortc's leg and plain 172-byte RTP on sb-endpoint's; each recording holds the
# other's tone.
wr_gateway_sb_plain_aiortc_case() {
  wr_need_aiortc || return 1
  capture_start "$CASE_DIR/capture.pcap" "$WEBRTC_DIRECT_BPF" || return 1
  local cid="sb-plain-$$" i=0
  timeout 40 "$WEBRTC_VENV/bin/python" "$WEBRTC_HOME/aiortc-peer.py" --role offer --local offer.sdp \
    --remote answer-webrtc.sdp --codec pcmu --tone 1000 --record aiortc.wav --duration 4 --timeout 30 \
    > aiortc.out 2> aiortc.err &
  local ap=$!
  wr_wait_file offer.sdp || { stop_pid $ap; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  # shellcheck disable=SC2086
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" offer offer.sdp offer-plain.sdp --call-id "$cid" --from-tag w \
    $WEBRTC_OFFER_TO_PLAIN || { stop_pid $ap; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  timeout 40 "$ENDPOINT" sdp --role answer --local-sdp answer-plain.sdp --remote-sdp offer-plain.sdp --port 24000 \
    --codecs pcmu --play tone:440 --record sb.wav --duration 6 --timeout 20 > sb.out 2> sb.err &
  local sp=$!
  wr_wait_file answer-plain.sdp || { stop_pid $ap; stop_pid $sp; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  # shellcheck disable=SC2086
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" answer answer-plain.sdp answer-webrtc.sdp --call-id "$cid" --from-tag w \
    --to-tag p $WEBRTC_ANSWER_TO_WEBRTC || { stop_pid $ap; stop_pid $sp; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  wait $ap; local arc=$?
  wait $sp; local src=$?
  python3 "$WEBRTC_HOME/ng.py" "$WEBRTC_NG" delete --call-id "$cid" --from-tag w > /dev/null
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- aiortc (exit $arc)"; cat aiortc.out; echo "--- sb-endpoint (exit $src)"; cat sb.out
  echo "--- sb-endpoint's answer"; cat answer-plain.sdp
  [ $arc -eq 0 ] && [ $src -eq 0 ] || { tail -n 5 aiortc.err sb.err; return 1; }
  local fail=0 a_port e_w e_p
  a_port=$(awk '/^a=candidate/ { print $6; exit }' offer.sdp)
  e_w=$(awk '/^m=audio/ { print $2; exit }' answer-webrtc.sdp)
  e_p=$(awk '/^m=audio/ { print $2; exit }' offer-plain.sdp)
  grep -Eq '^m=audio 24000 RTP/AVP 0' answer-plain.sdp && ! grep -q 'fingerprint\|ice-ufrag\|crypto' answer-plain.sdp \
    || { echo "sb-endpoint's answer is not plain RTP/AVP on port 24000"; fail=1; }
  grep -q '^connected srtp=no keying=none ' sb.out || { echo "sb-endpoint's connected line is not plain"; fail=1; }
  wr_expect_dtls_srtp "$CASE_DIR/capture.pcap" $a_port $e_w 150 "aiortc's leg (WebRTC)" || fail=1
  wr_expect_plain_rtp "$CASE_DIR/capture.pcap" 24000 $e_p 150 "sb-endpoint's leg (plain)" || fail=1
  wr_tone aiortc.wav 440 1000 || fail=1
  wr_tone sb.wav 1000 440 || fail=1
  return $fail
}
