# sipp scenarios written for switchboard call / answer (no proxy): PBX behaviours (Asterisk 401 with opaque and
# qop, SHA-256 before MD5, FreeSWITCH 407), 100rel/PRACK, forked early dialogs, CANCEL crossing a 200,
# session-timer refresh, re-INVITE glare (491 then retry), and a 200 that is never ACKed. Each XML checks the
# headers under test with ereg / verifyauth / test actions; a case passes when sipp's one call succeeded and
# switchboard exited as CLI.md says. Ports: sipp 5570-5586, 5592 and 5593 (its SDP names 5589, where nothing
# listens); switchboard takes any free port (--listen 127.0.0.1:0): other runs on this machine take free pairs
# anywhere in 5400-5499, so a fixed one collides.

# sipp as UAS on $2, `switchboard call sip:pbx@127.0.0.1:$2` from any free port. $1 = XML; the rest = switchboard flags.
# $SIPP_EXTRA adds sipp flags, $SIPP_BPF replaces the capture filter (default: the SIP port).
# Sets SB_RC (switchboard's exit status); returns 1 if sipp's call failed.
sipp_uas_for_call() {
  local xml=$1 port=$2; shift 2
  [ "${xml#/}" = "$xml" ] && xml="$SIPP_DIR/$xml"
  capture_start "$CASE_DIR/capture.pcap" "${SIPP_BPF:-port $port}"
  # shellcheck disable=SC2086
  sipp -sf "$xml" -p "$port" -m 1 -i 127.0.0.1 -nostdin -nd -timeout 100s -trace_err -error_file sipp.err \
    -trace_msg -message_file sipp.msg ${SIPP_EXTRA:-} > sipp.out 2>&1 &
  local sp=$!
  wait_udp_port "$port" || { echo "sipp did not bind $port:"; cat sipp.out; }
  "$(switchboard_bin)" call "sip:pbx@127.0.0.1:$port" --user alice --password alicepw --listen 127.0.0.1:0 \
    --trace "$@" > events.out 2> trace.out &
  SB_PID=$!
  [ -n "${SB_HOOK:-}" ] && "$SB_HOOK"
  wait $SB_PID; SB_RC=$?
  sipp_case_done $sp 100
  grep -q "Successful call *| *[0-9]* *| *1" sipp.out || { echo "sipp's checks failed:"; cat sipp.err; return 1; }
}

# Waits up to $2 x 50 ms for sipp (PID $1) to finish and stops it, closes the capture into capture.txt and prints
# switchboard's events with its exit status ($SB_RC).
sipp_case_done() {
  local i=0; while kill -0 "$1" 2>/dev/null && [ $i -lt "$2" ]; do sleep 0.05; i=$((i+1)); done
  stop_pid "$1"
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  echo "--- events (exit $SB_RC)"; cat events.out
}

# `switchboard answer --auto-answer --count 1` on any free port, sipp as UAC from $2. $1 = XML; the rest = answer flags.
# Sets SB_RC; returns 1 if sipp's call failed.
sipp_uac_to_answer() {
  local xml=$1 port=$2; shift 2
  capture_start "$CASE_DIR/capture.pcap" "port $port"
  "$(switchboard_bin)" answer --listen 127.0.0.1:0 --auto-answer --count 1 --trace "$@" > events.out \
    2> trace.out < /dev/null &
  local ap=$!
  wait_for trace.out "listening on udp:127.0.0.1:" || { cat trace.out; stop_pid $ap; return 1; }
  local sbport; sbport=$(grep -o 'listening on udp:127.0.0.1:[0-9]*' trace.out | head -1 | sed 's/.*://')
  sipp -sf "$SIPP_DIR/$xml" -p "$port" -m 1 -i 127.0.0.1 -nostdin -nd -timeout 100s -trace_err -error_file sipp.err \
    -trace_msg -message_file sipp.msg -s sb "127.0.0.1:$sbport" > sipp.out 2>&1
  local src=$?
  local i=0; while kill -0 $ap 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  if kill -0 $ap 2>/dev/null; then stop_pid $ap; SB_RC=-1; else wait $ap; SB_RC=$?; fi
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  echo "--- events (exit $SB_RC)"; cat events.out
  [ $src -eq 0 ] || { echo "sipp exit $src:"; cat sipp.err; return 1; }
}

