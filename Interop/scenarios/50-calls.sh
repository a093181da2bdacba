# Calls through Kamailio (registrar and record-routing proxy with digest auth, its own start for this group):
# `switchboard call` to a registered baresip that auto-answers, and baresip to a registered
# `switchboard answer --auto-answer`; hang-up from each side; busy (486) both ways; decline (603) both ways:
# to switchboard call from a sipp UAS registered behind Kamailio (baresip 1.0.0's ctrl_tcp can only reject
# with 486), from switchboard answer on a terminal (script(1)) answering "n".
# Users from peers/kamailio/users.cfg: alice (caller), bob (callee), carol (switchboard answer).
# Ports: baresip 5270/5272 (alice) and 5290/5292 (bob), sipp 5565; switchboard takes any free port (--listen
# 127.0.0.1:0): other runs on this machine take free pairs anywhere in 5400-5499, so a fixed one collides.

export KAMAILIO_CALLS_RUN="$OUT/kamailio-calls"
export BARESIP_DIR="$HERE/peers/baresip"

group_setup_kamailio_calls() {
  mkdir -p "$KAMAILIO_CALLS_RUN"
  RUN="$KAMAILIO_CALLS_RUN" CERTDIR="$CERTDIR" "$HERE/peers/kamailio/start.sh"
}

group_teardown_kamailio_calls() {
  RUN="$KAMAILIO_CALLS_RUN" "$HERE/peers/kamailio/stop.sh"
}

export calls_bpf="port 5060 or port 5061 or portrange 5270-5299 or port 5565"

# A baresip for this case: $1 = user, $2 = answermode (auto|manual), over the case's transport ($TRANSPORT:
# udp, tcp, tls). Alice on 5270, bob on 5290 (TLS on port+1).
baresip_up() {
  local user=$1 mode=$2 sp=5290 rtp=16100
  [ "$user" = alice ] && { sp=5270; rtp=16000; }
  "$BARESIP_DIR/mkconf.sh" "$CASE_DIR/$user" "$user" "${user}pw" $sp $((sp+2)) $rtp "$mode" "${TRANSPORT:-udp}" \
    && "$BARESIP_DIR/start.sh" "$CASE_DIR/$user"
}

baresip_down() { "$BARESIP_DIR/stop.sh" "$CASE_DIR/$1"; }

# The transport flags of switchboard for the case's transport: none for UDP; --transport tcp; for TLS the run's
# CA (Kamailio's certificate is for 127.0.0.1) and a certificate to listen on TLS.
sb_transport_flags() {
  case ${TRANSPORT:-udp} in
    tcp) echo "--transport tcp" ;;
    tls) echo "--transport tls --tls-ca $CERTDIR/ca.crt --tls-cert $CERTDIR/server.crt --tls-key $CERTDIR/server.key" ;;
  esac
}

# The URI baresip dials to reach $1 through Kamailio over the case's transport.
baresip_target() {
  case ${TRANSPORT:-udp} in
    udp) echo "sip:$1@127.0.0.1" ;;
    tcp) echo "sip:$1@127.0.0.1;transport=tcp" ;;
    tls) echo "sip:$1@127.0.0.1:5061;transport=tls" ;;
  esac
}

# The SIP messages of the case as text: the capture's for UDP and TCP, switchboard's --trace for TLS (encrypted on
# the wire).
calls_sip_text() { if [ "${TRANSPORT:-udp}" = tls ]; then grep -E '^(SIP/2.0 [0-9]|[A-Z]+ sips?:)' trace.out; else cat capture.txt; fi; }

sb_call() {
  # shellcheck disable=SC2046
  "$(switchboard_bin)" call "$1" --user alice --password alicepw --proxy sip:127.0.0.1 --listen 127.0.0.1:0 \
    $(sb_transport_flags) --trace "${@:2}" > events.out 2> trace.out
}

# The flags of `switchboard answer` registered as carol (a string: cases see exported variables, not arrays).
# Start it directly in the background, never through a function: `f &` backgrounds a subshell. Cases add
# $(sb_transport_flags).
export ANSWER_FLAGS="--registrar sip:127.0.0.1 --user carol --password carolpw --listen 127.0.0.1:0 --trace"

