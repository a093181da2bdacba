# Push wake-up (issue 18, RFC 8599) through a real proxy: Kamailio with tsilo (Interop/peers/kamailio/
# push.cfg) keeps the INVITE for a binding with push parameters, sends a push to the suite's stand-in for
# APNs (Interop/push/push-service.py, an HTTP listener: APNs cannot be reached here), and appends the
# woken device's new registration to the kept INVITE. The device is Interop/push/app (public API only):
# it starts suspended (no flow) after an earlier `switchboard register --pn-...` was killed without
# unregistering, gets the payload on stdin from the stand-in, calls reportPushPayload, registers again and
# receives the INVITE. The caller is `switchboard call` through Kamailio. UDP on 127.0.0.1, ports
# 5460 (Kamailio), 5469 (push service), 5470 (device), 5480 (caller); RTP 17600-17799.

push_run() { echo "$OUT/kamailio-push"; }

group_setup_push() {
  (cd "$ROOT" && swift build --product push-app >/dev/null) || return 1
  local run; run=$(push_run)
  mkdir -p "$run"
  kamailio -f "$ROOT/Interop/peers/kamailio/push.cfg" -DD -E -P "$run/kamailio.pid" -m 64 -M 8 \
    --substdef="!__RUNDIR__!$run!g" --substdef="!__PUSHURL__!http://127.0.0.1:5469/push!g" \
    > "$run/kamailio.log" 2>&1 &
  echo $! > "$run/kamailio.main.pid"
  local i=0
  until kamcmd -s "unix:$run/kamailio_ctl" core.uptime >/dev/null 2>&1; do
    i=$((i+1)); [ $i -gt 200 ] && { log "kamailio (push) did not start"; tail -5 "$run/kamailio.log" >&2; return 1; }
    sleep 0.05
  done
}

group_teardown_push() {
  local run; run=$(push_run)
  [ -f "$run/kamailio.main.pid" ] && stop_pid "$(cat "$run/kamailio.main.pid")"
  rm -f "$run/kamailio.main.pid"
}

# Makes USER's push binding (token tok-1) with the CLI on PORT, then kills it without unregistering: the
# app is "suspended" (the woken app listens on 5470, so the old binding at 5471 reaches nobody), and only the
# push parameters can reach it.
push_bind() {
  local user=$1 port=${2:-5471}
  # Each case starts from no binding (the group's Kamailio keeps its location table across cases).
  kamcmd -s "unix:$(push_run)/kamailio_ctl" ul.rm location "$user" >/dev/null 2>&1
  "$ROOT/.build/debug/switchboard" register --user "$user@127.0.0.1" --registrar sip:127.0.0.1:5460 \
    --listen "127.0.0.1:$port" --pn-provider apns --pn-prid tok-1 --pn-param TEAM.org.switchboard.voip \
    --duration 30 > bind.out 2>&1 &
  local pid=$! i=0
  until grep -q "registered expires" bind.out 2>/dev/null; do
    i=$((i+1)); [ $i -gt 200 ] && { cat bind.out; kill -KILL $pid; return 1; }
    sleep 0.05
  done
  kill -KILL $pid; wait $pid 2>/dev/null
  grep -q "pn-prid=redacted" bind.out || { echo "the registered line shows the token"; cat bind.out; return 1; }
}

# Starts the suspended app for USER (answer mode, extra flags) and the push service feeding it.
push_start_app() {
  local user=$1 mode=$2; shift 2
  rm -f push.fifo; mkfifo push.fifo
  "$ROOT/.build/debug/push-app" --user "$user@127.0.0.1" --registrar sip:127.0.0.1:5460 --listen 127.0.0.1:5470 \
    --pn-provider apns --pn-prid tok-1 --pn-param TEAM.org.switchboard.voip --answer "$mode" --play tone:1000 \
    --record callee.wav --duration 3 "$@" < push.fifo > app.out 2> app.err &
  echo $! > app.pid
  python3 "$ROOT/Interop/push/push-service.py" 5469 push.fifo "${PUSH_TOKENS:-tok-1}" push.log &
  echo $! > service.pid
  wait_port 5469 tcp && wait_for app.out "suspended"
}

