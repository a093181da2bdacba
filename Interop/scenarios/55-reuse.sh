# Connection reuse (issue 19): Switchboard over TCP and TLS with no listener of that transport (`--listen
# none`), through a Kamailio configured the stock way (peers/kamailio/kamailio-reuse.cfg: no contact
# aliasing, no Contact rewriting), with baresip as the far end. Every request the far end sends must reach
# Switchboard over the connection it opened, because its Contact names that connection:
# - baresip hangs up a call Switchboard placed: the call ends at the BYE (--duration 30, ended within 2 s of
#   the BYE by switchboard's own trace clock);
# - baresip puts that call on hold (re-INVITE) before hanging up: `remote-held` is printed;
# - baresip calls Switchboard's registered binding (`answer --listen none`), holds and hangs up: the INVITE,
#   the re-INVITE and the BYE arrive over the registration's connection, and the call ends at the BYE.
# Then Kamailio with its outbound module (RFC 5626, -A WITH_OUTBOUND): the registration uses outbound (`;ob`,
# reg-id, +sip.instance; Require: outbound in the 200), the registration's TCP connection is killed (ss -K),
# Switchboard registers again over a new one, and a call from baresip still arrives.
# Users from peers/kamailio/users.cfg: alice (switchboard call), bob (baresip callee), carol (switchboard
# answer, called by baresip alice). Ports: Kamailio 5060/5061, baresip 5270/5272 and 5290/5292 (TLS +1).

export REUSE_RUN="$OUT/kamailio-reuse"
export REUSE_OB_RUN="$OUT/kamailio-outbound"
export reuse_bpf="port 5060 or port 5061 or portrange 5270-5299"
# baresip's TLS listener needs a certificate: Kamailio routes to baresip's Contact (its listener) as it
# does to Switchboard's, with no NAT handling to send it over baresip's registration connection instead.
# Set in this file's cases only (each runs in a shell of its own).
export REUSE_BARESIP_CERT="$OUT/kamailio-reuse-baresip.pem"
cat "$CERTDIR/server.crt" "$CERTDIR/server.key" > "$REUSE_BARESIP_CERT"

group_setup_kamailio_reuse() {
  mkdir -p "$REUSE_RUN"
  RUN="$REUSE_RUN" CERTDIR="$CERTDIR" CFG=kamailio-reuse.cfg "$HERE/peers/kamailio/start.sh"
}

group_teardown_kamailio_reuse() { RUN="$REUSE_RUN" "$HERE/peers/kamailio/stop.sh"; }

group_setup_kamailio_outbound() {
  mkdir -p "$REUSE_OB_RUN"
  RUN="$REUSE_OB_RUN" CERTDIR="$CERTDIR" CFG=kamailio-reuse.cfg "$HERE/peers/kamailio/start.sh" -A WITH_OUTBOUND
}

group_teardown_kamailio_outbound() { RUN="$REUSE_OB_RUN" "$HERE/peers/kamailio/stop.sh"; }

# switchboard's transport flags: no listener of the transport (UDP on a free port once needed).
reuse_flags() {
  case ${TRANSPORT:-tcp} in
    tcp) echo "--transport tcp --listen none" ;;
    tls) echo "--transport tls --tls-ca $CERTDIR/ca.crt --listen none" ;;
  esac
}

# The time (switchboard's trace clock, seconds) of the first message whose start line matches $2 in
# direction $3 (sent|received) in trace file $1; and the local address it used.
trace_time() {
  awk -v dir="$3" -v pat="$2" '/^--- T=/ { t = substr($2, 3); d = $3; next }
       t != "" && d == dir && $0 ~ pat { print t; exit } { t = "" }' "$1"
}
trace_local() {
  awk -v dir="$3" -v pat="$2" '/^--- T=/ { l = $5; d = $3; next }
       l != "" && d == dir && $0 ~ pat { print l; exit } { l = "" }' "$1"
}
event_time() { grep -E "^T=[0-9.]+ $2" "$1" | head -n 1 | sed -E 's/^T=([0-9.]+).*/\1/'; }

