# SIP over WebSocket (RFC 7118) with Kamailio's websocket and xhttp modules as the WS/WSS registrar and
# proxy (its own start, -A WITH_WEBSOCKET: ws://127.0.0.1:5080/, wss://127.0.0.1:5443/): `switchboard
# register` over WS and WSS; a WSS certificate that names another server is refused; `switchboard call`
# over WS to a `switchboard answer` registered over UDP, and back: a UDP call to an answer registered over
# WS, which Kamailio reaches over the WebSocket (the answer's Contact names a .invalid host). In each call
# the caller plays tone:1000 and the callee tone:440, both record, and each recording must hold the other's.
# And Switchboard to Switchboard with no proxy, over WS and WSS: `answer --listen ws://...` or `wss://...`,
# `call --ws-url`, tones checked the same way.
# An independent WebSocket client, ws-client (ws-client/: libre 1.1.0's own SIP stack and WebSocket transport;
# baresip 1.0.0 never adds that transport, see Interop/README.md): it calls `answer --listen ws://` directly;
# over WSS it verifies the certificate against the run's CA (a wrong CA is refused) and gets the 200, and then
# cannot send the ACK to Switchboard's `sips:` Contact (libre 1.1.0 sends to `sip:` next hops only), which the
# case checks as the known limit; it registers over WS and WSS to Kamailio and Switchboard calls it there.
# RFC 5626 outbound over WS and WSS (Kamailio started with -A WITH_WEBSOCKET -A WITH_OUTBOUND): the
# registration asks for and gets outbound, its connection is cut (ss -K), Switchboard registers again over a
# new WebSocket connection at once, Kamailio keeps one binding, and a call to it arrives.
# Users from peers/kamailio/users.cfg; switchboard takes free ports (--listen 127.0.0.1:0).

export KAMAILIO_WS_RUN="$OUT/kamailio-ws"

group_teardown_kamailio_ws() {
  RUN="$KAMAILIO_WS_RUN" "$HERE/peers/kamailio/stop.sh"
}

export KAMAILIO_WS_OB_RUN="$OUT/kamailio-ws-outbound"
export WS_CLIENT="$OUT/ws-client"

# Builds ws-client (gcc against Debian's libre-dev) once per run.
ws_client_build() {
  [ -x "$WS_CLIENT" ] || bash "$HERE/ws-client/build.sh" "$WS_CLIENT"
}

group_setup_kamailio_ws() {
  ws_client_build || return 1
  mkdir -p "$KAMAILIO_WS_RUN"
  RUN="$KAMAILIO_WS_RUN" CERTDIR="$CERTDIR" "$HERE/peers/kamailio/start.sh" -A WITH_WEBSOCKET
}

group_setup_libre_ws() { ws_client_build; }

group_setup_kamailio_ws_outbound() {
  mkdir -p "$KAMAILIO_WS_OB_RUN"
  RUN="$KAMAILIO_WS_OB_RUN" CERTDIR="$CERTDIR" "$HERE/peers/kamailio/start.sh" -A WITH_WEBSOCKET -A WITH_OUTBOUND
}

group_teardown_kamailio_ws_outbound() {
  RUN="$KAMAILIO_WS_OB_RUN" "$HERE/peers/kamailio/stop.sh"
}

export ws_bpf="port 5060 or port 5080 or port 5443 or portrange 17000-17999"

# The WebSocket URL of Kamailio for the case's transport (ws or wss).
ws_url() { if [ "$TRANSPORT" = wss ]; then echo "wss://127.0.0.1:5443/"; else echo "ws://127.0.0.1:5080/"; fi; }

ws_register() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" register --user alice@127.0.0.1 --password alicepw --registrar sip:127.0.0.1 \
    --ws-url "$(ws_url)" --tls-ca "$CERTDIR/ca.crt" --duration 1 --trace > events.out 2> trace.out
  local rc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  cat events.out
  echo "exit $rc"
  [ $rc -eq 0 ] || return 1
  local via=WS scheme=sip
  [ "$TRANSPORT" = wss ] && { via=WSS; scheme=sips; }
  grep -Eq "registered expires=[0-9]+ contact=$scheme:alice@[a-z0-9]+\.invalid;transport=ws" events.out \
    || { echo "no registered line with a .invalid WebSocket contact"; return 1; }
  grep -q "unregistered" events.out || return 1
  grep -q "^REGISTER $scheme:127.0.0.1;transport=ws SIP/2.0" trace.out || { echo "no RFC 7118 REGISTER"; return 1; }
  grep -q "^Via: SIP/2.0/$via " trace.out || { echo "no $via Via"; return 1; }
  grep -q "^SIP/2.0 200 OK" trace.out
}

