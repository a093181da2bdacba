# The NAT topology's addresses (sourced by Interop/nat/topology, the peers' scripts and scenarios/48-nat.sh).
# Public segment: 203.0.113.0/24 (RFC 5737 documentation addresses); LANs: 10.0.1-3.0/24 behind routers A-C.
PUB_GW=203.0.113.1
KAMAILIO_IP=203.0.113.10
TURN_IP=203.0.113.20
TURN_ALT_IP=203.0.113.21
HOST_IP=203.0.113.30
RA_WAN=203.0.113.101
RB_WAN=203.0.113.102
RC_WAN=203.0.113.103
LAN_A=10.0.1
LAN_B=10.0.2
LAN_C=10.0.3
A1_IP=10.0.1.10
A2_IP=10.0.1.11
B1_IP=10.0.2.10
C1_IP=10.0.3.10
# The black hole's next hop (RFC 7335's IPv4 service continuity prefix: never a real host here).
HOLE_GW=192.0.0.9
TURN_PORT=3478
TURN_TLS_PORT=5349
