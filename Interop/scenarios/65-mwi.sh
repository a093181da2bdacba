# Solicited message waiting (RFC 6665 SUBSCRIBE to message-summary, RFC 3842 bodies): `switchboard register
# --mwi` against sipp playing a voicemail server (sipp/uas_mwi*.xml), with a second sipp as the registrar
# (sipp/uas_registrar.xml: a sipp scenario follows one Call-ID, and REGISTER and SUBSCRIBE have their own).
# The notifier's XML checks Event, Accept, Expires, the digest and the dialog with ereg/verifyauth; a case
# passes when both sipps' calls succeeded, switchboard exited 0 and printed the expected `mwi` lines.
# Each also over TCP (sipp -t t1, switchboard --transport tcp: the refresh and the unsubscribe reach the
# notifier's Contact, which says transport=TCP, over the one connection).
# Ports: registrar 5580/5582, notifier 5581/5583 (TCP: 5585/5587 and 5586/5588); switchboard takes any free port.

# $1 = notifier XML, $2 = registrar port, $3 = notifier port, $4 = seconds to stay registered.
# Sets SB_RC; returns 1 if either sipp's call failed.
mwi_run() {
  local xml=$1 rport=$2 vport=$3 duration=$4 transport=${TRANSPORT:-udp}
  local sipp_t="" sb_t="" uri_t=""
  [ "$transport" = tcp ] && { sipp_t="-t t1"; sb_t="--transport tcp"; uri_t=";transport=tcp"; }
  capture_start "$CASE_DIR/capture.pcap" "port $rport or port $vport"
  # shellcheck disable=SC2086
  sipp -sf "$SIPP_DIR/uas_registrar.xml" $sipp_t -p "$rport" -m 1 -i 127.0.0.1 -nostdin -nd -timeout 60s \
    -trace_err -error_file registrar.err > registrar.out 2>&1 &
  local rp=$!
  # shellcheck disable=SC2086
  sipp -sf "$SIPP_DIR/$xml" $sipp_t -p "$vport" -m 1 -i 127.0.0.1 -nostdin -nd -timeout 60s -trace_err \
    -error_file sipp.err -trace_msg -message_file sipp.msg -trace_logs -log_file sipp.log > sipp.out 2>&1 &
  local vp=$!
  wait_port "$rport" "$transport" || { echo "sipp did not bind $rport:"; cat registrar.out; }
  wait_port "$vport" "$transport" || { echo "sipp did not bind $vport:"; cat sipp.out; }
  # shellcheck disable=SC2086
  "$(switchboard_bin)" register --user alice@127.0.0.1 --password alicepw \
    --registrar "sip:127.0.0.1:$rport$uri_t" $sb_t --listen 127.0.0.1:0 --mwi \
    --mwi-uri "sip:alice@127.0.0.1:$vport$uri_t" --duration "$duration" --trace > events.out 2> trace.out
  SB_RC=$?
  local i=0; while { kill -0 $rp || kill -0 $vp; } 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  stop_pid $rp; stop_pid $vp
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  echo "--- events (exit $SB_RC)"; cat events.out
  [ -f sipp.log ] && { echo "--- notifier checks"; cat sipp.log; }
  grep -q "Successful call *| *[0-9]* *| *1" registrar.out || { echo "the registrar's sipp failed:"; cat registrar.err; return 1; }
  grep -q "Successful call *| *[0-9]* *| *1" sipp.out || { echo "the notifier's checks failed:"; cat sipp.err; return 1; }
}

# Subscribe (401 then digest), the initial NOTIFY reported, a refresh in the dialog before the 6 s granted run
# out with a second NOTIFY reported, then unsubscribe (Expires: 0) before unregistering, final NOTIFY answered.
mwi_subscribe_refresh_unsubscribe() {
  if [ "${TRANSPORT:-udp}" = tcp ]; then mwi_run uas_mwi.xml 5585 5586 5 || return 1
  else mwi_run uas_mwi.xml 5580 5581 5 || return 1; fi
  [ "$SB_RC" -eq 0 ] || { echo "switchboard register exited $SB_RC"; return 1; }
  expect_event events.out 'mwi waiting=yes voice=2/8 account=sip:\*97@127.0.0.1' || return 1
  expect_event events.out 'mwi waiting=yes voice=3/8' || return 1
  expect_event events.out 'unregistered' || return 1
  # The SUBSCRIBE with Expires: 0 leaves before the REGISTER that removes the binding.
  local order; order=$(grep -E 'Request: (SUBSCRIBE|REGISTER)' capture.txt | tail -2 | grep -oE 'SUBSCRIBE|REGISTER' | tr '\n' ' ')
  echo "last requests: $order"
  [ "$order" = "SUBSCRIBE REGISTER " ] || { echo "expected the unsubscribe before the unregistration"; return 1; }
}

# terminated;reason=deactivated: a new SUBSCRIBE at once (new dialog), its NOTIFY reported.
mwi_deactivated_resubscribe() {
  if [ "${TRANSPORT:-udp}" = tcp ]; then mwi_run uas_mwi_deactivated.xml 5587 5588 3 || return 1
  else mwi_run uas_mwi_deactivated.xml 5582 5583 3 || return 1; fi
  [ "$SB_RC" -eq 0 ] || { echo "switchboard register exited $SB_RC"; return 1; }
  expect_event events.out 'mwi waiting=yes voice=2/8' || return 1
  expect_event events.out 'mwi waiting=yes voice=5/8'
}

case_add mwi mwi-subscribe-notify-refresh-unsubscribe sipp udp mwi_subscribe_refresh_unsubscribe
case_add mwi mwi-deactivated-resubscribe sipp udp mwi_deactivated_resubscribe
case_add mwi mwi-subscribe-notify-refresh-unsubscribe sipp tcp mwi_subscribe_refresh_unsubscribe
case_add mwi mwi-deactivated-resubscribe sipp tcp mwi_deactivated_resubscribe