push_stop_app() {
  local i=0
  while kill -0 "$(cat app.pid)" 2>/dev/null; do i=$((i+1)); [ $i -gt 200 ] && break; sleep 0.05; done
  stop_pid "$(cat app.pid)"
  stop_pid "$(cat service.pid)"
  echo "--- app"; cat app.out; echo "--- push service"; cat push.log
}

# The caller: CLI call through Kamailio, playing 440 Hz.
push_call() {
  local user=$1; shift
  "$ROOT/.build/debug/switchboard" call "sip:$user@127.0.0.1:5460" --user alice@127.0.0.1 \
    --listen 127.0.0.1:5480 --codecs pcmu --rtp-ports 17700-17799 --play tone:440 --record caller.wav "$@" \
    > caller.out 2>&1
}

# One UUID for the whole call: the push's, the invite's, the arrived INVITE's and the connected call's.
push_one_uuid() {
  local uuids
  uuids=$(grep -Eo "^(push|invite|invite-arrived|connected|ended) uuid=[0-9A-F-]+" app.out | sed 's/.*uuid=//' | sort -u)
  [ "$(echo "$uuids" | wc -l)" -eq 1 ] || { echo "more than one call UUID: $uuids"; return 1; }
  [ "$(grep -c '^invite uuid=' app.out)" -eq 1 ] || { echo "not exactly one invite"; return 1; }
}

push_tones() {
  python3 "$HERE/media/tonecheck.py" caller.wav --expect 1000 --other 440 &&
    python3 "$HERE/media/tonecheck.py" callee.wav --expect 440 --other 1000
}

push_wake_answer() {
  push_bind bob && push_start_app bob on-arrival || return 1
  push_call bob --duration 10; local rc=$?
  push_stop_app; echo "--- caller"; cat caller.out
  [ $rc -eq 0 ] || { echo "the call failed ($rc)"; return 1; }
  grep -q "^delivered call-id=.* type=call" push.log || return 1
  grep -q "^invite-arrived uuid=.* codecs=PCMU" app.out && grep -q "^connected uuid=" app.out || return 1
  grep -q "ended reason=remoteEnded" caller.out || return 1
  push_one_uuid && push_tones
}

push_answer_before_invite() {
  push_bind bob && push_start_app bob on-push || return 1
  push_call bob --duration 10; local rc=$?
  push_stop_app; echo "--- caller"; cat caller.out
  [ $rc -eq 0 ] || { echo "the call failed ($rc)"; return 1; }
  # The answer was given on the push, before the INVITE line.
  awk '/^invite uuid=/ { i = NR } /^invite-arrived/ { a = NR } END { exit !(i > 0 && a > i) }' app.out || return 1
  grep -q "^connected uuid=" app.out && push_one_uuid && push_tones
}

# The proxy never hands the INVITE to the woken device (user nopush-forward); the caller gives up after 4 s:
# the cancel push ends the reported call as cancelled by the caller.
push_cancelled_before_invite() {
  push_bind nopush-forward && push_start_app nopush-forward on-arrival || return 1
  timeout -s INT 4 "$ROOT/.build/debug/switchboard" call "sip:nopush-forward@127.0.0.1:5460" \
    --user alice@127.0.0.1 --listen 127.0.0.1:5480 --codecs pcmu --rtp-ports 17700-17799 > caller.out 2>&1
  push_stop_app; echo "--- caller"; cat caller.out
  grep -q "^delivered call-id=.* type=cancel" push.log || return 1
  grep -q "^cancelled uuid=.* reason=unanswered" app.out || return 1
  ! grep -q "^invite-arrived" app.out
}