# Recomputes the digest (qop=auth) of the first INVITE carrying header field $1 (a tshark field) in the capture
# with hash $2 (md5|sha256) and alice's password; 0 when it matches the response sent.
digest_ok() {
  local auth
  auth=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Method == "INVITE"' -T fields -e "$1" 2>/dev/null | grep -m1 .)
  echo "$1: $auth"
  python3 - "$auth" "$2" <<'PY'
import hashlib, re, sys
f = dict(re.findall(r'(\w+)="?([^",]*)"?', sys.argv[1]))
h = lambda s: hashlib.new(sys.argv[2], s.encode()).hexdigest()
ha1 = h("%s:%s:%s" % (f["username"], f["realm"], "alicepw"))
ha2 = h("INVITE:%s" % f["uri"])
want = h(":".join([ha1, f["nonce"], f["nc"], f["cnonce"], f["qop"], ha2]))
print("expected response %s" % want)
sys.exit(0 if want == f.get("response") else 1)
PY
}

# Asterisk: 401 realm "asterisk", qop="auth", opaque echoed, digest verified; the 200's Supported,
# Session-Expires 1800 (refresher=uas), Min-SE 90, Require: timer; caller hangs up after 1 s: exit 0.
sipp_asterisk_401() {
  sipp_uas_for_call uas_asterisk_auth.xml 5570 --duration 1 || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  grep -q 'ended reason=localEnded' events.out
}

# Two WWW-Authenticate fields, SHA-256 first then MD5: the SHA-256 one is answered (RFC 8760 §2.4), and its
# digest is right (recomputed here from the capture).
sipp_sha256_first() {
  sipp_uas_for_call uas_sha256_md5.xml 5571 --duration 1 || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  digest_ok sip.Authorization sha256
}

# FreeSWITCH: 407 with realm = the domain; Proxy-Authorization with a correct digest, CSeq + 1.
sipp_freeswitch_407() {
  sipp_uas_for_call uas_freeswitch_407.xml 5572 --duration 1 || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  digest_ok sip.Proxy-Authorization md5
}

# 100rel: a reliable 180 is PRACKed with the right RAck before the 200.
sipp_prack() {
  sipp_uas_for_call uas_prack.xml 5573 --duration 1 || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  expect_event events.out 'ringing status=180' && expect_event events.out 'connected '
}

# Forked early dialogs: two 180s with different To tags, one 200; ACK and BYE go to the answering fork.
sipp_forked() {
  sipp_uas_for_call uas_forked.xml 5574 --duration 1 || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  [ "$(grep -c '^T=[0-9.]* connected' events.out)" = 1 ] || { echo "expected exactly one connected event"; return 1; }
}

# CANCEL crossing the 200: switchboard is interrupted while ringing, CANCELs, gets the 200 anyway: ACK, BYE.
cancel_after_ringing() {
  wait_for events.out "ringing status=" && sleep 0.2 && kill -INT "$SB_PID"
}
sipp_cancel_crossing() {
  SB_HOOK=cancel_after_ringing sipp_uas_for_call uas_cancel_crossing.xml 5575 || return 1
  expect_event events.out '^T=[0-9.]+ ended ' || return 1
  grep -q 'CANCEL' capture.txt || { echo "no CANCEL on the wire"; return 1; }
}

