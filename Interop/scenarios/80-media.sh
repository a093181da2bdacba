# Media against baresip 1.0.0, through Kamailio (registrar and record-routing proxy, its own start for this
# group): audio both ways with Opus and G.711 (PCMU), without and with SDES-SRTP (baresip mediaenc=srtp-mand,
# switchboard --srtp mandatory), in both directions of call set-up; RFC 4733 DTMF both ways; hold and resume
# by re-INVITE; and the echo bot (Examples/EchoBot) answering a baresip call.
#
# Audio check: baresip sends a 440 Hz WAV written here (aufile) and records what it hears (the sndfile filter,
# rec/dump-*-dec.wav); switchboard sends tone:1000 and records with --record. media/tonecheck.py (stdlib
# wave + Goertzel) then wants each recording's expected tone at least 20 dB above the other one.
#
# Everything runs in a network namespace made for the group (its own loopback), so Kamailio can have 5060
# while other runs on this machine hold the real loopback's; each case re-enters it (media_ns).
# Users: alice (switchboard call), carol (switchboard answer), bob (baresip, calls and is called), echo (the
# echo bot, added to Kamailio's user table at group set-up). Ports: Kamailio 5060; switchboard 5480-5482;
# baresip SIP 5350, ctrl_tcp 5352, RTP 16400-16499.

export MEDIA_RUN="$OUT/media-kamailio"
export MEDIA_DIR="$HERE/media"
export MEDIA_SB="$ROOT/.build/debug/switchboard"
export MEDIA_ECHO_BOT="$ROOT/.build/debug/echo-bot"
export MEDIA_BPF="udp or tcp"  # the namespace holds only this case's traffic

export MEDIA_NS="sb-media-$$"

group_setup_media() {
  (cd "$ROOT" && swift build --product echo-bot >/dev/null) || { log "echo-bot did not build"; return 1; }
  mkdir -p "$MEDIA_RUN"
  ip netns add "$MEDIA_NS" && ip -n "$MEDIA_NS" link set lo up || return 1
  RUN="$MEDIA_RUN" CERTDIR="$CERTDIR" ip netns exec "$MEDIA_NS" "$HERE/peers/kamailio/start.sh" || return 1
  kamcmd -s "unix:$MEDIA_RUN/kamailio_ctl" htable.sets users echo echopw >/dev/null || return 1
  python3 "$MEDIA_DIR/tonewav.py" "$MEDIA_RUN/tone440.wav" 440 --seconds 30
}

group_teardown_media() {
  RUN="$MEDIA_RUN" "$HERE/peers/kamailio/stop.sh"
  ip netns del "$MEDIA_NS" 2>/dev/null
}

# Runs a function of this file (with arguments) inside the group's namespace.
# The functions go through a file: as one argument they would pass the kernel's 128 KiB bound (MAX_ARG_STRLEN).
media_ns() {
  declare -f > "$CASE_DIR/.functions.sh"
  ip netns exec "$MEDIA_NS" bash -c "source '$CASE_DIR/.functions.sh'; $*"
}

# baresip bob for this case, registered with Kamailio, sending the 440 Hz WAV: media_baresip_up CODEC SRTP
# (switchboard's names: opus|pcmu, off|mandatory).
media_baresip_up() {
  local codecs=pcmu menc=none
  [ "$1" = opus ] && codecs=opus/48000/2
  [ "$2" = mandatory ] && menc=srtp-mand
  [ "$2" = optional ] && menc=srtp
  "$MEDIA_DIR/baresip-mkconf.sh" "$CASE_DIR/bob" bob bobpw 5350 5352 16400 "$MEDIA_RUN/tone440.wav" "$codecs" \
    "$menc" && "$MEDIA_DIR/baresip-start.sh" "$CASE_DIR/bob"
}

media_baresip_down() { "$MEDIA_DIR/baresip-stop.sh" "$CASE_DIR/bob"; }

