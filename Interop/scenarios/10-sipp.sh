# sipp against the Switchboard endpoint (transaction layer over UDP and TCP), both directions.
# Ports: endpoint 5400+, sipp 5450+ (CLI.md reserves 5400-5499 for Interop).

export SIPP_DIR="$HERE/sipp"

# sipp sends; the endpoint answers. $1 = scenario file, $2 = method key, $3 = endpoint port, $4 = sipp port.
sipp_to_endpoint() {
  local xml=$1 method=$2 port=$3 sport=$4 t=${TRANSPORT}
  local st=u1; [ "$t" = tcp ] && st=t1
  capture_start "$CASE_DIR/capture.pcap" "port $port or port $sport"
  sed "s/__METHOD__/$method/g" "$xml" > scenario.xml
  # Retransmissions exist on UDP only: over TCP the server transaction ends with its final response.
  [ "$t" = tcp ] && sed -i '/<!--RETRANSMISSION-->/,/<!--\/RETRANSMISSION-->/d' scenario.xml
  "$ENDPOINT" uas --listen "$t:127.0.0.1:$port" --t1-ms 100 > endpoint.out 2>&1 &
  local ep=$!
  wait_for endpoint.out "ready $t" || { cat endpoint.out; stop_pid $ep; return 1; }
  sipp -sf scenario.xml -t $st -p "$sport" -m 1 -i 127.0.0.1 -nostdin -nd -recv_timeout 5000 \
    -timeout 20s -trace_err -error_file sipp.err "127.0.0.1:$port" > sipp.out 2>&1
  local rc=$?
  stop_pid $ep
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  cat endpoint.out
  [ $rc -eq 0 ] || { echo "sipp exit $rc"; tail -5 sipp.err 2>/dev/null; return 1; }
  # The TU saw the request once, whatever was retransmitted.
  local lower; lower=$(echo "$method" | tr 'A-Z' 'a-z')
  grep -q "stats .*$lower=1 " endpoint.out || { echo "the endpoint's TU did not see exactly one $method"; return 1; }
  if grep -q "RETRANSMISSION" scenario.xml; then
    grep -Eq "response_retransmissions=[1-9]" endpoint.out || { echo "the retransmission was not answered from the transaction"; return 1; }
    local tags; tags=$(tshark -r "$CASE_DIR/capture.pcap" -Y "sip.Status-Code" -T fields -e sip.to.tag 2>/dev/null | sort -u | wc -l)
    [ "$tags" = 1 ] || { echo "responses carried $tags different To tags"; return 1; }
  fi
}

# The endpoint sends; sipp answers. $1 = scenario file, $2 = method, $3 = sipp port, $4 = expected status.
endpoint_to_sipp() {
  local xml=$1 method=$2 port=$3 expect=$4 t=${TRANSPORT}
  local st=u1; [ "$t" = tcp ] && st=t1
  sed "s/__METHOD__/$method/g" "$xml" > scenario.xml
  capture_start "$CASE_DIR/capture.pcap" "port $port"
  sipp -sf scenario.xml -t $st -p "$port" -m 1 -i 127.0.0.1 -nostdin -nd -timeout 20s -trace_err \
    -error_file sipp.err > sipp.out 2>&1 &
  local sp=$!
  sleep 0.3
  "$ENDPOINT" uac --target "sip:sipp@127.0.0.1:$port;transport=$t" --method "$method" --count 1 --t1-ms 100 \
    --expect "$expect" > endpoint.out 2>&1
  local rc=$?
  # sipp exits by itself once its scenario is done (or fails a check).
  local i=0; while kill -0 $sp 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
  stop_pid $sp; wait $sp 2>/dev/null; local src=$?
  grep -q "Successful call *| *[0-9]* *| *1" sipp.out || src=1
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  cat endpoint.out
  [ $rc -eq 0 ] || { echo "endpoint exit $rc"; return 1; }
  [ $src -eq 0 ] || { echo "sipp reported a failure"; tail -5 sipp.err 2>/dev/null; return 1; }
}

sipp_options_in()  { sipp_to_endpoint "$SIPP_DIR/uac_request.xml" OPTIONS 5400 5450; }
sipp_message_in()  { sipp_to_endpoint "$SIPP_DIR/uac_request.xml" MESSAGE 5402 5451; }
sipp_invite_in()   { sipp_to_endpoint "$SIPP_DIR/uac_invite_busy.xml" INVITE 5403 5452; }
sipp_options_out() { endpoint_to_sipp "$SIPP_DIR/uas_answer.xml" OPTIONS 5453 200; }
sipp_message_out() { endpoint_to_sipp "$SIPP_DIR/uas_answer.xml" MESSAGE 5454 200; }
sipp_invite_out()  { endpoint_to_sipp "$SIPP_DIR/uas_busy.xml" INVITE 5455 486; }

for t in udp tcp; do
  case_add sipp options-to-switchboard sipp $t sipp_options_in
  case_add sipp message-to-switchboard sipp $t sipp_message_in
  case_add sipp invite-486-to-switchboard sipp $t sipp_invite_in
  case_add sipp options-from-switchboard sipp $t sipp_options_out
  case_add sipp message-from-switchboard sipp $t sipp_message_out
  case_add sipp invite-486-from-switchboard sipp $t sipp_invite_out
done