# Session timer: the caller refreshes at half the interval: between SE/2 - 1 and SE/2 + 1 s after the 200.
# $1 = Session-Expires in the 200, $2 = the refresh method sipp expects, $3 = XML.
session_refresh_case() {
  local se=$1 method=$2 xml=$3 port=$4 half=$(( $1 / 2 ))
  sed -e "s/__SE__/$se/g" -e "s/__WAIT_MS__/$(( (half + 1) * 1000 ))/" "$SIPP_DIR/$xml" > scenario.xml
  sipp_uas_for_call "$CASE_DIR/scenario.xml" "$port" --duration $(( se + 30 )) || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  expect_event events.out 'ended reason=remoteEnded' || return 1
  local t200 tref
  t200=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Status-Code == 200 && sip.CSeq.method == "INVITE"' \
    -T fields -e frame.time_relative 2>/dev/null | head -1)
  tref=$(tshark -r "$CASE_DIR/capture.pcap" -Y "sip.Method == \"$method\"" -T fields -e frame.time_relative \
    2>/dev/null | sed -n 2p)
  [ "$method" = UPDATE ] && tref=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Method == "UPDATE"' -T fields \
    -e frame.time_relative 2>/dev/null | head -1)
  echo "200 at $t200 s, refresh $method at $tref s, half the interval = $half s"
  awk -v a="$t200" -v b="$tref" -v h="$half" 'BEGIN { d = b - a; exit !(d >= h - 1 && d <= h + 1) }' \
    || { echo "the refresh did not come at half the interval"; return 1; }
}
sipp_session_timer_short() { session_refresh_case 20 UPDATE uas_session_timer.xml 5576; }
sipp_session_timer_90() { session_refresh_case 90 UPDATE uas_session_timer.xml 5577; }
# The glare retry comes after the RFC 3261 §14.1 back-off for the Call-ID owner: 2.1 to 4 s after the 491.
sipp_glare() {
  session_refresh_case 20 INVITE uas_glare.xml 5578 || return 1
  local t491 tretry
  t491=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Status-Code == 491' -T fields -e frame.time_relative 2>/dev/null | head -1)
  tretry=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Method == "INVITE"' -T fields -e frame.time_relative 2>/dev/null \
    | sed -n 3p)
  echo "491 at $t491 s, retry at $tretry s"
  awk -v a="$t491" -v b="$tretry" 'BEGIN { d = b - a; exit !(d >= 2.1 && d <= 4.1) }' \
    || { echo "the retry did not wait 2.1-4 s"; return 1; }
}

# Whether the capture's first BYE left between $1 and $2 seconds after its first 200 to INVITE (prints both times).
bye_after_200() {
  local t200 tbye
  t200=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Status-Code == 200 && sip.CSeq.method == "INVITE"' -T fields \
    -e frame.time_relative 2>/dev/null | head -1)
  tbye=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Method == "BYE"' -T fields -e frame.time_relative 2>/dev/null | head -1)
  echo "first 200 at $t200 s, BYE at $tbye s"
  awk -v a="$t200" -v b="$tbye" -v lo="$1" -v hi="$2" 'BEGIN { d = b - a; exit !(d >= lo && d <= hi) }'
}

# A 200 never ACKed: retransmitted (at least 5 times over 32 s), then BYE.
sipp_no_ack() {
  sipp_uac_to_answer uac_no_ack.xml 5579 || return 1
  local n
  n=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Status-Code == 200 && sip.CSeq.method == "INVITE"' 2>/dev/null | wc -l)
  echo "the 200 was sent $n times"
  [ "$n" -ge 6 ] || { echo "too few retransmissions of the 200"; return 1; }
  # The BYE leaves 64*T1 = 32 s after the first 200; the call never connected, so answer exits 1.
  bye_after_200 31.5 33.5 || { echo "the BYE did not come 64*T1 after the 200"; return 1; }
  [ "$SB_RC" = 1 ] || { echo "switchboard answer exited $SB_RC, expected 1 (the call never connected)"; return 1; }
  expect_event events.out 'ended reason=[a-zA-Z]+ status=[0-9]+ phrase="No ACK"'
}