calls_finish() {
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  echo "--- events"; cat events.out 2>/dev/null
}

# The line for one event, or failure: expect_event FILE REGEX.
expect_event() { grep -Eq "$2" "$1" || { echo "no event line matching /$2/ in $1"; return 1; }; }

# Which response switchboard received first, a 180/183 or a 2xx (by its --trace in $1): 180, 2xx or none.
first_of_180_or_2xx() {
  awk '/ received / { start = 1; next }
       start && /^SIP\/2\.0 18[03] / { print "180"; found = 1; exit }
       start && /^SIP\/2\.0 2[0-9][0-9] / { print "2xx"; found = 1; exit }
       { start = 0 }
       END { if (!found) print "none" }' "$1"
}

# switchboard calls bob (baresip, auto-answer), stays 1 s, hangs up: exit 0, ended reason=localEnded.
call_to_baresip_caller_hangs_up() {
  baresip_up bob auto || return 1
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  sb_call sip:bob@127.0.0.1 --duration 1
  local rc=$?
  baresip_down bob
  calls_finish
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; return 1; }
  expect_event events.out '^T=[0-9.]+ trying' && expect_event events.out 'connected codec=(PCMU|PCMA)' && expect_event events.out 'ended reason=localEnded' \
    && expect_event events.out 'summary reason=localEnded' || return 1
  # baresip sends 180 before 200, but Kamailio's two UDP workers may forward them in either order: a 180
  # that arrives after the 200 is stale and rightly not reported, one that arrives before must be.
  if [ "$(first_of_180_or_2xx trace.out)" = 180 ]; then
    expect_event events.out 'ringing status=18[03]' || return 1
  fi
  # The INVITE was challenged by Kamailio (407) and the BYE answered 200.
  calls_sip_text > sip.txt
  grep -q '407' sip.txt && grep -q 'BYE' sip.txt
}

# baresip bob hangs up 1 s after answering (before switchboard's --duration 10): exit 0, reason=remoteEnded.
call_to_baresip_callee_hangs_up() {
  baresip_up bob auto || return 1
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5292 callee --hold 1 --timeout 15 > bctl.out 2> bctl.err &
  local bp=$!
  wait_for bctl.out ready || { echo "bctl did not connect"; cat bctl.err; }
  sb_call sip:bob@127.0.0.1 --duration 10
  local rc=$?
  wait $bp; local brc=$?
  baresip_down bob
  calls_finish; cat bctl.err
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; return 1; }
  [ $brc -eq 0 ] || { echo "baresip did not hang up cleanly"; return 1; }
  expect_event events.out 'connected codec=' && expect_event events.out 'ended reason=remoteEnded'
}

# baresip bob rejects the call (manual answer mode, hangup while ringing): switchboard call exits 1 with
# ended reason=failed status=486 (baresip's phrase is "Rejected").
call_to_baresip_busy() {
  baresip_up bob manual || return 1
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5292 callee --reject --timeout 15 > bctl.out 2> bctl.err &
  local bp=$!
  wait_for bctl.out ready || { echo "bctl did not connect"; cat bctl.err; }
  sb_call sip:bob@127.0.0.1 --duration 1
  local rc=$?
  wait $bp
  baresip_down bob
  calls_finish; cat bctl.err
  [ $rc -eq 1 ] || { echo "expected exit 1, got $rc"; return 1; }
  expect_event events.out 'ended reason=failed status=486 phrase=' && ! grep -q '^T=[0-9.]* connected' events.out
}

