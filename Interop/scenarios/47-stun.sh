# STUN (RFC 8489) against coturn, Debian's `coturn` 4.6: Interop/stun/coturn-check starts turnserver on
# 127.0.0.1 and ::1 (port 34781, stopped by its PID), sends Binding requests from stun-probe (Switchboard's
# Binding transaction over a real UDP socket) over IPv4 and IPv6, and checks each response's FINGERPRINT
# and that its XOR-MAPPED-ADDRESS is the probe's own address; coturn's turnutils_stunclient asks the same
# server for comparison. TURN and ICE come later (issue 14).

stun_coturn_binding() {
  bash "$ROOT/Interop/stun/coturn-check" 34781
}

case_add stun stun-binding-ipv4-ipv6 coturn udp stun_coturn_binding
