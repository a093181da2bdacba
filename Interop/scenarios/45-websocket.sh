# SIP over WebSocket (RFC 7118) with Kamailio's websocket and xhttp modules as the WS/WSS registrar and
# proxy (its own start, -A WITH_WEBSOCKET: ws://127.0.0.1:5080/, wss://127.0.0.1:5443/): `switchboard
# register` over WS and WSS; a WSS certificate that names another server is refused; `switchboard call`
# over WS to a `switchboard answer` registered over UDP, and back: a UDP call to an answer registered over
# WS, which Kamailio reaches over the WebSocket (the answer's Contact names a .invalid host). In each call
# the caller plays tone:1000 and the callee tone:440, both record, and each recording must hold the other's.
# And Switchboard to Switchboard with no proxy, over WS and WSS: `answer --listen ws://...` or `wss://...`,
# `call --ws-url`, tones checked the same way.
# Users from peers/kamailio/users.cfg; switchboard takes free ports (--listen 127.0.0.1:0).

export KAMAILIO_WS_RUN="$OUT/kamailio-ws"

group_setup_kamailio_ws() {
  mkdir -p "$KAMAILIO_WS_RUN"
  RUN="$KAMAILIO_WS_RUN" CERTDIR="$CERTDIR" "$HERE/peers/kamailio/start.sh" -A WITH_WEBSOCKET
}

group_teardown_kamailio_ws() {
  RUN="$KAMAILIO_WS_RUN" "$HERE/peers/kamailio/stop.sh"
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
  grep -Eq "^INVITE sips?:carol@[a-z0-9]+\.invalid;transport=ws SIP/2.0" answer.err \
    || { echo "the INVITE did not reach carol's .invalid Contact over the WebSocket"; return 1; }
  grep -q " connected .*transport=udp" events.out && grep -q " connected .*transport=$TRANSPORT" answer.out \
    || { echo "the connected lines do not say transport=udp (caller) and $TRANSPORT (callee)"; return 1; }
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

for t in ws wss; do
  case_add switchboard_ws call-over-websocket switchboard $t ws_sb_call
done

for t in ws wss; do
  case_add kamailio_ws register-over-websocket kamailio $t ws_register
  case_add kamailio_ws call-out-over-websocket kamailio $t ws_call_out
  case_add kamailio_ws call-in-over-websocket kamailio $t ws_call_in
done
case_add kamailio_ws wss-name-mismatch kamailio wss ws_name_mismatch