# Kamailio's certificate names 127.0.0.1 and localhost; the endpoint expects other.example.test over WSS.
ws_name_mismatch() {
  "$ENDPOINT" uac --target "sips:127.0.0.1:5443;transport=ws" --method OPTIONS --count 1 --t1-ms 100 \
    --tls-ca "$CERTDIR/ca.crt" --server-name other.example.test --min-success 0 > endpoint.out 2>&1
  cat endpoint.out
  grep -q "transport_errors=1" endpoint.out && grep -q "transport_error certificate name mismatch" endpoint.out
}

# Waits (up to 10 s) for a registered line in $1.
ws_wait_registered() {
  local i=0
  until grep -q "registered expires" "$1" 2>/dev/null; do
    i=$((i+1)); [ $i -gt 200 ] && return 1
    sleep 0.05
  done
}

# The caller's and callee's event lines show a connected call that ended normally with audio both ways, and
# each recording holds the other side's tone (the caller plays tone:1000 and records caller.wav, the callee
# plays tone:440 and records callee.wav): media/tonecheck.py wants the expected tone 20 dB above the other.
ws_call_checks() {
  echo "--- caller"; cat events.out; echo "--- callee"; cat answer.out
  grep -q "connected codec=" events.out && grep -q "connected codec=" answer.out || return 1
  grep -q "ended reason=localEnded" events.out && grep -q "ended reason=remoteEnded" answer.out || return 1
  grep -Eq "summary .* rx=[1-9][0-9]*" events.out && grep -Eq "summary .* rx=[1-9][0-9]*" answer.out || return 1
  local ok=0
  python3 "$HERE/media/tonecheck.py" caller.wav --expect 440 --other 1000 || ok=1
  python3 "$HERE/media/tonecheck.py" callee.wav --expect 1000 --other 440 || ok=1
  return $ok
}

# After the caller exited with $1: lets the answerer ($2) end its call (bounded), stops it, stops the capture,
# and checks the caller's exit status and the tones and connected lines (ws_call_checks).
ws_end_call() {
  local rc=$1 pid=$2 i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.05; done
  stop_pid "$pid"
  capture_stop "$CASE_DIR/capture.pcap"
  echo "call exit $rc"
  [ "$rc" -eq 0 ] || { cat events.out; tail -20 trace.out; return 1; }
  ws_call_checks
}

# switchboard call over the WebSocket to bob, registered over UDP by switchboard answer.
ws_call_out() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" answer --registrar sip:127.0.0.1 --user bob --password bobpw \
    --listen 127.0.0.1:0 --rtp-ports 17100-17199 --auto-answer --count 1 --play tone:440 --record callee.wav \
    > answer.out 2> answer.err &
  local pid=$!
  ws_wait_registered answer.out || { stop_pid "$pid"; echo "bob did not register"; cat answer.err; return 1; }
  "$ROOT/.build/debug/switchboard" call sip:bob@127.0.0.1 --user alice@127.0.0.1 --password alicepw \
    --ws-url "$(ws_url)" --tls-ca "$CERTDIR/ca.crt" --rtp-ports 17000-17099 --duration 2 \
    --play tone:1000 --record caller.wav \
    --trace > events.out 2> trace.out
  ws_end_call $? "$pid" || return 1
  grep -Eq "^Record-Route: <sips?:127\.0\.0\.1:(5080|5443);transport=wss?;" trace.out \
    || { echo "Kamailio did not record-route the WebSocket leg"; return 1; }
  grep -q " connected .*transport=$TRANSPORT" events.out && grep -q " connected .*transport=udp" answer.out \
    || { echo "the connected lines do not say transport=$TRANSPORT (caller) and udp (callee)"; return 1; }
}