# switchboard calls bob (baresip, auto-answer) for 30 s; bob puts the call on hold after $1 s (or not, for
# "-") and hangs up 2 s later. The call must end at bob's BYE, which comes over the INVITE's connection.
reuse_call_case() {
  local hold_after=$1
  export BARESIP_CERT=$REUSE_BARESIP_CERT
  baresip_up bob auto || return 1
  capture_start "$CASE_DIR/capture.pcap" "$reuse_bpf"
  local extra=""; [ "$hold_after" != - ] && extra="--put-on-hold $hold_after"
  # shellcheck disable=SC2086
  python3 "$BARESIP_DIR/bctl.py" 5292 callee $extra --hold 2 --timeout 40 > bctl.out 2> bctl.err &
  local bp=$!
  wait_for bctl.out ready || { echo "bctl did not connect"; cat bctl.err; }
  # shellcheck disable=SC2046
  "$(switchboard_bin)" call sip:bob@127.0.0.1 --user alice --password alicepw --proxy sip:127.0.0.1 \
    $(reuse_flags) --trace --duration 30 > events.out 2> trace.out
  local rc=$?
  wait $bp; local brc=$?
  baresip_down bob
  calls_finish; cat bctl.err
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; return 1; }
  [ $brc -eq 0 ] || { echo "baresip did not hang up cleanly"; return 1; }
  expect_event events.out 'connected codec=' && expect_event events.out 'ended reason=remoteEnded' || return 1
  # The INVITE's Contact names its connection: 127.0.0.1 with a port.
  grep -Eq '^Contact: <sips?:alice@127\.0\.0\.1:[0-9]+' trace.out || { echo "no Contact with a port"; return 1; }
  local sent_on bye_on bye ended connected
  sent_on=$(trace_local trace.out '^INVITE ' sent); bye_on=$(trace_local trace.out '^BYE ' received)
  [ -n "$bye_on" ] || { echo "no BYE received"; return 1; }
  [ "$sent_on" = "$bye_on" ] || { echo "INVITE left on $sent_on, BYE came on $bye_on"; return 1; }
  bye=$(trace_time trace.out '^BYE ' received); ended=$(event_time events.out ended); connected=$(event_time events.out connected)
  echo "connected T=$connected, BYE received T=$bye, ended T=$ended (--duration 30)"
  awk -v b="$bye" -v e="$ended" -v c="$connected" 'BEGIN { exit !(e - b < 2 && e - c < 15) }' \
    || { echo "the call did not end at the BYE"; return 1; }
  if [ "$hold_after" != - ]; then
    expect_event events.out 'remote-held' || return 1
    local reinvite_on; reinvite_on=$(trace_local trace.out '^INVITE ' received)
    [ "$reinvite_on" = "$sent_on" ] || { echo "re-INVITE came on $reinvite_on, not $sent_on"; return 1; }
  fi
}

reuse_far_end_hangs_up() { reuse_call_case -; }
reuse_far_end_holds() { reuse_call_case 1; }

