# Views (CLI.md "Views"): alice registers to Kamailio and calls bob through it; bob is `switchboard answer
# --auto-answer` registered to the same Kamailio. Both run with --trace --pcap --ladder, and for each side the
# sequence of (direction, method or status, CSeq) must be identical in the --trace text, in
# `tshark -r FILE -Y sip` and in the rows embedded in the ladder page (Interop/views/compare.py).
# Everything runs in a network namespace of its own (sbviews, with its own loopback) and with its own
# Kamailio (group views_kamailio): no binding left by other scenarios forks the call, and a Kamailio another
# run holds on the host's 127.0.0.1:5060 is not in the way.
# A second case has a real baresip (answermode=auto) as carol; there only alice's views are compared.
# Ports: alice 5480, bob 5481 (UDP/TCP/TLS listeners on the same port), baresip (carol) 5482,
# its RTP 17480-17499.

views_ns() { echo sbviews; }

views_sb() { echo "$ROOT/.build/debug/switchboard"; }

group_setup_views_kamailio() {
  mkdir -p "$OUT/views-kamailio"
  ip netns del "$(views_ns)" 2>/dev/null
  ip netns add "$(views_ns)" || return 1
  ip netns exec "$(views_ns)" ip link set lo up || return 1
  RUN="$OUT/views-kamailio" CERTDIR="$CERTDIR" ip netns exec "$(views_ns)" "$HERE/peers/kamailio/start.sh"
}

group_teardown_views_kamailio() {
  RUN="$OUT/views-kamailio" "$HERE/peers/kamailio/stop.sh"
  ip netns del "$(views_ns)" 2>/dev/null
}

views_call() {
  local sb; sb=$(views_sb)
  local common=(--registrar sip:127.0.0.1 --transport "$TRANSPORT" --tls-ca "$CERTDIR/ca.crt")
  if [ "$TRANSPORT" = tls ]; then common+=(--tls-cert "$CERTDIR/server.crt" --tls-key "$CERTDIR/server.key"); fi
  ip netns exec "$(views_ns)" "$sb" answer --user bob --password bobpw "${common[@]}" --listen 127.0.0.1:5481 --auto-answer --count 1 \
    --trace --pcap bob.pcap --ladder bob.html > bob.out 2> bob.trace &
  local bob=$!
  local i=0
  until grep -q "registered expires" bob.out 2>/dev/null; do
    i=$((i+1)); [ $i -gt 200 ] && { echo "bob did not register"; cat bob.out; stop_pid $bob; return 1; }
    kill -0 $bob 2>/dev/null || { echo "bob exited"; cat bob.out bob.trace; return 1; }
    sleep 0.05
  done
  ip netns exec "$(views_ns)" "$sb" call sip:bob@127.0.0.1 --user alice --password alicepw "${common[@]}" --register --listen 127.0.0.1:5480 \
    --duration 1 --trace --pcap alice.pcap --ladder alice.html > alice.out 2> alice.trace
  local rc=$?
  i=0
  while kill -0 $bob 2>/dev/null; do i=$((i+1)); [ $i -gt 200 ] && { stop_pid $bob; break; }; sleep 0.05; done
  wait $bob; local brc=$?
  echo "== alice (exit $rc)"; cat alice.out
  echo "== bob (exit $brc)"; cat bob.out
  [ $rc -eq 0 ] && [ $brc -eq 0 ] || { echo "a command failed"; return 1; }
  local ok=0
  echo "== alice: trace / tshark / ladder"
  python3 "$HERE/views/compare.py" alice.trace alice.pcap alice.html 5060,5061 > alice.compare || ok=1
  cat alice.compare
  echo "== bob: trace / tshark / ladder"
  python3 "$HERE/views/compare.py" bob.trace bob.pcap bob.html 5060,5061 > bob.compare || ok=1
  cat bob.compare
  # The call went through: alice's flow has the INVITE, its 200, the ACK, the BYE and its 200.
  for m in "sent INVITE" "received 200 [0-9]* INVITE" "sent ACK" "sent BYE" "received 200 [0-9]* BYE"; do
    grep -q -- "$m" alice.compare || { echo "alice's flow lacks $m"; ok=1; }
  done
  return $ok
}

# carol is baresip (another user, so no binding left by the cases above forks the call), with a minimal
# configuration written here (sine source, aubridge sink: no sound device).
views_baresip_call() {
  local sb; sb=$(views_sb)
  mkdir -p baresip
  cat > baresip/config <<CONF
poll_method		epoll
sip_listen		127.0.0.1:5482
net_interface		127.0.0.1
audio_source		ausine,440
ausrc_srate		48000
ausrc_channels		2
audio_player		aubridge,views-carol-sink
audio_alert		aubridge,views-carol-alert
rtp_ports		17480-17499
module_path		/usr/lib/baresip/modules
module			g711.so
module			aubridge.so
module			ausine.so
module_tmp		account.so
CONF
  echo "<sip:carol@127.0.0.1;transport=$TRANSPORT>;auth_pass=carolpw;answermode=auto;regint=600;audio_codecs=pcmu,pcma" \
    > baresip/accounts
  : > baresip/contacts
  ip netns exec "$(views_ns)" baresip -f "$CASE_DIR/baresip" > baresip.log 2>&1 < /dev/null &
  local bob=$!
  local i=0
  until grep -q "200 OK" baresip.log 2>/dev/null; do
    i=$((i+1)); [ $i -gt 200 ] && { echo "baresip did not register"; cat baresip.log; stop_pid $bob; return 1; }
    kill -0 $bob 2>/dev/null || { echo "baresip exited"; cat baresip.log; return 1; }
    sleep 0.05
  done
  ip netns exec "$(views_ns)" "$sb" call sip:carol@127.0.0.1 --user alice --password alicepw \
    --registrar sip:127.0.0.1 --transport "$TRANSPORT" --register --listen 127.0.0.1:5480 \
    --duration 1 --trace --pcap alice.pcap --ladder alice.html > alice.out 2> alice.trace
  local rc=$?
  stop_pid $bob
  echo "== alice (exit $rc)"; cat alice.out
  [ $rc -eq 0 ] || { echo "the call failed"; tail -20 baresip.log; return 1; }
  local ok=0
  echo "== alice: trace / tshark / ladder"
  python3 "$HERE/views/compare.py" alice.trace alice.pcap alice.html 5060,5061 > alice.compare || ok=1
  cat alice.compare
  for m in "sent INVITE" "received 200 [0-9]* INVITE" "sent ACK" "sent BYE" "received 200 [0-9]* BYE"; do
    grep -q -- "$m" alice.compare || { echo "alice's flow lacks $m"; ok=1; }
  done
  return $ok
}

for t in udp tcp tls; do
  case_add views_kamailio views-trace-pcap-ladder switchboard $t views_call
done
for t in udp tcp; do
  case_add views_kamailio views-baresip-trace-pcap-ladder baresip $t views_baresip_call
done
