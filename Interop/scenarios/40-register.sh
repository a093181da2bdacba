# switchboard register against Kamailio as registrar with digest auth: UDP, TCP and TLS with MD5, then a
# second Kamailio start with SHA-256 (RFC 8760); unregistration; a wrong password is a clean failure.
# Uses the kamailio group's Kamailio (started by 20-kamailio.sh) and a kamailio-sha256 group of its own.

switchboard_bin() { echo "$ROOT/.build/debug/switchboard"; }

register_case() {
  local user=$1 password=$2
  capture_start "$CASE_DIR/capture.pcap" "port 5060 or port 5061"
  "$(switchboard_bin)" register --user "$user@127.0.0.1" --password "$password" --registrar sip:127.0.0.1 \
    --transport "$TRANSPORT" --tls-ca "$CERTDIR/ca.crt" --duration 1 --trace > events.out 2> trace.out
  local rc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  cat events.out
  echo "exit $rc"
  return $rc
}

register_md5() {
  register_case alice alicepw || return 1
  grep -q "registered expires=" events.out && grep -q "unregistered" events.out || return 1
  # The binding was made with our transport, then removed.
  grep -q 'algorithm=MD5' trace.out || grep -q 'WWW-Authenticate: Digest' trace.out
}

register_sha256() {
  register_case bob bobpw || return 1
  grep -q 'WWW-Authenticate: Digest.*algorithm=SHA-256' trace.out || { echo "Kamailio did not challenge with SHA-256"; return 1; }
  grep -q "registered expires=" events.out && grep -q "unregistered" events.out
}

register_wrong_password() {
  register_case carol wrongpw
  local rc=$?
  [ $rc -eq 1 ] || { echo "expected exit 1, got $rc"; return 1; }
  grep -q 'reg-failed status=401' events.out && ! grep -q "registered expires" events.out
}

# No credentials ever appear in the trace.
register_trace_redacted() {
  register_case alice alicepw || return 1
  grep -q 'Authorization: Digest <redacted>' trace.out || { echo "no redacted Authorization in the trace"; return 1; }
  ! grep -q 'alicepw' trace.out && ! grep -q 'response=' trace.out
}

group_setup_kamailio_sha256() {
  mkdir -p "$OUT/kamailio-sha256"
  RUN="$OUT/kamailio-sha256" CERTDIR="$CERTDIR" "$HERE/peers/kamailio/start.sh" -A WITH_SHA256
}

group_teardown_kamailio_sha256() {
  RUN="$OUT/kamailio-sha256" "$HERE/peers/kamailio/stop.sh"
}

for t in udp tcp tls; do
  case_add kamailio register-md5 kamailio $t register_md5
done
case_add kamailio register-wrong-password kamailio udp register_wrong_password
case_add kamailio register-trace-redacted kamailio tcp register_trace_redacted
for t in udp tcp tls; do
  case_add kamailio_sha256 register-sha256 kamailio $t register_sha256
done