# A peer that answers and never sends RTP: with --media-timeout 2 the BYE (Reason: Q.850;cause=102) leaves 2-3 s
# after the answer (the check runs each 20 ms frame), and the call ends failed with phrase "media timeout".
sipp_media_timeout() {
  sipp_uas_for_call uas_media_timeout.xml 5584 --duration 20 --media-timeout 2 || return 1
  bye_after_200 1.95 3.0 || { echo "the BYE did not come 2-3 s after the answer"; return 1; }
  [ "$SB_RC" = 1 ] || { echo "switchboard call exited $SB_RC, expected 1 (the call failed)"; return 1; }
  expect_event events.out 'ended reason=failed status=0 phrase="media timeout"'
}

# Early media (an Asterisk announcement): 183 with SDP and 3 s of 440 Hz before the 200. switchboard prints
# early-media, records the tone before the answer, and sends no RTP until the 200. sipp's media on 5586.
sipp_early_media() {
  python3 - <<'PY'
import math
def ulaw(sample):
    sign = 0x80 if sample < 0 else 0
    magnitude = min(abs(sample), 32635) + 132
    exponent = max(0, magnitude.bit_length() - 8)
    mantissa = (magnitude >> (exponent + 3)) & 0x0F
    return ~(sign | (exponent << 4) | mantissa) & 0xFF
with open("tone440.ulaw", "wb") as f:
    f.write(bytes(ulaw(int(8000 * math.sin(2 * math.pi * 440 * n / 8000))) for n in range(8000 * 3)))
PY
  SIPP_EXTRA="-mp 5586" SIPP_BPF="port 5585 or port 5586" \
    sipp_uas_for_call uas_early_media.xml 5585 --duration 1 --codecs pcmu --play tone:1000 --record rec.wav || return 1
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  expect_event events.out 'ringing status=183' && expect_event events.out 'early-media status=183 codec=PCMU' || return 1
  # The recording starts with the announcement (the 200 comes 3 s after the 183).
  python3 "$HERE/media/tonecheck.py" rec.wav --expect 440 --other 1000 --from 0.5 --to 2.5 || return 1
  # Receive-only before the 200: nothing to sipp's media port until then, then switchboard's tone.
  local t200 first
  t200=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Status-Code == 200 && sip.CSeq.method == "INVITE"' -T fields \
    -e frame.time_relative 2>/dev/null | head -1)
  first=$(tshark -r "$CASE_DIR/capture.pcap" -Y 'udp.dstport == 5586' -T fields -e frame.time_relative 2>/dev/null | head -1)
  echo "200 at $t200 s, first RTP to sipp at ${first:-never} s"
  [ -n "$t200" ] && [ -n "$first" ] && awk -v a="$t200" -v b="$first" 'BEGIN { exit !(b >= a) }' \
    || { echo "RTP went to the early dialog before the 200"; return 1; }
}

# A blind transfer by a PBX that never hangs up: it answers, REFERs to carol (sipp's built-in UAS on 5582),
# answers the NOTIFYs; switchboard prints transferred, calls carol, reports 200 in the final NOTIFY, and 4 s later
# sends its own BYE (Reason Q.850;cause=16;text="transferred", which the PBX's sipp checks). The old call ends
# remoteEnded with phrase transferred; switchboard stays on carol's call and hangs it up at --duration: exit 0.
sipp_transfer_no_bye() {
  sipp -sn uas -p 5582 -mp 5592 -m 1 -i 127.0.0.1 -nostdin -nd -timeout 60s -trace_err -error_file carol.err \
    > carol.out 2>&1 &
  local cp=$!
  wait_udp_port 5582 || { echo "carol's sipp did not bind 5582:"; cat carol.out; }
  SIPP_BPF="port 5581 or port 5582" sipp_uas_for_call uas_transfer_no_bye.xml 5581 --duration 8
  local prc=$?
  local i=0; while kill -0 $cp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  stop_pid $cp
  [ $prc -eq 0 ] || return 1
  grep -q "Successful call *| *[0-9]* *| *1" carol.out || { echo "carol's sipp call failed:"; cat carol.err; return 1; }
  [ $SB_RC -eq 0 ] || { echo "switchboard call exited $SB_RC"; return 1; }
  expect_event events.out 'transferred to=sip:carol@127\.0\.0\.1:5582' \
    && expect_event events.out 'ended reason=remoteEnded status=0 phrase=transferred' \
    && expect_event events.out 'ended reason=localEnded' || return 1
  [ "$(grep -c '^T=[0-9.]* connected' events.out)" = 2 ] || { echo "expected two connected events"; return 1; }
  # The final NOTIFY carried carol's 200.
  grep -q '^SIP/2.0 200 OK' sipp.msg || { echo "no 200 in a NOTIFY body"; return 1; }
}