# A UDP call to carol, registered over the WebSocket by switchboard answer: Kamailio relays the INVITE over
# her connection, to her .invalid Contact.
ws_call_in() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" answer --registrar sip:127.0.0.1 --user carol --password carolpw \
    --ws-url "$(ws_url)" --tls-ca "$CERTDIR/ca.crt" --listen 127.0.0.1:0 --rtp-ports 17100-17199 \
    --auto-answer --count 1 --play tone:440 --record callee.wav --trace > answer.out 2> answer.err &
  local pid=$!
  ws_wait_registered answer.out || { stop_pid "$pid"; echo "carol did not register"; cat answer.err; return 1; }
  "$ROOT/.build/debug/switchboard" call sip:carol@127.0.0.1 --user alice@127.0.0.1 --password alicepw \
    --proxy sip:127.0.0.1 --listen 127.0.0.1:0 --rtp-ports 17000-17099 --duration 2 \
    --play tone:1000 --record caller.wav \
    > events.out 2> trace.out
  ws_end_call $? "$pid" || return 1
  grep -Eq "^INVITE sips?:carol@[a-z0-9]+\.invalid;transport=ws(;ob)? SIP/2.0" answer.err \
    || { echo "the INVITE did not reach carol's .invalid Contact over the WebSocket"; return 1; }
  grep -q " connected .*transport=udp" events.out && grep -q " connected .*transport=$TRANSPORT" answer.out \
    || { echo "the connected lines do not say transport=udp (caller) and $TRANSPORT (callee)"; return 1; }
}

# baresip 1.0 (UDP, registered with Kamailio, PCMU, plays a 440 Hz WAV, records what it hears with sndfile)
# on the far side of Kamailio from Switchboard's WebSocket leg: ws_baresip_up USER SIP_PORT CTRL_PORT RTP.
ws_baresip_up() {
  python3 - "$CASE_DIR/tone440.wav" <<'PY' || return 1
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / 8000))) for n in range(8000 * 30)))
w.close()
PY
  "$HERE/media/baresip-mkconf.sh" "$CASE_DIR/$1" "$1" "${1}pw" "$2" "$3" "$4" "$CASE_DIR/tone440.wav" pcmu none \
    && "$HERE/media/baresip-start.sh" "$CASE_DIR/$1"
}

