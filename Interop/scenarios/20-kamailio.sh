# OPTIONS and REGISTER transactions with Kamailio over UDP, TCP and TLS; TLS certificate checks.
# Kamailio answers OPTIONS to itself (200 Keepalive) and challenges REGISTER (401): here the transaction
# outcome is what counts. Its TLS certificate is made by Interop/run for IP 127.0.0.1 (subjectAltName).

export KAMAILIO_RUN="$OUT/kamailio"

group_setup_kamailio() {
  mkdir -p "$KAMAILIO_RUN"
  RUN="$KAMAILIO_RUN" CERTDIR="$CERTDIR" "$HERE/peers/kamailio/start.sh" -A WITH_SIPDUMP
}

group_teardown_kamailio() {
  RUN="$KAMAILIO_RUN" "$HERE/peers/kamailio/stop.sh"
}

kamailio_target() {
  case $TRANSPORT in
    udp) echo "sip:127.0.0.1:5060" ;;
    tcp) echo "sip:127.0.0.1:5060;transport=tcp" ;;
    tls) echo "sips:127.0.0.1:5061" ;;
  esac
}

kamailio_transaction() {
  local method=$1 expect=$2
  capture_start "$CASE_DIR/capture.pcap" "port 5060 or port 5061"
  "$ENDPOINT" uac --target "$(kamailio_target)" --method "$method" --count 3 --t1-ms 100 \
    --tls-ca "$CERTDIR/ca.crt" --user alice --expect "$expect" > endpoint.out 2>&1
  local rc=$?
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  cat endpoint.out
  [ $rc -eq 0 ]
}

kamailio_options() { kamailio_transaction OPTIONS 200; }
kamailio_register() { kamailio_transaction REGISTER 401; }

# A certificate that does not name the server is refused with a name-mismatch error: Kamailio's
# certificate names 127.0.0.1 and localhost, the endpoint expects other.example.test.
kamailio_tls_name_mismatch() {
  "$ENDPOINT" uac --target "sips:127.0.0.1:5061" --method OPTIONS --count 1 --t1-ms 100 \
    --tls-ca "$CERTDIR/ca.crt" --server-name other.example.test --min-success 0 > endpoint.out 2>&1
  cat endpoint.out
  grep -q "transport_errors=1" endpoint.out && grep -q "transport_error certificate name mismatch" endpoint.out
}

# Kamailio's certificate for 127.0.0.1 is accepted through its IP subjectAltName (no SNI sent).
kamailio_tls_ip_san() {
  "$ENDPOINT" uac --target "sips:127.0.0.1:5061" --method OPTIONS --count 1 --t1-ms 100 \
    --tls-ca "$CERTDIR/ca.crt" --expect 200 > endpoint.out 2>&1 || { cat endpoint.out; return 1; }
  cat endpoint.out
}

# An untrusted issuer is refused: the endpoint trusts only the system store here.
kamailio_tls_untrusted() {
  "$ENDPOINT" uac --target "sips:127.0.0.1:5061" --method OPTIONS --count 1 --t1-ms 100 --min-success 0 \
    > endpoint.out 2>&1
  cat endpoint.out
  grep -q "transport_error untrusted certificate issuer" endpoint.out
}

for t in udp tcp tls; do
  case_add kamailio options kamailio $t kamailio_options
  case_add kamailio register-401 kamailio $t kamailio_register
done
case_add kamailio tls-ip-subjectaltname kamailio tls kamailio_tls_ip_san
case_add kamailio tls-name-mismatch kamailio tls kamailio_tls_name_mismatch
case_add kamailio tls-untrusted-issuer kamailio tls kamailio_tls_untrusted