# A callee that rings and vanishes (no final response, no answer to the CANCEL): `load --answer-timeout 2`
# cancels each of its 3 calls about 2 s after the INVITE, counts them `unanswered` and finishes (exit 1: 3
# failures past --max-failures 0), where before the calls rang for ever.
sipp_ring_then_vanish() {
  capture_start "$CASE_DIR/capture.pcap" "port 5593"
  sipp -sf "$SIPP_DIR/uas_ring_vanish.xml" -p 5593 -m 3 -i 127.0.0.1 -nostdin -nd -timeout 60s -trace_err \
    -error_file sipp.err > sipp.out 2>&1 &
  local sp=$!
  wait_udp_port 5593 || { echo "sipp did not bind 5593:"; cat sipp.out; }
  "$(switchboard_bin)" load sip:pbx@127.0.0.1:5593 --calls 3 --rate 10 --concurrent 3 --media off \
    --answer-timeout 2 --listen 127.0.0.1:0 > events.out 2> trace.out
  SB_RC=$?
  sipp_case_done $sp 200
  grep -q "Successful call *| *[0-9]* *| *3" sipp.out || { echo "sipp did not get 3 CANCELs:"; cat sipp.err; return 1; }
  [ $SB_RC -eq 1 ] || { echo "switchboard load exited $SB_RC, expected 1"; return 1; }
  expect_event events.out 'load-summary started=3 connected=0 ended=3 failed=3 live=0 ' \
    && expect_event events.out 'failures=unanswered:3' || return 1
  # Each CANCEL left 2 s after its INVITE (give or take the scheduler's tick).
  tshark -r "$CASE_DIR/capture.pcap" -Y 'sip.Method == "INVITE" || sip.Method == "CANCEL"' -T fields \
    -e sip.Call-ID -e sip.Method -e frame.time_relative 2>/dev/null | python3 -c '
import sys
t = {}
for line in sys.stdin:
    cid, method, at = line.split("\t")
    t.setdefault(cid, {}).setdefault(method, float(at))  # the first one: the CANCEL is resent unanswered
waits = [v["CANCEL"] - v["INVITE"] for v in t.values() if "INVITE" in v and "CANCEL" in v]
print("INVITE to CANCEL, s:", ["%.3f" % w for w in waits])
sys.exit(0 if len(waits) == 3 and all(1.9 <= w <= 3.0 for w in waits) else 1)'
}

case_add sipp_calls asterisk-401-opaque-qop sipp udp sipp_asterisk_401
case_add sipp_calls asterisk-sha256-then-md5 sipp udp sipp_sha256_first
case_add sipp_calls freeswitch-407-realm-domain sipp udp sipp_freeswitch_407
case_add sipp_calls prack-100rel sipp udp sipp_prack
case_add sipp_calls forked-early-dialogs sipp udp sipp_forked
case_add sipp_calls cancel-crossing-200 sipp udp sipp_cancel_crossing
case_add sipp_calls session-timer-refresh-20s sipp udp sipp_session_timer_short
case_add sipp_calls session-timer-refresh-90s sipp udp sipp_session_timer_90
case_add sipp_calls reinvite-glare-491-retry sipp udp sipp_glare
case_add sipp_calls bye-without-ack sipp udp sipp_no_ack
case_add sipp_calls media-timeout-bye sipp udp sipp_media_timeout
case_add sipp_calls early-media-announcement sipp udp sipp_early_media
case_add sipp_calls transfer-without-bye sipp udp sipp_transfer_no_bye
case_add sipp_calls ring-then-vanish-load sipp udp sipp_ring_then_vanish