# A sipp UAS registered as bob behind Kamailio declines with 603: exit 1, ended reason=declinedElsewhere
# status=603 phrase="Decline".
call_declined_603() {
  sed -e 's/__STATUS__/603/' -e 's/__PHRASE__/Decline/' "$SIPP_DIR/uas_reject_via_proxy.xml" > scenario.xml
  kamcmd -s "unix:$KAMAILIO_CALLS_RUN/kamailio_ctl" ul.add location bob "sip:bob@127.0.0.1:5565" 60 1.0 s:0 0 0 \
    4294967295 || return 1
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  sipp -sf scenario.xml -p 5565 -m 1 -i 127.0.0.1 -nostdin -nd -timeout 20s -trace_err -error_file sipp.err \
    > sipp.out 2>&1 &
  local sp=$!
  wait_udp_port 5565 || { echo "sipp did not bind 5565:"; cat sipp.out; }
  sb_call sip:bob@127.0.0.1 --duration 1
  local rc=$?
  local i=0; while kill -0 $sp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  stop_pid $sp; wait $sp 2>/dev/null
  kamcmd -s "unix:$KAMAILIO_CALLS_RUN/kamailio_ctl" ul.rm location bob >/dev/null 2>&1
  calls_finish
  grep -q "Successful call *| *[0-9]* *| *1" sipp.out || { echo "sipp's checks failed"; cat sipp.err; return 1; }
  [ $rc -eq 1 ] || { echo "expected exit 1, got $rc"; return 1; }
  expect_event events.out 'ended reason=declinedElsewhere status=603 phrase=Decline'
}