# The INVITE never arrives and nobody cancels: the reported call fails after the app's 4 s wait.
push_invite_never_arrives() {
  push_bind nopush-forward && push_start_app nopush-forward on-arrival --invite-timeout 4 || return 1
  timeout -s INT 7 "$ROOT/.build/debug/switchboard" call "sip:nopush-forward@127.0.0.1:5460" \
    --user alice@127.0.0.1 --listen 127.0.0.1:5480 --codecs pcmu --rtp-ports 17700-17799 > caller.out 2>&1 &
  local caller=$!
  push_stop_app
  stop_pid $caller
  grep -q "^ended uuid=.* reason=failed" app.out && ! grep -q "^invite-arrived" app.out
}

# The OS rotates the token while the app is registered (in the foreground, at the address of its earlier
# binding): the next REGISTER carries the new token and removes the old binding, so Kamailio's location
# table holds exactly one binding for bob, with tok-2; a call then reaches the app.
push_token_rotation() {
  # The app registers itself (--registered yes) and rotates its own binding: a binding from another process
  # (push_bind's CLI) has another +sip.instance, so a registrar keeps it apart (RFC 5626 §6).
  kamcmd -s "unix:$(push_run)/kamailio_ctl" ul.rm location bob >/dev/null 2>&1
  PUSH_TOKENS=tok-1,tok-2 push_start_app bob on-push --registered yes --new-token tok-2 || return 1
  wait_for app.out "^token-rotated" || { cat app.out; return 1; }
  # The new REGISTER completes after the rotation call returns: wait (bounded) until the location
  # service shows one binding, the new token's.
  local run i=0; run=$(push_run)
  until kamcmd -s "unix:$run/kamailio_ctl" ul.lookup location bob > lookup.out 2>&1 \
    && [ "$(grep -c 'pn-prid=' lookup.out)" -eq 1 ] && grep -q "pn-prid=tok-2" lookup.out; do
    i=$((i+1)); [ $i -gt 200 ] && break
    sleep 0.1
  done
  push_call bob --duration 10; local rc=$?
  push_stop_app; echo "--- caller"; cat caller.out; echo "--- ul.lookup"; cat lookup.out
  [ $rc -eq 0 ] && grep -q "^connected uuid=" app.out || return 1
  [ "$(grep -c 'pn-prid=' lookup.out)" -eq 1 ] && grep -q "pn-prid=tok-2" lookup.out
}

# A push service the proxy does not support: 555, then a binding without the push parameters.
push_unsupported_service() {
  kamcmd -s "unix:$(push_run)/kamailio_ctl" ul.rm location carol >/dev/null 2>&1
  "$ROOT/.build/debug/switchboard" register --user carol@127.0.0.1 --registrar sip:127.0.0.1:5460 \
    --listen 127.0.0.1:5472 --pn-provider examplepush --pn-prid tok-9 --duration 2 --trace > register.out 2>&1
  local rc=$?
  kamcmd -s "unix:$(push_run)/kamailio_ctl" ul.dump > dump.out 2>&1
  cat register.out
  grep -q "^SIP/2.0 555" register.out && grep -q "reg-failed status=555" register.out || return 1
  grep -q "registered expires" register.out || return 1
  # The retry's Contact has no push parameters; the token never shows.
  grep "^Contact: " register.out | tail -1 | grep -qv "pn-provider" || return 1
  ! grep -q "tok-9" register.out && [ $rc -eq 0 ]
}

case_add push push-wake-answer kamailio udp push_wake_answer
case_add push push-unsupported-service kamailio udp push_unsupported_service
case_add push push-answer-before-invite kamailio udp push_answer_before_invite
case_add push push-cancelled-before-invite kamailio udp push_cancelled_before_invite
case_add push push-invite-never-arrives kamailio udp push_invite_never_arrives
case_add push push-token-rotation kamailio udp push_token_rotation