# The one recording baresip made of what it heard.
media_baresip_recording() { ls "$CASE_DIR"/bob/rec/*-dec.wav 2>/dev/null | head -n 1; }

media_finish() {
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  tshark -r "$CASE_DIR/capture.pcap" -Y sdp -T fields -e ip.src -e udp.srcport -e sdp.media -e sdp.media_attr \
    > sdp.txt 2>/dev/null
  echo "--- events"; cat events.out 2>/dev/null
  echo "--- baresip"; cat bctl.out 2>/dev/null
}

media_expect_event() { grep -Eq "$2" "$1" || { echo "no event line matching /$2/ in $1"; return 1; }; }

# Both recordings hold the other side's tone: media_check_tones [tonecheck options for both files].
media_check_tones() {
  local rec ok=0
  rec=$(media_baresip_recording)
  [ -n "$rec" ] || { echo "baresip recorded nothing"; return 1; }
  python3 "$MEDIA_DIR/tonecheck.py" "$rec" --expect 1000 --other 440 --profile 0.5 "$@" || ok=1
  python3 "$MEDIA_DIR/tonecheck.py" sb.wav --expect 440 --other 1000 --profile 0.5 "$@" || ok=1
  return $ok
}

# The SDP in the capture shows what was negotiated: media_check_sdp CODEC SRTP.
media_check_sdp() {
  local codec=$1 srtp=$2
  if [ "$srtp" = mandatory ]; then
    grep -q 'RTP/SAVP' sdp.txt && grep -q 'crypto:' sdp.txt || { echo "no RTP/SAVP with a=crypto in the SDP"; return 1; }
  elif [ "$srtp" = optional ]; then
    ! grep -q 'RTP/SAVP' sdp.txt && grep -q 'crypto:' sdp.txt || { echo "no RTP/AVP with a=crypto in the SDP"; return 1; }
  else
    ! grep -q 'RTP/SAVP' sdp.txt || { echo "RTP/SAVP in the SDP without SRTP"; return 1; }
  fi
  if [ "$codec" = opus ]; then
    grep -qi 'rtpmap:[0-9]* opus/48000/2' sdp.txt || { echo "no opus/48000/2 in the SDP"; return 1; }
  fi
}

media_connected_line() {
  local codec=PCMU yes=no
  [ "$1" = opus ] && codec=opus
  [ "$2" != off ] && yes=yes
  echo "connected codec=$codec srtp=$yes"
}

# switchboard calls bob (baresip, auto-answer) through Kamailio: media_call_out CODEC SRTP [switchboard flags].
media_call_out() {
  local codec=$1 srtp=$2
  shift 2
  media_baresip_up "$codec" "$srtp" || return 1
  capture_start "$CASE_DIR/capture.pcap" "$MEDIA_BPF" || { media_baresip_down; return 1; }
  python3 "$MEDIA_DIR/baresip-ctl.py" 5352 callee --timeout 25 > bctl.out 2> bctl.err &
  local bp=$!
  wait_for bctl.out ready || { echo "baresip-ctl did not connect"; stop_pid $bp; media_baresip_down; return 1; }
  "$MEDIA_SB" call sip:bob@127.0.0.1 --user alice --password alicepw --proxy sip:127.0.0.1 \
    --listen 127.0.0.1:5480 --codecs "$codec" --srtp "$srtp" --play tone:1000 --record sb.wav --trace "$@" \
    > events.out 2> trace.out < /dev/null
  local rc=$?
  wait $bp; local brc=$?
  media_baresip_down
  media_finish
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; return 1; }
  [ $brc -eq 0 ] || { echo "baresip's side of the call failed"; tail -5 bctl.err; return 1; }
  media_expect_event events.out "$(media_connected_line "$codec" "$srtp")"
}

# bob (baresip) calls carol = switchboard answer --auto-answer --count 1, registered with Kamailio:
# media_call_in CODEC SRTP SECONDS [baresip-ctl options -- switchboard flags].
media_call_in() {
  local codec=$1 srtp=$2 seconds=$3
  shift 3
  local ctl=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do ctl+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  "$MEDIA_SB" answer --registrar sip:127.0.0.1 --user carol --password carolpw --listen 127.0.0.1:5481 \
    --auto-answer --count 1 --codecs "$codec" --srtp "$srtp" --play tone:1000 --record sb.wav --trace "$@" \
    > events.out 2> trace.out < /dev/null &
  local ap=$!
  wait_for events.out "registered expires" || { cat events.out; tail -20 trace.out; stop_pid $ap; return 1; }
  media_baresip_up "$codec" "$srtp" || { stop_pid $ap; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$MEDIA_BPF" || { stop_pid $ap; media_baresip_down; return 1; }
  python3 "$MEDIA_DIR/baresip-ctl.py" 5352 dial sip:carol@127.0.0.1 --for "$seconds" "${ctl[@]}" --timeout 25 \
    > bctl.out 2> bctl.err
  local brc=$?
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local rc; if kill -0 $ap 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $ap; rc=1; else wait $ap; rc=$?; fi
  media_baresip_down
  media_finish
  [ $brc -eq 0 ] || { echo "baresip's call failed"; tail -5 bctl.err; return 1; }
  [ $rc -eq 0 ] || { echo "switchboard answer exited $rc"; return 1; }
  media_expect_event events.out "$(media_connected_line "$codec" "$srtp")"
}

# Audio both ways, switchboard calling: 4 s of tone each way, then switchboard hangs up.
media_audio_out() {
  media_call_out "$1" "$2" --duration 4 || return 1
  media_check_sdp "$1" "$2" && media_check_tones
}

# Audio both ways, baresip calling switchboard answer: baresip hangs up after 4 s.
media_audio_in() {
  media_call_in "$1" "$2" 4 || return 1
  media_check_sdp "$1" "$2" && media_check_tones
}

# SDES with AEAD_AES_128_GCM (RFC 7714 §14.1), switchboard calling with that suite alone (--srtp-suites): its offer
# has one a=crypto line and baresip's answer takes it. Only this way: baresip 1.0's srtp module offers
# AES_CM_128_HMAC_SHA1_80 alone (a GCM-only switchboard answers that 488); DTLS-SRTP with GCM goes both ways (49-webrtc).
media_audio_out_gcm() {
  media_call_out pcmu mandatory --duration 4 --srtp-suites aes-gcm-128 || return 1
  media_check_sdp pcmu mandatory || return 1
  grep -q 'crypto:[0-9]* AEAD_AES_128_GCM ' sdp.txt || { echo "no AEAD_AES_128_GCM a=crypto line in the SDP"; return 1; }
  ! grep -q 'crypto:[0-9]* AES_CM' sdp.txt || { echo "an AES_CM a=crypto line in the SDP"; return 1; }
  media_expect_event events.out 'connected codec=PCMU srtp=yes keying=sdes suite=aes-gcm-128' || return 1
  media_check_tones
}

media_audio_out_opus() { media_ns media_audio_out opus off; }
media_audio_out_opus_srtp() { media_ns media_audio_out opus mandatory; }
media_audio_out_pcmu() { media_ns media_audio_out pcmu off; }
media_audio_out_pcmu_srtp() { media_ns media_audio_out pcmu mandatory; }
media_audio_in_opus() { media_ns media_audio_in opus off; }
media_audio_in_opus_srtp() { media_ns media_audio_in opus mandatory; }
media_audio_in_pcmu() { media_ns media_audio_in pcmu off; }
media_audio_in_pcmu_srtp() { media_ns media_audio_in pcmu mandatory; }
media_audio_out_pcmu_srtp_gcm() { media_ns media_audio_out_gcm; }
media_audio_out_opus_srtp_optional() { media_ns media_audio_out opus optional; }
media_audio_in_opus_srtp_optional() { media_ns media_audio_in opus optional; }

# The digits one side's event lines name, in order: media_digits FILE EVENT.
media_digits() { grep -Eo "$2 digit=[^ ]+" "$1" | sed 's/.*digit=//' | tr -d '"\n'; }

# RFC 4733 both ways on a call switchboard places: switchboard sends 159# (1 s after audio starts), baresip
# sends 2580* (its in-call sndcode, 2.5 s after the answer).
media_dtmf_out_case() {
  media_call_out opus off --duration 5 --dtmf 159# || return 1
  local got sent
  got=$(sed -n 's/.*dtmf-received=//p' bctl.out)
  sent=$(media_digits events.out dtmf-sent)
  echo "switchboard sent '$sent'; baresip received '$got'"
  [ "$sent" = "159#" ] && [ "$got" = "159#" ] || { echo "expected 159# both in dtmf-sent and at baresip"; return 1; }
  true
}

# Baresip sends to switchboard answer (and switchboard sends back): baresip 2580* 1.5 s after the answer,
# switchboard 73 1 s after audio starts.
media_dtmf_in_case() {
  media_call_in pcmu off 5 --dtmf 2580* -- --dtmf 73 || return 1
  local got sent back
  got=$(media_digits events.out dtmf-received)
  sent=$(media_digits events.out dtmf-sent)
  back=$(sed -n 's/.*dtmf-received=//p' bctl.out)
  echo "baresip sent 2580*, switchboard received '$got'; switchboard sent '$sent', baresip received '$back'"
  [ "$got" = "2580*" ] || { echo "switchboard answer did not report 2580*"; return 1; }
  [ "$sent" = "73" ] && [ "$back" = "73" ] || { echo "expected 73 from switchboard at baresip"; return 1; }
}

# Hold and resume from switchboard (PCMU): held 2 s after connecting, resumed 2 s later, hung up at 7 s.
# baresip must have taken three offers (the call, the hold, the resume: CALL_REMOTE_SDP events and "got
# re-INVITE" in its log), the hold offer must be a=sendonly; switchboard's recording must have baresip's tone
# before the hold, none during it (baresip answered recvonly) and the tone again after the resume, with no
# packet lost.
# baresip 1.0.0's sndfile recorder stops writing at the first re-INVITE (it does the same between two
# baresips), so what baresip was sent after the resume is decoded from the capture instead (media/rtpwav.py).
media_hold_resume_case() {
  media_call_out pcmu off --duration 7 --hold-after 2 --hold-for 2 || return 1
  media_expect_event events.out '^T=[0-9.]+ held' && media_expect_event events.out '^T=[0-9.]+ resumed' || return 1
  local offers reinvites
  offers=$(grep -c '"CALL_REMOTE_SDP".*"param": "offer"' bctl.err)
  reinvites=$(grep -o 'got re-INVITE' bob/baresip.log | wc -l)
  echo "offers baresip took: $offers; re-INVITEs in its log: $reinvites"
  [ "$offers" -eq 3 ] && [ "$reinvites" -eq 2 ] || { echo "expected 3 offers (call, hold, resume)"; return 1; }
  grep -q 'sendonly' sdp.txt || { echo "no a=sendonly offer in the capture"; return 1; }
  # Loopback loses nothing: a loss here is a packet dropped at the resume (baresip may send before its 200 OK
  # is processed; RFC 3264 §5.1 wants the offerer ready to receive once the offer is out).
  media_expect_event events.out 'summary .* loss=0\.000 ' || return 1
  local ok=0 rec port resumed
  python3 "$MEDIA_DIR/tonecheck.py" sb.wav --expect 440 --other 1000 --profile 0.5 --from 0.5 --to 1.8 || ok=1
  python3 "$MEDIA_DIR/tonecheck.py" sb.wav --expect 440 --other 1000 --from 2.6 --to 3.7 --absent -50 || ok=1
  python3 "$MEDIA_DIR/tonecheck.py" sb.wav --expect 440 --other 1000 --from 4.8 --to 6.8 || ok=1
  rec=$(media_baresip_recording)
  [ -n "$rec" ] && python3 "$MEDIA_DIR/tonecheck.py" "$rec" --expect 1000 --other 440 --from 0.5 --to 1.8 || ok=1
  port=$(awk -F'\t' '$2 == 5350 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  resumed=$(grep 'Request: INVITE' capture.txt | tail -n 1 | cut -d' ' -f1)
  [ -n "$port" ] && [ -n "$resumed" ] || { echo "no baresip RTP port or resume INVITE in the capture"; return 1; }
  python3 "$MEDIA_DIR/rtpwav.py" "$CASE_DIR/capture.pcap" resumed.wav --dst-port "$port" \
    --after "$(awk -v t="$resumed" 'BEGIN { print t + 0.5 }')" || ok=1
  python3 "$MEDIA_DIR/tonecheck.py" resumed.wav --expect 1000 --other 440 --from 0 || ok=1
  return $ok
}

# Hold and resume from baresip (PCMU), calling switchboard answer: baresip holds 2 s after the answer and
# resumes 2 s later (its in-call hold/resume commands), hangs up at 7 s. switchboard must print remote-held
# then resumed, answer the hold a=recvonly and send nothing while held; after the resume its tone reaches
# baresip again (decoded from the capture, see above) and baresip's tone reaches its recording.
media_remote_hold_case() {
  media_call_in pcmu off 7 --at 2 hold --at 4 resume || return 1
  media_expect_event events.out '^T=[0-9.]+ remote-held' && media_expect_event events.out '^T=[0-9.]+ resumed' \
    || return 1
  grep -q 'recvonly' sdp.txt || { echo "no a=recvonly answer in the capture"; return 1; }
  media_expect_event events.out 'summary .* loss=0\.000 ' || return 1
  local port invites held resumed during ok=0
  port=$(awk -F'\t' '$2 == 5350 { split($3, m, " "); print m[2]; exit }' sdp.txt)
  invites=$(grep 'Request: INVITE' capture.txt | awk '$3 == 5350 { print $1 }' | tail -n 2)
  held=$(echo "$invites" | head -n 1); resumed=$(echo "$invites" | tail -n 1)
  [ -n "$port" ] && [ -n "$held" ] && [ "$held" != "$resumed" ] || { echo "no hold and resume INVITEs from baresip"; return 1; }
  during=$(tshark -r "$CASE_DIR/capture.pcap" -d "udp.port==$port,rtp" \
    -Y "rtp && udp.dstport == $port && frame.time_relative > $held + 0.3 && frame.time_relative < $resumed" \
    2>/dev/null | wc -l)
  echo "RTP packets switchboard sent while held: $during (hold at $held s, resume at $resumed s)"
  [ "$during" -eq 0 ] || ok=1
  python3 "$MEDIA_DIR/rtpwav.py" "$CASE_DIR/capture.pcap" resumed.wav --dst-port "$port" \
    --after "$(awk -v t="$resumed" 'BEGIN { print t + 0.5 }')" || ok=1
  python3 "$MEDIA_DIR/tonecheck.py" resumed.wav --expect 1000 --other 440 --from 0 || ok=1
  python3 "$MEDIA_DIR/tonecheck.py" sb.wav --expect 440 --other 1000 --profile 0.5 --last 1.5 || ok=1
  return $ok
}

# The echo bot, registered as echo, answers baresip's call (Opus with SRTP) and plays its audio back about
# 200 ms later: baresip's recording must hold its own 440 Hz, and the digits it sends must come back.
media_echo_bot_case() {
  "$MEDIA_ECHO_BOT" --listen 127.0.0.1:5482 --user echo --password echopw --registrar sip:127.0.0.1 \
    --codecs opus --srtp mandatory --count 1 > events.out 2> bot.err < /dev/null &
  local ep=$!
  wait_for events.out "state=registered until" || { cat events.out bot.err; stop_pid $ep; return 1; }
  media_baresip_up opus mandatory || { stop_pid $ep; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$MEDIA_BPF" || { stop_pid $ep; media_baresip_down; return 1; }
  python3 "$MEDIA_DIR/baresip-ctl.py" 5352 dial sip:echo@127.0.0.1 --for 5 --dtmf 42 --dtmf-at 3 --timeout 25 \
    > bctl.out 2> bctl.err
  local brc=$?
  local i=0; while kill -0 $ep 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local rc; if kill -0 $ep 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $ep; rc=1; else wait $ep; rc=$?; fi
  media_baresip_down
  media_finish
  [ $brc -eq 0 ] || { echo "baresip's call failed"; tail -5 bctl.err; return 1; }
  [ $rc -eq 0 ] || { echo "echo-bot exited $rc"; cat bot.err; return 1; }
  media_expect_event events.out 'connected codec=opus srtp=yes' || return 1
  local rec back
  rec=$(media_baresip_recording)
  [ -n "$rec" ] || { echo "baresip recorded nothing"; return 1; }
  back=$(sed -n 's/.*dtmf-received=//p' bctl.out)
  echo "baresip sent 42, heard back '$back'"
  [ "$back" = 42 ] || { echo "the digits did not come back"; return 1; }
  # The echo starts once 200 ms have gathered; from 1 s on the tone must be there.
  python3 "$MEDIA_DIR/tonecheck.py" "$rec" --expect 440 --other 1000 --from 1 --to 2.9 --profile 0.5
}

media_dtmf_out() { media_ns media_dtmf_out_case; }
media_dtmf_in() { media_ns media_dtmf_in_case; }
media_hold_resume() { media_ns media_hold_resume_case; }
media_echo_bot() { media_ns media_echo_bot_case; }
media_remote_hold() { media_ns media_remote_hold_case; }

case_add media audio-out-opus baresip udp media_audio_out_opus
case_add media audio-out-opus-srtp baresip udp media_audio_out_opus_srtp
case_add media audio-out-pcmu baresip udp media_audio_out_pcmu
case_add media audio-out-pcmu-srtp baresip udp media_audio_out_pcmu_srtp
case_add media audio-in-opus baresip udp media_audio_in_opus
case_add media audio-in-opus-srtp baresip udp media_audio_in_opus_srtp
case_add media audio-in-pcmu baresip udp media_audio_in_pcmu
case_add media audio-in-pcmu-srtp baresip udp media_audio_in_pcmu_srtp
case_add media audio-out-pcmu-srtp-gcm baresip udp media_audio_out_pcmu_srtp_gcm
case_add media audio-out-opus-srtp-optional baresip udp media_audio_out_opus_srtp_optional
case_add media audio-in-opus-srtp-optional baresip udp media_audio_in_opus_srtp_optional
case_add media dtmf-out baresip udp media_dtmf_out
case_add media dtmf-in baresip udp media_dtmf_in
case_add media hold-resume baresip udp media_hold_resume
case_add media remote-hold-resume baresip udp media_remote_hold
case_add media echo-bot baresip udp media_echo_bot