# baresip's recording of what it heard ($1: its user) holds Switchboard's 1000 Hz tone, not its own 440 Hz.
ws_baresip_heard() {
  local wav; wav=$(ls "$CASE_DIR/$1"/rec/*-dec.wav 2>/dev/null | head -n 1)
  [ -n "$wav" ] || { echo "baresip $1 recorded nothing"; return 1; }
  python3 "$HERE/media/tonecheck.py" "$wav" --expect 1000 --other 440
}

# switchboard call over the WebSocket, through Kamailio, to baresip bob registered over UDP; bob answers at
# once, switchboard hangs up after 3 s. Tones both ways; the connected line names the WebSocket transport.
ws_baresip_out() {
  ws_baresip_up bob 5350 5352 16400 || return 1
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf or portrange 16400-16499" || { "$HERE/media/baresip-stop.sh" "$CASE_DIR/bob"; return 1; }
  "$ROOT/.build/debug/switchboard" call sip:bob@127.0.0.1 --user alice@127.0.0.1 --password alicepw \
    --ws-url "$(ws_url)" --tls-ca "$CERTDIR/ca.crt" --rtp-ports 17000-17099 --codecs pcmu --duration 3 \
    --play tone:1000 --record caller.wav --trace > events.out 2> trace.out < /dev/null
  local rc=$?
  "$HERE/media/baresip-stop.sh" "$CASE_DIR/bob"
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- switchboard (exit $rc)"; cat events.out
  [ $rc -eq 0 ] || { tail -30 trace.out; return 1; }
  grep -q " connected .*transport=$TRANSPORT" events.out && grep -q "ended reason=localEnded" events.out \
    || { echo "no connected line with transport=$TRANSPORT, or no local hang-up"; return 1; }
  python3 "$HERE/media/tonecheck.py" caller.wav --expect 440 --other 1000 && ws_baresip_heard bob
}

# baresip alice (UDP) calls carol, whom switchboard answer registered over the WebSocket: Kamailio relays the
# INVITE over carol's connection; alice hangs up 3 s after the answer. Tones both ways.
ws_baresip_in() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf or portrange 16500-16599" || return 1
  "$ROOT/.build/debug/switchboard" answer --registrar sip:127.0.0.1 --user carol --password carolpw \
    --ws-url "$(ws_url)" --tls-ca "$CERTDIR/ca.crt" --listen 127.0.0.1:0 --rtp-ports 17100-17199 --codecs pcmu \
    --auto-answer --count 1 --play tone:1000 --record callee.wav --trace > answer.out 2> answer.err < /dev/null &
  local pid=$!
  ws_wait_registered answer.out || { stop_pid "$pid"; capture_stop "$CASE_DIR/capture.pcap"; echo "carol did not register"; return 1; }
  ws_baresip_up alice 5370 5372 16500 || { stop_pid "$pid"; capture_stop "$CASE_DIR/capture.pcap"; return 1; }
  python3 "$HERE/peers/baresip/bctl.py" 5372 dial sip:carol@127.0.0.1 --hold 3 --timeout 30 > bctl.out 2> bctl.err
  local brc=$?
  ws_wait_pid "$pid"; local rc=$?
  "$HERE/media/baresip-stop.sh" "$CASE_DIR/alice"
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- switchboard answer (exit $rc)"; cat answer.out; echo "--- baresip (exit $brc)"; cat bctl.out bctl.err
  [ $brc -eq 0 ] && [ $rc -eq 0 ] || return 1
  grep -Eq "^INVITE sips?:carol@[a-z0-9]+\.invalid;transport=ws(;ob)? SIP/2.0" answer.err \
    || { echo "the INVITE did not reach carol's .invalid Contact over the WebSocket"; return 1; }
  grep -q " connected .*transport=$TRANSPORT" answer.out && grep -q "ended reason=remoteEnded" answer.out \
    || { echo "no connected line with transport=$TRANSPORT, or the call did not end at baresip's BYE"; return 1; }
  python3 "$HERE/media/tonecheck.py" callee.wav --expect 440 --other 1000 && ws_baresip_heard alice
}

# Switchboard to Switchboard, no proxy: `switchboard answer --listen ws://127.0.0.1:17580/sip` (WSS: 17581
# with --tls-cert/--tls-key, the run's certificate for 127.0.0.1) and `switchboard call --ws-url` to it (WSS:
# --tls-ca, the run's CA), tones both ways. The answer's trace must show the INVITE came over the WebSocket.
ws_sb_call() {
  local port=17580 scheme=ws via=WS
  [ "$TRANSPORT" = wss ] && { port=17581; scheme=wss; via=WSS; }
  local url="$scheme://127.0.0.1:$port/sip"
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" answer --listen "$url" --tls-cert "$CERTDIR/server.crt" \
    --tls-key "$CERTDIR/server.key" --user bob --rtp-ports 17100-17199 --auto-answer --count 1 \
    --play tone:440 --record callee.wav --trace > answer.out 2> answer.err &
  local pid=$!
  wait_port $port tcp || { stop_pid "$pid"; echo "answer does not listen on $url"; cat answer.err; return 1; }
  "$ROOT/.build/debug/switchboard" call "sip:bob@127.0.0.1:$port" --user alice@127.0.0.1 --ws-url "$url" \
    --tls-ca "$CERTDIR/ca.crt" --rtp-ports 17000-17099 --duration 2 --play tone:1000 --record caller.wav \
    --trace > events.out 2> trace.out
  ws_end_call $? "$pid" || return 1
  grep -q "^Via: SIP/2.0/$via " trace.out || { echo "no $via Via from the caller"; return 1; }
  grep -q " connected .*transport=$TRANSPORT" events.out && grep -q " connected .*transport=$TRANSPORT" answer.out \
    || { echo "a connected line does not say transport=$TRANSPORT"; return 1; }
  grep -Eq "^INVITE sips?:bob@127\.0\.0\.1:$port;transport=ws SIP/2.0" answer.err \
    || { echo "the answer did not get an RFC 7118 INVITE"; return 1; }
}

# The local address (switchboard's --trace) a message whose start line matches $2 went out on ($3 = sent)
# or came in on ($3 = received), the first ($4 = first) or last ($4 = last) such, in trace file $1.
ws_trace_local() {
  awk -v dir="$3" -v pat="$2" -v which="$4" '/^--- T=/ { l = $5; d = $3; next }
    l != "" && d == dir && $0 ~ pat { found = l; if (which == "first") { print found; exit } } { l = "" }
    END { if (which == "last" && found != "") print found }' "$1"
}

# Waits (bounded, 10 s) for process $1 to end by itself, then stops it by PID; returns its exit status.
ws_wait_pid() {
  local pid=$1 i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do i=$((i+1)); sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then stop_pid "$pid"; return 124; fi
  wait "$pid"
}

# ws-client and switchboard in one call: ws-client's lines in $1 (it plays tone $3, records libre.wav), the
# switchboard side's in $2 (it plays the other tone, records switchboard.wav); each recording must hold the
# other side's tone. A summary line on each side with packets received.
ws_libre_call_checks() {
  local libre=$1 sb=$2 libre_tone=$3 sb_tone=$4
  echo "--- ws-client"; cat "$libre"; echo "--- switchboard"; cat "$sb"
  grep -q "^connected transport=" "$libre" && grep -q "connected codec=PCMU" "$sb" || return 1
  grep -Eq "^summary tx=[1-9][0-9]* rx=[1-9][0-9]*" "$libre" && grep -Eq "summary .* rx=[1-9][0-9]*" "$sb" || return 1
  local ok=0
  python3 "$HERE/media/tonecheck.py" libre.wav --expect "$sb_tone" --other "$libre_tone" || ok=1
  python3 "$HERE/media/tonecheck.py" switchboard.wav --expect "$libre_tone" --other "$sb_tone" || ok=1
  return $ok
}

# ws-client (libre 1.1.0) calls `switchboard answer --listen ws://127.0.0.1:17582/` directly, plays tone:1000
# and hangs up after 3 s; the answer plays tone:440. The INVITE must come in over the WebSocket in the RFC 7118
# form, the call end at libre's BYE, and both recordings hold the other's tone.
ws_libre_calls_answer() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" answer --listen ws://127.0.0.1:17582/ --user bob --rtp-ports 17100-17199 \
    --codecs pcmu --auto-answer --count 1 --play tone:440 --record switchboard.wav --trace > answer.out 2> answer.err &
  local pid=$!
  wait_port 17582 tcp || { stop_pid "$pid"; echo "answer does not listen on ws://127.0.0.1:17582/"; cat answer.err; return 1; }
  "$WS_CLIENT" --user alice --transport ws --call "sip:bob@127.0.0.1:17582;transport=ws" --duration 3 --tone 1000 \
    --record libre.wav --rtp-ports 17200-17299 --timeout 15 --trace > libre.out 2> libre.err
  local rc=$?
  ws_wait_pid "$pid"; local arc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  echo "ws-client exit $rc, answer exit $arc"
  [ $rc -eq 0 ] && [ $arc -eq 0 ] || { tail -30 libre.err; return 1; }
  ws_libre_call_checks libre.out answer.out 1000 440 || return 1
  grep -q "ended reason=remoteEnded" answer.out || { echo "the call did not end at libre's BYE"; return 1; }
  grep -q " connected .*transport=ws" answer.out || { echo "answer's connected line does not say transport=ws"; return 1; }
  grep -q "^--- T=[0-9.]* received WS " answer.err && grep -Eq "^INVITE sip:bob@127\.0\.0\.1:17582;transport=ws SIP/2.0" answer.err \
    && grep -q "^Via: SIP/2.0/WS " answer.err || { echo "no RFC 7118 INVITE over the WebSocket"; return 1; }
}

# ws-client over WSS to `switchboard answer --listen wss://127.0.0.1:17583/` (the run's certificate for
# 127.0.0.1). First with the wrong name expected (--tls-name other.example.test): the handshake is refused
# and no INVITE arrives. Then verified against the run's CA: the upgrade, the INVITE, the 180 and the 200 with
# Switchboard's WSS Contact `sips:bob@127.0.0.1:17583;transport=ws` (RFC 7118 §5.2) cross, and libre 1.1.0
# cannot send the ACK: its sip_request() accepts only a `sip:` next hop (ENOSYS, "Function not implemented",
# for `sips:`), so the call stops there. The case checks exactly that stop; it is the known limit, not a call.
ws_libre_wss_answer_limit() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" answer --listen wss://127.0.0.1:17583/ --tls-cert "$CERTDIR/server.crt" \
    --tls-key "$CERTDIR/server.key" --user bob --rtp-ports 17100-17199 --codecs pcmu --auto-answer --count 1 \
    --trace > answer.out 2> answer.err &
  local pid=$!
  wait_port 17583 tcp || { stop_pid "$pid"; echo "answer does not listen on wss://127.0.0.1:17583/"; cat answer.err; return 1; }
  "$WS_CLIENT" --user alice --transport wss --ca "$CERTDIR/ca.crt" --tls-name other.example.test \
    --call "sip:bob@127.0.0.1:17583;transport=wss" --timeout 5 --trace > mismatch.out 2> mismatch.err
  local mrc=$?
  echo "--- ws-client, expecting other.example.test (exit $mrc)"; cat mismatch.out; grep "tls:" mismatch.err
  [ $mrc -eq 1 ] && grep -q "^summary .*verified-tls=1" mismatch.out && grep -q "^ended reason=error" mismatch.out \
    && grep -q "tls: connect: error" mismatch.err || { echo "a certificate for another name was not refused"; stop_pid "$pid"; return 1; }
  grep -q "^INVITE " answer.err && { echo "an INVITE arrived over the refused connection"; stop_pid "$pid"; return 1; }
  "$WS_CLIENT" --user alice --transport wss --ca "$CERTDIR/ca.crt" --call "sip:bob@127.0.0.1:17583;transport=wss" \
    --rtp-ports 17200-17299 --timeout 10 --trace > libre.out 2> libre.err
  local rc=$?
  stop_pid "$pid"
  capture_stop "$CASE_DIR/capture.pcap"
  echo "--- ws-client, verified (exit $rc)"; cat libre.out; echo "--- switchboard"; cat answer.out
  grep -q "^summary .*verified-tls=1" libre.out || { echo "the certificate was not checked"; return 1; }
  grep -q "^--- T=[0-9.]* received WSS " answer.err && grep -q "^INVITE sip:bob@127.0.0.1:17583;transport=wss SIP/2.0" answer.err \
    || { echo "no INVITE over WSS"; return 1; }
  grep -q "^Contact: <sips:bob@127.0.0.1:17583;transport=ws>" libre.err || { echo "libre did not get the 200 with the sips: Contact"; return 1; }
  grep -q '^ended reason=error err="Function not implemented"' libre.out || { echo "not the known stop (ENOSYS at the ACK)"; return 1; }
  ! grep -q "^ACK " libre.err || { echo "libre sent an ACK: the limit is gone, make this a full call"; return 1; }
}

# ws-client registers carol over WS or WSS to Kamailio (WSS: verified against the run's CA) and answers;
# `switchboard call` (UDP) calls carol through Kamailio, which relays over the WebSocket; libre hangs up after
# 3 s. Tones both ways (switchboard tone:1000, libre tone:440).
ws_libre_registered_called() {
  local server=127.0.0.1:5080 tls=()
  [ "$TRANSPORT" = wss ] && { server=127.0.0.1:5443; tls=(--ca "$CERTDIR/ca.crt"); }
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$WS_CLIENT" --user carol --password carolpw --transport "$TRANSPORT" "${tls[@]}" --server "$server" --register \
    --answer --duration 3 --tone 440 --record libre.wav --rtp-ports 17200-17299 --timeout 20 --trace \
    > libre.out 2> libre.err &
  local lp=$!
  wait_for libre.out "^registered" || { stop_pid "$lp"; echo "ws-client did not register"; cat libre.out; tail -30 libre.err; return 1; }
  "$ROOT/.build/debug/switchboard" call sip:carol@127.0.0.1 --user alice@127.0.0.1 --password alicepw \
    --proxy sip:127.0.0.1 --listen 127.0.0.1:0 --rtp-ports 17000-17099 --codecs pcmu --duration 10 \
    --play tone:1000 --record switchboard.wav --trace > events.out 2> trace.out
  local rc=$?
  ws_wait_pid "$lp"; local lrc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  echo "switchboard exit $rc, ws-client exit $lrc"
  [ $rc -eq 0 ] && [ $lrc -eq 0 ] || { tail -30 libre.err; return 1; }
  ws_libre_call_checks libre.out events.out 440 1000 || return 1
  local upper; upper=$(echo "$TRANSPORT" | tr a-z A-Z)
  grep -q "^incoming from=sip:alice@127.0.0.1 transport=$upper" libre.out || { echo "the INVITE did not come over $upper"; return 1; }
  grep -Eq "^registered contact=.*;transport=$TRANSPORT>.*received=" libre.out || { echo "no WebSocket binding"; return 1; }
  grep -q "ended reason=remoteEnded" events.out || { echo "the call did not end at libre's BYE"; return 1; }
}

# switchboard answer registers carol over WS or WSS with no listener (--listen none) to Kamailio with outbound
# (-A WITH_OUTBOUND): the REGISTER asks for outbound (;ob, reg-id=1, +sip.instance, Supported: outbound) and
# the 200 confirms it (Require: outbound, Flow-Timer). The registration's TCP connection is cut with ss -K:
# Switchboard registers again at once (under 1 s; without outbound it would wait its 2 s retry) over a new
# WebSocket connection, Kamailio keeps one binding (same instance and reg-id, the new connection's address),
# and a UDP call from alice to carol arrives over the new connection. Tones both ways.
ws_outbound_recovery() {
  capture_start "$CASE_DIR/capture.pcap" "$ws_bpf" || return 1
  "$ROOT/.build/debug/switchboard" answer --registrar sip:127.0.0.1 --user carol --password carolpw \
    --ws-url "$(ws_url)" --tls-ca "$CERTDIR/ca.crt" --listen none --rtp-ports 17100-17199 --auto-answer --count 1 \
    --duration 30 --play tone:440 --record callee.wav --trace > answer.out 2> answer.err < /dev/null &
  local pid=$!
  ws_wait_registered answer.out || { stop_pid "$pid"; echo "carol did not register"; tail -30 answer.err; return 1; }
  grep -Eq '^Contact: <sips?:carol@[a-z0-9]+\.invalid;transport=ws;ob>;\+sip\.instance="<urn:uuid:[0-9a-f-]+>";reg-id=1' answer.err \
    && grep -q "^Supported: path, outbound" answer.err || { echo "the REGISTER did not ask for outbound"; stop_pid "$pid"; return 1; }
  awk '/^SIP\/2.0 200/,/^$/' answer.err | grep -q "^Require: outbound" && awk '/^SIP\/2.0 200/,/^$/' answer.err \
    | grep -q "^Flow-Timer: 25" || { echo "the 200 did not confirm outbound"; stop_pid "$pid"; return 1; }
  local first; first=$(ws_trace_local answer.err '^REGISTER ' sent first)
  ss -K "( sport = :${first##*:} )" > /dev/null 2>&1 || { echo "ss -K failed"; stop_pid "$pid"; return 1; }
  local i=0
  until [ "$(grep -c 'registered expires' answer.out)" -ge 2 ]; do
    i=$((i+1)); [ $i -gt 100 ] && { echo "no registration after the cut"; cat answer.out; stop_pid "$pid"; return 1; }
    sleep 0.05
  done
  local again failed_at again_at
  again=$(ws_trace_local answer.err '^REGISTER ' sent last)
  failed_at=$(grep -m1 "reg-failed" answer.out | sed -E 's/^T=([0-9.]+).*/\1/')
  again_at=$(grep "registered expires" answer.out | sed -n 2p | sed -E 's/^T=([0-9.]+).*/\1/')
  echo "registered on $first; cut at T=$failed_at; registered again on $again at T=$again_at"
  [ -n "$failed_at" ] && awk -v a="$failed_at" -v b="$again_at" 'BEGIN { exit !(b - a < 1) }' \
    || { echo "not registered again at once"; stop_pid "$pid"; return 1; }
  [ "$again" != "$first" ] || { echo "no new connection"; stop_pid "$pid"; return 1; }
  kamcmd -s "unix:$KAMAILIO_WS_OB_RUN/kamailio_ctl" ul.dump > uldump.out 2>&1
  grep -E "Address|Received|Reg-Id" uldump.out
  [ "$(grep -c 'Reg-Id: 1' uldump.out)" -eq 1 ] && grep -q "Received: sips\?:127.0.0.1:${again##*:};transport=ws" uldump.out \
    || { echo "Kamailio does not hold one binding on the new connection"; stop_pid "$pid"; return 1; }
  "$ROOT/.build/debug/switchboard" call sip:carol@127.0.0.1 --user alice@127.0.0.1 --password alicepw \
    --proxy sip:127.0.0.1 --listen 127.0.0.1:0 --rtp-ports 17000-17099 --duration 2 --play tone:1000 \
    --record caller.wav > events.out 2> trace.out
  ws_end_call $? "$pid" || return 1
  local invite_on; invite_on=$(ws_trace_local answer.err '^INVITE ' received first)
  echo "the INVITE came on $invite_on"
  [ "$invite_on" = "$again" ] || { echo "the INVITE did not come over the new connection"; return 1; }
  grep -q " connected .*transport=$TRANSPORT" answer.out || { echo "answer's connected line does not say $TRANSPORT"; return 1; }
}

# The CLI names a WSS certificate failure: `answer --listen wss://127.0.0.1:17584/` serves the run's
# certificate for other.example.test; `call` over WSS to 127.0.0.1 ends `failed` with the made-up 503's phrase
# naming the mismatch, and `register` through the same URL fails with the same fault in its reason.
ws_cli_name_mismatch() {
  "$ROOT/.build/debug/switchboard" answer --listen wss://127.0.0.1:17584/ --tls-cert "$CERTDIR/other.crt" \
    --tls-key "$CERTDIR/other.key" --user bob --auto-answer --count 1 > answer.out 2> answer.err &
  local pid=$!
  wait_port 17584 tcp || { stop_pid "$pid"; echo "answer does not listen on wss://127.0.0.1:17584/"; cat answer.err; return 1; }
  "$ROOT/.build/debug/switchboard" call sip:bob@127.0.0.1:17584 --user alice@127.0.0.1 \
    --ws-url wss://127.0.0.1:17584/ --tls-ca "$CERTDIR/ca.crt" --duration 1 > events.out 2> trace.out
  local rc=$?
  "$ROOT/.build/debug/switchboard" register --user alice@127.0.0.1 --password alicepw --registrar sip:127.0.0.1 \
    --ws-url wss://127.0.0.1:17584/ --tls-ca "$CERTDIR/ca.crt" --duration 1 > register.out 2> register.err
  local rrc=$?
  stop_pid "$pid"
  echo "--- call (exit $rc)"; cat events.out; echo "--- register (exit $rrc)"; cat register.out
  [ $rc -eq 1 ] && grep -q 'ended reason=failed status=503 phrase="TLS: certificate name mismatch"' events.out \
    || { echo "the call's end does not name the mismatch"; return 1; }
  [ $rrc -ne 0 ] && grep -q 'reg-failed reason="TLS: certificate name mismatch (' register.out \
    || { echo "the registration failure does not name the mismatch"; return 1; }
  ! grep -q "^T=.* incoming" answer.out || { echo "a call got through"; return 1; }
}

for t in ws wss; do
  case_add switchboard_ws call-over-websocket switchboard $t ws_sb_call
done
case_add switchboard_ws wss-name-mismatch-cli switchboard wss ws_cli_name_mismatch

for t in ws wss; do
  case_add kamailio_ws register-over-websocket kamailio $t ws_register
  case_add kamailio_ws call-out-over-websocket kamailio $t ws_call_out
  case_add kamailio_ws call-in-over-websocket kamailio $t ws_call_in
done
case_add kamailio_ws wss-name-mismatch kamailio wss ws_name_mismatch
for t in ws wss; do
  case_add kamailio_ws call-out-to-baresip baresip $t ws_baresip_out
  case_add kamailio_ws baresip-calls-in baresip $t ws_baresip_in
done
for t in ws wss; do
  case_add kamailio_ws libre-registered-called libre $t ws_libre_registered_called
done

case_add libre_ws libre-calls-answer libre ws ws_libre_calls_answer
case_add libre_ws libre-calls-answer-until-ack libre wss ws_libre_wss_answer_limit

for t in ws wss; do
  case_add kamailio_ws_outbound outbound-flow-recovery switchboard $t ws_outbound_recovery
done