# switchboard answer registers carol with no listener of the transport (--duration 30); baresip alice calls
# carol through Kamailio, which sends the INVITE to the registered Contact, puts the call on hold after 1 s
# (re-INVITE) and hangs up 2 s later (BYE). Each must arrive over the registration's connection, and the call
# end at the BYE. $1 = "cut": the outbound group's case, which first kills the registration's connection.
reuse_answer_case() {
  local cut=$1
  export BARESIP_CERT=$REUSE_BARESIP_CERT
  # shellcheck disable=SC2046
  "$(switchboard_bin)" answer --registrar sip:127.0.0.1 --user carol --password carolpw $(reuse_flags) --trace \
    --auto-answer --count 1 --duration 30 > events.out 2> trace.out < /dev/null &
  local ap=$!
  wait_for events.out "registered expires" || { cat events.out; tail -40 trace.out; stop_pid $ap; return 1; }
  local reg_on; reg_on=$(trace_local trace.out '^REGISTER ' sent)
  if [ "$cut" = cut ]; then
    grep -q ';ob' trace.out && grep -q 'reg-id=1' trace.out && grep -q '+sip.instance' trace.out \
      || { echo "the REGISTER did not ask for outbound"; stop_pid $ap; return 1; }
    awk '/^SIP\/2.0 200/,/^$/' trace.out | grep -Eiq '^(Require|Supported):.*outbound' \
      || { echo "the 200 did not say outbound"; stop_pid $ap; return 1; }
    # Kill the registration's connection (both ends see it end) and wait for the new registration.
    local port=${reg_on##*:}
    ss -K "( sport = :$port )" > /dev/null 2>&1 || { echo "ss -K failed"; stop_pid $ap; return 1; }
    local i=0
    until [ "$(grep -c 'registered expires' events.out)" -ge 2 ]; do
      i=$((i+1)); [ $i -gt 300 ] && { echo "no registration after the cut"; cat events.out; stop_pid $ap; return 1; }
      sleep 0.05
    done
    local again
    again=$(awk '/^--- T=/ { l = $5; d = $3; next } l != "" && d == "sent" && /^REGISTER / { last = l } { l = "" }
      END { print last }' trace.out)
    echo "registered on $reg_on, again on $again after the cut"
    [ "$again" != "$reg_on" ] || { echo "no new connection"; stop_pid $ap; return 1; }
    reg_on=$again
  fi
  baresip_up alice auto || { stop_pid $ap; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$reuse_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5272 dial "$(baresip_target carol)" --put-on-hold 1 --hold 2 --timeout 40 2> bctl.err
  local brc=$?
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local rc; if kill -0 $ap 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $ap; rc=1; else wait $ap; rc=$?; fi
  baresip_down alice
  calls_finish; cat bctl.err
  [ $brc -eq 0 ] || { echo "baresip's call failed"; return 1; }
  [ $rc -eq 0 ] || { echo "switchboard answer exited $rc"; return 1; }
  expect_event events.out 'incoming from=sip:alice@127.0.0.1' && expect_event events.out 'connected codec=' \
    && expect_event events.out 'remote-held' && expect_event events.out 'ended reason=remoteEnded' || return 1
  local invite_on reinvite_on bye_on
  invite_on=$(trace_local trace.out '^INVITE ' received)
  reinvite_on=$(awk '/^--- T=/ { l = $5; d = $3; next } l != "" && d == "received" && /^INVITE / { n++; if (n == 2) { print l; exit } }
    { l = "" }' trace.out)
  bye_on=$(trace_local trace.out '^BYE ' received)
  echo "registered on $reg_on; INVITE came on $invite_on, re-INVITE on $reinvite_on, BYE on $bye_on"
  [ "$invite_on" = "$reg_on" ] && [ "$reinvite_on" = "$reg_on" ] && [ "$bye_on" = "$reg_on" ] \
    || { echo "a request did not come over the registration's connection"; return 1; }
  local bye ended connected
  bye=$(trace_time trace.out '^BYE ' received); ended=$(event_time events.out ended); connected=$(event_time events.out connected)
  echo "connected T=$connected, BYE received T=$bye, ended T=$ended (--duration 30)"
  awk -v b="$bye" -v e="$ended" -v c="$connected" 'BEGIN { exit !(e - b < 2 && e - c < 15) }' \
    || { echo "the call did not end at the BYE"; return 1; }
}

reuse_incoming_to_binding() { reuse_answer_case ""; }
reuse_outbound_flow_recovery() { reuse_answer_case cut; }

# Over TLS the far end of a call Switchboard places is a second Switchboard (`answer` registered as carol over
# TLS with no listener): baresip 1.0.0 (libre 1.1.0) sends no BYE and no re-INVITE in a dialog whose route is
# `sips:` (checked with kamailio.cfg and a TLS listener too), and a TLS call from Switchboard is `sips:` end to
# end. The far end holds 1 s after the answer, resumes 1 s later and hangs up at 4 s; Kamailio routes the
# re-INVITEs and the BYE to the caller's Contact, which must name the connection the INVITE left on.
reuse_tls_call_case() {
  # shellcheck disable=SC2046
  "$(switchboard_bin)" answer --registrar sips:127.0.0.1 --user carol --password carolpw $(reuse_flags) \
    --auto-answer --count 1 --duration 4 --hold-after 1 --hold-for 1 > far.out 2> far.err < /dev/null &
  local ap=$!
  wait_for far.out "registered expires" || { cat far.out far.err; stop_pid $ap; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$reuse_bpf"
  # shellcheck disable=SC2046
  "$(switchboard_bin)" call sips:carol@127.0.0.1 --user alice --password alicepw --proxy sips:127.0.0.1 \
    $(reuse_flags) --trace --duration 30 > events.out 2> trace.out
  local rc=$?
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local arc; if kill -0 $ap 2>/dev/null; then echo "--count 1 did not stop the far end"; stop_pid $ap; arc=1; else wait $ap; arc=$?; fi
  calls_finish
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; cat events.out; return 1; }
  [ $arc -eq 0 ] || { echo "the far end exited $arc"; cat far.out; return 1; }
  expect_event events.out 'connected codec=' && expect_event events.out 'remote-held' \
    && expect_event events.out 'ended reason=remoteEnded' || return 1
  grep -Eq '^Contact: <sips:alice@127\.0\.0\.1:[0-9]+' trace.out || { echo "no sips: Contact with a port"; return 1; }
  local sent_on reinvite_on bye_on
  sent_on=$(trace_local trace.out '^INVITE ' sent)
  reinvite_on=$(trace_local trace.out '^INVITE ' received)
  bye_on=$(trace_local trace.out '^BYE ' received)
  echo "INVITE left on $sent_on; re-INVITE came on $reinvite_on, BYE on $bye_on"
  [ -n "$bye_on" ] && [ "$reinvite_on" = "$sent_on" ] && [ "$bye_on" = "$sent_on" ] \
    || { echo "a request from the far end did not come over the INVITE's connection"; return 1; }
  local bye ended connected
  bye=$(trace_time trace.out '^BYE ' received); ended=$(event_time events.out ended); connected=$(event_time events.out connected)
  echo "connected T=$connected, BYE received T=$bye, ended T=$ended (--duration 30)"
  awk -v b="$bye" -v e="$ended" -v c="$connected" 'BEGIN { exit !(e - b < 2 && e - c < 15) }' \
    || { echo "the call did not end at the BYE"; return 1; }
}

# Outbound over UDP (RFC 5626 §4.4.2): switchboard registers carol over UDP; the 200 confirms outbound with
# Flow-Timer: 10, so a STUN Binding request goes from switchboard's SIP port to Kamailio's 5060 every 8-10 s
# and Kamailio's stun module answers it on the same port. Over 14 s: at least one request and one success
# response with XOR-MAPPED-ADDRESS naming switchboard's port, every request answered, and no second
# registration (an unanswered keep-alive or a changed mapped address would register again at once, §4.5).
reuse_outbound_udp_stun() {
  local port=5384
  capture_start "$CASE_DIR/capture.pcap" "udp port 5060" || return 1
  "$(switchboard_bin)" register --registrar sip:127.0.0.1 --user carol --password carolpw \
    --listen "127.0.0.1:$port" --duration 14 --trace > events.out 2> trace.out < /dev/null
  local rc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  cat events.out
  [ $rc -eq 0 ] || { echo "switchboard register exited $rc"; tail -40 trace.out; return 1; }
  grep -q ';ob' trace.out && grep -q 'reg-id=1' trace.out && grep -q '+sip.instance' trace.out \
    || { echo "the REGISTER did not ask for outbound"; return 1; }
  awk '/^SIP\/2.0 200/,/^$/' trace.out | grep -Eiq '^(Require|Supported):.*outbound' \
    || { echo "the 200 did not say outbound"; return 1; }
  awk '/^SIP\/2.0 200/,/^$/' trace.out | grep -Eiq '^Flow-Timer: *10' || { echo "no Flow-Timer: 10 in the 200"; return 1; }
  local requests answers mapped
  requests=$(tshark -r "$CASE_DIR/capture.pcap" -Y "stun.type == 0x0001 && udp.srcport == $port && udp.dstport == 5060" \
    -T fields -e frame.number 2>/dev/null | wc -l)
  answers=$(tshark -r "$CASE_DIR/capture.pcap" -Y "stun.type == 0x0101 && udp.srcport == 5060 && udp.dstport == $port" \
    -T fields -e frame.number 2>/dev/null | wc -l)
  mapped=$(tshark -r "$CASE_DIR/capture.pcap" -Y "stun.type == 0x0101 && udp.dstport == $port" \
    -T fields -e stun.att.port-xord 2>/dev/null | sort -u | while read -r x; do [ -n "$x" ] && echo $((0x$x ^ 0x2112)); done | paste -sd,)
  echo "STUN keep-alives from :$port to Kamailio's 5060: $requests requests, $answers success responses, mapped port(s) $mapped"
  [ "$requests" -ge 1 ] || { echo "no STUN keep-alive over the UDP flow"; return 1; }
  [ "$answers" -eq "$requests" ] || { echo "not every keep-alive was answered"; return 1; }
  [ "$mapped" = "$port" ] || { echo "the mapped port is not switchboard's"; return 1; }
  [ "$(grep -c 'registered expires' events.out)" -eq 1 ] || { echo "the flow was registered again: it failed"; return 1; }
}

case_add kamailio_reuse reuse-far-end-hangs-up baresip tcp reuse_far_end_hangs_up
case_add kamailio_reuse reuse-far-end-holds baresip tcp reuse_far_end_holds
case_add kamailio_reuse reuse-far-end-holds-and-hangs-up switchboard tls reuse_tls_call_case
for t in tcp tls; do
  case_add kamailio_reuse reuse-incoming-to-binding baresip $t reuse_incoming_to_binding
done
case_add kamailio_outbound reuse-outbound-flow-recovery baresip tcp reuse_outbound_flow_recovery
case_add kamailio_outbound reuse-outbound-udp-stun-keepalive kamailio udp reuse_outbound_udp_stun
