# STUN (RFC 8489) against coturn, Debian's `coturn` 4.6: Interop/stun/coturn-check starts turnserver on
# 127.0.0.1 and ::1 (port 34781, stopped by its PID), sends Binding requests from stun-probe (Switchboard's
# Binding transaction over a real UDP socket) over IPv4 and IPv6, and checks each response's FINGERPRINT
# and that its XOR-MAPPED-ADDRESS is the probe's own address; coturn's turnutils_stunclient asks the same
# server for comparison.
#
# TURN (RFC 8656) against the same coturn: Interop/stun/turn-check starts turnserver with long-term
# credentials (port 34791, TLS on 34792, relaying on 127.0.0.1 with --allow-loopback-peers) and runs two
# allocations from stun-probe (Switchboard's TURNClient over real sockets) that permit each other, send data
# A->B as a Send indication and, once channels are bound, B->A and A->B as ChannelData, checking every payload,
# then refresh and deallocate. The client reaches the server over UDP, TCP, or TLS with the certificate checked
# against the run's CA (and refused against another CA); the relay is UDP in all three. ICE comes later
# (issue 14).

stun_coturn_binding() {
  bash "$ROOT/Interop/stun/coturn-check" 34781
}

stun_coturn_turn() {
  bash "$ROOT/Interop/stun/turn-check" 34791 "$TRANSPORT"
}

case_add stun stun-binding-ipv4-ipv6 coturn udp stun_coturn_binding
case_add stun turn-two-allocations coturn udp stun_coturn_turn
case_add stun turn-two-allocations coturn tcp stun_coturn_turn
case_add stun turn-two-allocations coturn tls stun_coturn_turn
