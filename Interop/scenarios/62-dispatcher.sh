# More than one process (issue 17): Kamailio's dispatcher (peers/kamailio/dispatcher.cfg, UDP 5490) in
# front of three `switchboard answer --media off` processes on 5491-5493, each probed with OPTIONS every
# second; `switchboard load --media off` calls through it. Round-robin spreads the calls; when one
# answerer is killed (SIGKILL, by PID) mid-run, INVITEs to it time out after 1.5 s and go to the next one
# (ds_next_dst), so no call fails, and its probes mark it inactive. Loopback only, no RTP.

dispatcher_run() { echo "$OUT/kamailio-dispatcher"; }

group_setup_dispatcher() {
  local run; run=$(dispatcher_run)
  mkdir -p "$run"
  printf '1 sip:127.0.0.1:5491\n1 sip:127.0.0.1:5492\n1 sip:127.0.0.1:5493\n' > "$run/dispatcher.list"
  kamailio -f "$ROOT/Interop/peers/kamailio/dispatcher.cfg" -DD -E -P "$run/kamailio.pid" -m 64 -M 8 \
    --substdef="!__RUNDIR__!$run!g" --substdef="!__DSLIST__!$run/dispatcher.list!g" > "$run/kamailio.log" 2>&1 &
  echo $! > "$run/kamailio.main.pid"
  local i=0
  until kamcmd -s "unix:$run/kamailio_ctl" core.uptime >/dev/null 2>&1; do
    i=$((i+1)); [ $i -gt 200 ] && { log "kamailio (dispatcher) did not start"; tail -5 "$run/kamailio.log" >&2; return 1; }
    sleep 0.05
  done
}

group_teardown_dispatcher() {
  local run; run=$(dispatcher_run)
  [ -f "$run/kamailio.main.pid" ] && stop_pid "$(cat "$run/kamailio.main.pid")"
  rm -f "$run/kamailio.main.pid"
}

# Starts the three answerers and waits until the dispatcher sees all three active.
dispatcher_start_answerers() {
  local n
  for n in 1 2 3; do
    "$ROOT/.build/debug/switchboard" answer --auto-answer --quiet --media off --listen "127.0.0.1:549$n" \
      > "answer$n.out" 2> "answer$n.err" &
    echo $! > "answer$n.pid"
  done
  local run i=0; run=$(dispatcher_run)
  until [ "$(kamcmd -s "unix:$run/kamailio_ctl" dispatcher.list 2>/dev/null | grep -c 'FLAGS: AP')" -eq 3 ]; do
    i=$((i+1)); [ $i -gt 100 ] && { kamcmd -s "unix:$run/kamailio_ctl" dispatcher.list; return 1; }
    sleep 0.1
  done
}

# Stops answerer N (SIGINT: it prints its totals) and prints its calls and failures.
dispatcher_stop_answerer() {
  local pid; pid=$(cat "answer$1.pid")
  kill -INT "$pid" 2>/dev/null
  local i=0; while kill -0 "$pid" 2>/dev/null; do i=$((i+1)); [ $i -gt 100 ] && { stop_pid "$pid"; break; }; sleep 0.05; done
  wait "$pid" 2>/dev/null
}

dispatcher_calls() { grep -Eo "totals calls=[0-9]+" "answer$1.out" | tail -1 | sed 's/.*=//'; }

dispatcher_spread() {
  dispatcher_start_answerers || return 1
  "$ROOT/.build/debug/switchboard" load sip:service@127.0.0.1:5490 --user load@127.0.0.1 --listen 127.0.0.1:5494 \
    --media off --rate 60 --calls 300 --concurrent 100 > load.out 2>&1
  local rc=$? n total=0
  for n in 1 2 3; do dispatcher_stop_answerer $n; done
  cat load.out
  for n in 1 2 3; do echo "answerer $n: $(dispatcher_calls $n) calls"; done
  [ $rc -eq 0 ] && grep -q "load-summary started=300 connected=300 ended=300 failed=0" load.out || return 1
  for n in 1 2 3; do
    local calls; calls=$(dispatcher_calls $n)
    [ -n "$calls" ] && [ "$calls" -ge 60 ] || { echo "answerer $n took fewer than 20%"; return 1; }
    total=$((total + calls))
  done
  [ "$total" -eq 300 ] || { echo "the answerers counted $total calls"; return 1; }
}

dispatcher_failover() {
  dispatcher_start_answerers || return 1
  "$ROOT/.build/debug/switchboard" load sip:service@127.0.0.1:5490 --user load@127.0.0.1 --listen 127.0.0.1:5494 \
    --media off --rate 50 --calls 400 --concurrent 100 --stats 1 > load.out 2>&1 &
  local load=$!
  sleep 3
  kill -KILL "$(cat answer2.pid)"; wait "$(cat answer2.pid)" 2>/dev/null
  local killed; killed=$(date +%s.%N)
  # Marked inactive (by a probe or an INVITE that timed out) within two probe intervals plus the 1.5 s a
  # request waits for its answer.
  local run i=0; run=$(dispatcher_run)
  until kamcmd -s "unix:$run/kamailio_ctl" dispatcher.list 2>/dev/null | grep -A1 "URI: sip:127.0.0.1:5492" |
    grep -q "FLAGS: I"; do
    i=$((i+1)); [ $i -gt 100 ] && break
    sleep 0.05
  done
  local marked; marked=$(date +%s.%N)
  wait $load; local rc=$?
  dispatcher_stop_answerer 1; dispatcher_stop_answerer 3
  cat load.out
  echo "answerer 1: $(cat answer1.out | tail -1)"; echo "answerer 3: $(cat answer3.out | tail -1)"
  awk -v a="$killed" -v b="$marked" 'BEGIN { printf "marked inactive %.2f s after the kill\n", b - a; exit !(b - a <= 3.5) }' || return 1
  [ $rc -eq 0 ] && grep -q "load-summary started=400 connected=400 ended=400 failed=0" load.out || return 1
  grep -q "totals calls=[0-9]* failed=0" answer1.out && grep -q "totals calls=[0-9]* failed=0" answer3.out
}

case_add dispatcher dispatcher-spread kamailio udp dispatcher_spread
case_add dispatcher dispatcher-failover kamailio udp dispatcher_failover