# baresip alice calls carol = switchboard answer --auto-answer --count 1; alice hangs up after 1 s.
answer_from_baresip_caller_hangs_up() {
  # shellcheck disable=SC2046
  "$(switchboard_bin)" answer $ANSWER_FLAGS $(sb_transport_flags) --auto-answer --count 1 > events.out 2> trace.out \
    < /dev/null &
  local ap=$!
  wait_for events.out "registered expires" || { cat events.out trace.out; stop_pid $ap; return 1; }
  baresip_up alice auto || { stop_pid $ap; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5272 dial "$(baresip_target carol)" --hold 1 --timeout 15 2> bctl.err
  local brc=$?
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local rc; if kill -0 $ap 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $ap; rc=1; else wait $ap; rc=$?; fi
  baresip_down alice
  calls_finish; cat bctl.err
  [ $brc -eq 0 ] || { echo "baresip's call failed"; return 1; }
  [ $rc -eq 0 ] || { echo "switchboard answer exited $rc"; return 1; }
  expect_event events.out 'incoming from=sip:alice@127.0.0.1' && expect_event events.out 'connected codec=' \
    && expect_event events.out 'ended reason=remoteEnded' && expect_event events.out 'unregistered'
}

# switchboard answer hangs up after --duration 1; baresip sees the BYE.
answer_from_baresip_callee_hangs_up() {
  "$(switchboard_bin)" answer $ANSWER_FLAGS --auto-answer --count 1 --duration 1 > events.out 2> trace.out \
    < /dev/null &
  local ap=$!
  wait_for events.out "registered expires" || { cat events.out trace.out; stop_pid $ap; return 1; }
  baresip_up alice auto || { stop_pid $ap; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5272 dial sip:carol@127.0.0.1 --expect-closed-by-remote --timeout 15 2> bctl.err
  local brc=$?
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  local rc; if kill -0 $ap 2>/dev/null; then echo "--count 1 did not stop it"; stop_pid $ap; rc=1; else wait $ap; rc=$?; fi
  baresip_down alice
  calls_finish; cat bctl.err
  [ $brc -eq 0 ] || { echo "baresip did not see the hang-up"; return 1; }
  [ $rc -eq 0 ] || { echo "switchboard answer exited $rc"; return 1; }
  expect_event events.out 'connected codec=' && expect_event events.out 'ended reason=localEnded'
}

# switchboard answer without --auto-answer and without a terminal rejects with 486 Busy Here; a clean
# signal stop exits 0.
answer_from_baresip_busy() {
  "$(switchboard_bin)" answer $ANSWER_FLAGS > events.out 2> trace.out < /dev/null &
  local ap=$!
  wait_for events.out "registered expires" || { cat events.out trace.out; stop_pid $ap; return 1; }
  baresip_up alice auto || { stop_pid $ap; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5272 dial sip:carol@127.0.0.1 --expect-reject 486 --timeout 15 2> bctl.err
  local brc=$?
  kill -TERM $ap
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  kill -0 $ap 2>/dev/null && { echo "switchboard answer ignored SIGTERM"; stop_pid $ap; }
  wait $ap; local rc=$?
  baresip_down alice
  calls_finish; cat bctl.err
  [ $brc -eq 0 ] || { echo "baresip did not see 486"; return 1; }
  [ $rc -eq 0 ] || { echo "switchboard answer exited $rc after a signal"; return 1; }
  expect_event events.out 'ended reason=localEnded status=486 phrase="Busy Here"'
}

# switchboard answer on a terminal (script(1) gives it a pty) asks; "n" declines with 603 Decline. A declined
# call is not one it took, so --count 1 does not stop it: a SIGTERM does, and that is a clean stop (exit 0).
answer_from_baresip_decline() {
  mkfifo tty.in || return 1
  # exec: script(1) runs the command through $SHELL -c (or /bin/sh, which forks and waits), and the
  # signal below must reach switchboard itself, not a shell that dies of it.
  script -qfec "exec $(switchboard_bin) answer $ANSWER_FLAGS --count 1" /dev/null < tty.in > tty.out 2>&1 &
  local sp=$!
  exec 3> tty.in
  wait_for tty.out "registered expires" || { cat tty.out; exec 3>&-; stop_pid $sp; return 1; }
  baresip_up alice auto || { exec 3>&-; stop_pid $sp; return 1; }
  capture_start "$CASE_DIR/capture.pcap" "$calls_bpf"
  python3 "$BARESIP_DIR/bctl.py" 5272 dial sip:carol@127.0.0.1 --expect-reject 603 --timeout 15 2> bctl.err &
  local bp=$!
  wait_for tty.out 'y/N' && echo n >&3
  wait $bp; local brc=$?
  local child what=""; child=$(pgrep -P $sp)
  # What got the signal and whether it catches SIGTERM (bit 15 of SigCgt), for the failure message.
  [ -n "$child" ] && what=" $(cat /proc/$child/comm 2>/dev/null) SigCgt=$(awk '/^SigCgt/ {print $2}' /proc/$child/status 2>/dev/null)"
  [ -n "$child" ] && kill -TERM $child
  local i=0; while kill -0 $sp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  exec 3>&-
  local late=""
  kill -0 $sp 2>/dev/null && { late=" (still running 5 s after SIGTERM)"; stop_pid $sp; }
  wait $sp; local rc=$?
  baresip_down alice
  tr -d '\r' < tty.out > events.out
  calls_finish; cat bctl.err
  [ $brc -eq 0 ] || { echo "baresip did not see 603"; return 1; }
  [ $rc -eq 0 ] || { echo "switchboard answer (pid ${child:-none}$what) exited $rc after a signal$late"; return 1; }
  expect_event events.out 'ended reason=localEnded status=603 phrase="?Decline'
}

case_add kamailio_calls call-to-baresip-caller-hangs-up baresip udp call_to_baresip_caller_hangs_up
case_add kamailio_calls call-to-baresip-callee-hangs-up baresip udp call_to_baresip_callee_hangs_up
case_add kamailio_calls call-to-baresip-busy-486 baresip udp call_to_baresip_busy
case_add kamailio_calls call-declined-603 sipp udp call_declined_603
case_add kamailio_calls answer-baresip-caller-hangs-up baresip udp answer_from_baresip_caller_hangs_up
case_add kamailio_calls answer-baresip-callee-hangs-up baresip udp answer_from_baresip_callee_hangs_up
case_add kamailio_calls answer-baresip-busy-486 baresip udp answer_from_baresip_busy
case_add kamailio_calls answer-baresip-decline-603 baresip udp answer_from_baresip_decline
# The same calls over TCP and TLS (switchboard, baresip and Kamailio all on the one transport).
for t in tcp tls; do
  case_add kamailio_calls call-to-baresip-caller-hangs-up baresip $t call_to_baresip_caller_hangs_up
  case_add kamailio_calls answer-baresip-caller-hangs-up baresip $t answer_from_baresip_caller_hangs_up
done
