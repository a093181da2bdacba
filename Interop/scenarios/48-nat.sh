# Calls across real NATs in network namespaces (Interop/nat, README "NAT topology"): a public segment
# 203.0.113.0/24 with Kamailio (peers/kamailio/nat.cfg: repairs SIP for NATed clients, never SDP) and coturn
# (long-term credentials, UDP/TCP/TLS); router A keeps ports (nftables masquerade), routers B and C map every
# destination to its own port (masquerade random, symmetric); clients a1 and a2 on LAN A, b1 on LAN B, c1 on
# LAN C, and a public host without NAT. The group builds it once and removes it at tear-down (and a leftover of
# a run that died is removed at the next set-up).
#
# The topology's proof, with independent peers only (nat-topology-*): udpprobe.py and coturn's
# turnutils_natdiscovery (RFC 5780) classify each router; baresip 1.0 (ice, stun, turn modules) calls baresip
# (a) on one LAN: host pair, (b) behind router A to the public host: server-reflexive, (c) b1 to c1 behind the
# symmetric NATs: relayed through coturn, and the same call without ICE carries no audio. Every call checks the
# tone each side recorded (media/tonecheck.py) and tshark's captures in the router namespaces: connectivity
# checks with MESSAGE-INTEGRITY and USE-CANDIDATE, and RTP where it must be (direct, or only through coturn's
# relayed addresses as ChannelData or Send/Data indications).
# In CI (no --only) the self-check and (c) with its control run: they prove the NATs are real and the relay
# works, which the Switchboard cases do not prove on their own. (a) and (b) run with --only (nat-topology runs
# the whole proof).
#
# Switchboard's cases (nat-sb-*) need ICE in calls (`--ice`, `--stun`, `--turn`): they are registered only when
# `switchboard call --help` lists --ice.

export NAT_PREFIX="sbn$$"
export NAT_RUN="$OUT/nat"
export NAT_HOME="$HERE/nat"
export NAT_SB="${NAT_SB:-$ROOT/.build/debug/switchboard}"   # another build may be named
set -a
source "$HERE/nat/addresses.sh"
set +a
source "$HERE/nat/capture.sh"

# Why the group cannot run here, or nothing.
nat_unavailable() {
  [ "$(id -u)" -eq 0 ] || { echo "not root: network namespaces cannot be made"; return; }
  local tool
  for tool in ip nft tshark turnserver turnutils_natdiscovery kamailio kamcmd baresip; do
    command -v "$tool" >/dev/null || { echo "$tool is missing"; return; }
  done
  ip netns add "$NAT_PREFIX-probe" 2>/dev/null || { echo "ip netns add failed: no network namespaces here"; return; }
  ip netns del "$NAT_PREFIX-probe"
}

nat_ns() { echo "$NAT_PREFIX-$1"; }
nat_in() { local n=$1; shift; ip netns exec "$NAT_PREFIX-$n" "$@"; }

group_setup_nat() {
  mkdir -p "$NAT_RUN"
  "$NAT_HOME/topology" clean >&2
  "$NAT_HOME/topology" up "$NAT_PREFIX" || return 1
  "$NAT_HOME/coturn" start "$NAT_RUN/coturn" "$(nat_ns pub)" || return 1
  mkdir -p "$NAT_RUN/kamailio"
  # nat.cfg has no TLS listener: start.sh only wants a CERTDIR for the tls.cfg it copies.
  RUN="$NAT_RUN/kamailio" CERTDIR="${CERTDIR:-$NAT_RUN/coturn}" CFG=nat.cfg ip netns exec "$(nat_ns pub)" \
    "$HERE/peers/kamailio/start.sh" || return 1
  python3 "$HERE/media/tonewav.py" "$NAT_RUN/tone440.wav" 440 --seconds 40 \
    && python3 "$HERE/media/tonewav.py" "$NAT_RUN/tone1000.wav" 1000 --seconds 40
}

group_teardown_nat() {
  RUN="$NAT_RUN/kamailio" "$HERE/peers/kamailio/stop.sh"
  "$NAT_HOME/coturn" stop "$NAT_RUN/coturn"
  "$NAT_HOME/topology" down "$NAT_PREFIX"
}

# Forgets every binding of USER..., so a binding left by a failed case cannot fork the next call.
nat_fresh_bindings() {
  local u
  for u in "$@"; do kamcmd -s "unix:$NAT_RUN/kamailio/kamailio_ctl" ul.rm location "$u" >/dev/null 2>&1; done
  return 0
}

# ---- captures of a case: nat_captures_start ROUTER:IFACE...; files ROUTER.pcap in the case directory.
nat_captures_start() {
  local c
  for c in "$@"; do nat_capture_start "$(nat_ns "${c%%:*}")" "${c#*:}" "$CASE_DIR/${c%%:*}.pcap" || return 1; done
}
nat_captures_stop() { local f; for f in "$CASE_DIR"/*.pcap; do nat_capture_stop "$f"; done; }

# Seconds from the answer to media, read from a capture: nat_answer_to_media FILE ADDR [ANSWER_TIME] prints
# "FIRST BOTH": to the first RTP packet from or to ADDR (the caller's side of that wire), and to the moment RTP
# has gone both ways ("-" when it never did). The answer is the first 200 to an INVITE unless given.
nat_answer_to_media() {
  local file=$1 addr=$2 answer=${3:-}
  [ -n "$answer" ] || answer=$(nat_first "$file" 'sip.Status-Code == 200 && sip.CSeq.method == "INVITE"')
  [ -n "$answer" ] || { echo "- -"; return 0; }
  nat_read "$file" -Y "rtp.version == 2 && frame.time_relative >= $answer && ip.addr == $addr" -T fields \
    -e frame.time_relative -e ip.src | awk -v a="$answer" -v me="$addr" '
      first == "" { first = $1 }
      $2 == me && out == "" { out = $1 }
      $2 != me && got == "" { got = $1 }
      out != "" && got != "" { exit }
      END {
        f = (first == "") ? "-" : sprintf("%.3f", first - a)
        b = (out == "" || got == "") ? "-" : sprintf("%.3f", (out > got ? out : got) - a)
        print f, b
      }'
}

# ---- baresip
# nat_baresip_up USER CLIENT IP WAV NAT [SERVER]: baresip as USER (alice: ctrl 5272, bob: ctrl 5292) in the
# namespace of CLIENT, sending WAV (tone440.wav or tone1000.wav), NAT ice or none, SERVER stun:... or turn:...
nat_baresip_up() {
  local user=$1 client=$2 ip=$3 wav=$4 nat=$5 server=${6:-} ctrl=5272
  [ "$user" = bob ] && ctrl=5292
  "$HERE/peers/baresip/mkconf-nat.sh" "$CASE_DIR/$user" "$user" "${user}pw" "$ip" $ctrl 16000 "$NAT_RUN/$wav" \
    "$nat" "$server" "$NAT_RUN/coturn" && nat_in "$client" "$HERE/media/baresip-start.sh" "$CASE_DIR/$user"
}
# Stops the baresips of USER... together (each un-REGISTERs for about 2 s before it exits).
nat_baresip_down() {
  local u pids=()
  for u in "$@"; do "$HERE/media/baresip-stop.sh" "$CASE_DIR/$u" 2>/dev/null & pids+=($!); done
  wait "${pids[@]}"
}
nat_baresip_recording() { ls "$CASE_DIR/$1"/rec/*-dec.wav 2>/dev/null | head -n 1; }

# nat_baresip_expect_tone USER HZ OTHER_HZ: USER's recording holds HZ (the far end's tone).
nat_baresip_expect_tone() {
  local rec; rec=$(nat_baresip_recording "$1")
  [ -n "$rec" ] || { echo "$1 (baresip) recorded nothing"; return 1; }
  python3 "$HERE/media/tonecheck.py" "$rec" --expect "$2" --other "$3" --profile 1
}

# nat_expect_silence FILE HZ: the recording FILE holds no HZ: no file, an empty one (baresip's sndfile writes
# only what it decodes), or HZ below -50 dBFS throughout.
nat_expect_silence() {
  local frames
  [ -n "$1" ] && [ -f "$1" ] || { echo "${1:-the recording}: none made, nothing arrived"; return 0; }
  frames=$(python3 -c 'import sys, wave; print(wave.open(sys.argv[1]).getnframes())' "$1") || return 1
  [ "$frames" -lt 4000 ] && { echo "$1: $frames samples, nothing arrived"; return 0; }
  python3 "$HERE/media/tonecheck.py" "$1" --expect "$2" --other 2000 --absent -50 --from 0
}
nat_baresip_expect_silence() { nat_expect_silence "$(nat_baresip_recording "$1")" "$2"; }

# A baresip-to-baresip call: nat_baresip_call CALLER_CLIENT CALLER_IP CALLEE_CLIENT CALLEE_IP NAT SERVER
# MAX_S ROUTER:IFACE...: alice (440 Hz) calls bob (1000 Hz) through Kamailio and hangs up 4 s after her
# first RTP, or MAX_S after the answer without any. Writes alice.out/bob.out (baresip-call.py's summaries).
nat_baresip_call() {
  local caller=$1 caller_ip=$2 callee=$3 callee_ip=$4 nat=$5 server=$6 max=$7
  shift 7
  nat_fresh_bindings alice bob
  nat_baresip_up alice "$caller" "$caller_ip" tone440.wav "$nat" "$server" || return 1
  nat_baresip_up bob "$callee" "$callee_ip" tone1000.wav "$nat" "$server" || { nat_baresip_down alice; return 1; }
  nat_captures_start "$@" || { nat_baresip_down alice bob; nat_captures_stop; return 1; }
  nat_in "$callee" python3 "$NAT_HOME/baresip-call.py" 5292 callee --timeout 60 > bob.out 2> bob.events &
  local bp=$!
  wait_for bob.out ready || echo "bob's control connection did not open"
  nat_in "$caller" python3 "$NAT_HOME/baresip-call.py" 5272 dial "sip:bob@$KAMAILIO_IP" --audio 4 --max "$max" \
    --timeout 60 > alice.out 2> alice.events
  local rc=$?
  wait $bp; local brc=$?
  nat_baresip_down alice bob
  nat_captures_stop
  echo "alice: $(cat alice.out)"; echo "bob: $(cat bob.out)"
  [ $rc -eq 0 ] && [ $brc -eq 0 ] || { echo "a side of the call failed (alice $rc, bob $brc)"; tail -n 5 alice.events bob.events; return 1; }
}

nat_expect_rtp_both() {
  grep -q 'rtp=yes' alice.out && grep -q 'rtp=yes' bob.out || { echo "RTP did not reach both sides"; return 1; }
}

nat_expect_tones_baresip() {
  local ok=0
  nat_baresip_expect_tone alice 1000 440 || ok=1
  nat_baresip_expect_tone bob 440 1000 || ok=1
  return $ok
}

# ---- the topology's own facts
nat_topology_selfcheck() {
  "$NAT_HOME/selfcheck" "$NAT_PREFIX" || return 1
  # coturn's RFC 5780 discovery, an independent verdict on each router's mapping and filtering.
  local a b
  a=$(nat_in a1 timeout 20 turnutils_natdiscovery -m -f "$TURN_IP" 2>&1 | grep -E '^NAT with')
  b=$(nat_in b1 timeout 20 turnutils_natdiscovery -m "$TURN_IP" 2>&1 | grep -E '^NAT with')
  echo "turnutils_natdiscovery a1 (router A): $a" | paste -sd' '
  echo "turnutils_natdiscovery b1 (router B): $b" | paste -sd' '
  grep -q 'Endpoint Independent Mapping' <<<"$a" && grep -q 'Address and Port Dependent Filtering' <<<"$a" \
    || { echo "router A is not a port-keeping NAT with port-restricted filtering"; return 1; }
  grep -q 'Address and Port Dependent Mapping' <<<"$b" || { echo "router B is not symmetric"; return 1; }
}

# (a) both on LAN A, STUN configured: the host pair wins, RTP stays on the LAN.
nat_baresip_host() {
  nat_baresip_call a1 "$A1_IP" a2 "$A2_IP" ice "stun:$TURN_IP:$TURN_PORT" 20 ra:lan || return 1
  nat_expect_rtp_both && nat_expect_tones_baresip || return 1
  nat_expect_ice ra.pcap "LAN A" && nat_expect_direct ra.pcap "$A1_IP" "$A2_IP" 50 "LAN A"
}

# (b) a1 behind router A (port kept) calls the public host: a server-reflexive pair, RTP between router A's
# outside address and the host, never through coturn.
nat_baresip_srflx() {
  nat_baresip_call a1 "$A1_IP" host "$HOST_IP" ice "stun:$TURN_IP:$TURN_PORT" 20 ra:wan || return 1
  nat_expect_rtp_both && nat_expect_tones_baresip || return 1
  nat_expect_ice ra.pcap "router A" && nat_expect_direct ra.pcap "$RA_WAN" "$HOST_IP" 50 "router A"
}

# (c) b1 and c1 behind the symmetric routers, TURN configured: only the relay works.
nat_baresip_relay() {
  nat_baresip_call b1 "$B1_IP" c1 "$C1_IP" ice "turn:$TURN_IP:$TURN_PORT" 20 rb:wan rc:wan || return 1
  nat_expect_rtp_both && nat_expect_tones_baresip || return 1
  nat_expect_ice rb.pcap "router B (caller)" || return 1
  local checks; checks=$(nat_checks rc.pcap)
  echo "router C (callee): $checks connectivity checks with MESSAGE-INTEGRITY"
  [ "$checks" -gt 0 ] || { echo "router C: no connectivity check"; return 1; }
  nat_expect_relayed rb.pcap "$TURN_IP" 50 "router B" && nat_expect_relayed rc.pcap "$TURN_IP" 50 "router C" \
    && echo "answer to RTP at router B (first packet, both ways): $(nat_answer_to_media rb.pcap "$RB_WAN") s"
}

# (c) without ICE: each side sends to the other's private address, which no route reaches; nothing arrives.
nat_baresip_relay_ice_off() {
  nat_baresip_call b1 "$B1_IP" c1 "$C1_IP" none "" 5 rb:wan rc:wan || return 1
  grep -q 'rtp=no' alice.out && grep -q 'rtp=no' bob.out || { echo "RTP arrived without ICE: the NATs leak"; return 1; }
  nat_baresip_expect_silence alice 1000 && nat_baresip_expect_silence bob 440 || return 1
  local sent_b sent_c in_b in_c
  sent_b=$(nat_rtp rb.pcap "ip.src == $RB_WAN && ip.dst == $C1_IP"); sent_c=$(nat_rtp rc.pcap "ip.src == $RC_WAN && ip.dst == $B1_IP")
  in_b=$(nat_rtp rb.pcap "ip.dst == $RB_WAN"); in_c=$(nat_rtp rc.pcap "ip.dst == $RC_WAN")
  echo "RTP sent to the far end's private address: router B $sent_b, router C $sent_c; RTP arriving: B $in_b, C $in_c"
  [ "$sent_b" -gt 0 ] && [ "$sent_c" -gt 0 ] || { echo "a side sent no RTP (the control proves nothing)"; return 1; }
  [ "$in_b" -eq 0 ] && [ "$in_c" -eq 0 ] || { echo "RTP reached a router from outside"; return 1; }
}

# ---- Switchboard (needs ICE in calls)
# The ICE flags for a policy: stun | turn-udp | turn-tcp | turns | turns-wrong-name | off. The TURN password
# travels in SWITCHBOARD_TURN_PASSWORD (read from coturn's mode-600 file), never on a command line.
nat_sb_ice_flags() {
  local turn="--turn-user $(cat "$NAT_RUN/coturn/turn.user")"
  case $1 in
    stun) echo "--ice on --stun $TURN_IP:$TURN_PORT" ;;
    turn-udp) echo "--ice on --stun $TURN_IP:$TURN_PORT --turn turn:$TURN_IP:$TURN_PORT?transport=udp $turn" ;;
    turn-tcp) echo "--ice on --turn turn:$TURN_IP:$TURN_PORT?transport=tcp $turn" ;;
    turns) echo "--ice on --turn turns:$TURN_IP:$TURN_TLS_PORT $turn --tls-ca $NAT_RUN/coturn/turn-ca.crt" ;;
    # The certificate names 203.0.113.20 only: the alternate address must be refused.
    turns-wrong-name) echo "--ice on --turn turns:$TURN_ALT_IP:$TURN_TLS_PORT $turn --tls-ca $NAT_RUN/coturn/turn-ca.crt" ;;
    off) echo "--ice off" ;;
  esac
}

# switchboard answer as carol in CLIENT (tone 440, records answer.wav), in the background: nat_sb_answer_start
# CLIENT IP POLICY [COUNT]. PID in answer.pid; waits for the registration.
nat_sb_answer_start() {
  local client=$1 ip=$2 policy=$3 count=${4:-1}
  # shellcheck disable=SC2046
  SWITCHBOARD_TURN_PASSWORD=$(cat "$NAT_RUN/coturn/turn.pass") ip netns exec "$(nat_ns "$client")" "$NAT_SB" answer --registrar "sip:$KAMAILIO_IP" \
    --user carol --password carolpw --listen "$ip:5400" --auto-answer --count "$count" --codecs pcmu \
    --play tone:440 --record 'answer-%n.wav' --trace $(nat_sb_ice_flags "$policy") > answer.out 2> answer.trace < /dev/null &
  echo $! > answer.pid
  wait_for answer.out "registered expires" || { echo "switchboard answer did not register"; tail -n 20 answer.trace; return 1; }
}

# Waits (10 s at most) for switchboard answer to stop after its --count calls; its exit status.
nat_sb_answer_wait() {
  local pid i=0; pid=$(cat answer.pid)
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  if kill -0 "$pid" 2>/dev/null; then echo "switchboard answer did not stop"; stop_pid "$pid"; return 1; fi
  wait "$pid"
}

# switchboard call as alice from CLIENT to TARGET (tone 1000, records call.wav), connected for
# NAT_SB_DURATION seconds (4 unless the caller sets it): nat_sb_call CLIENT IP TARGET POLICY [more flags].
nat_sb_call() {
  local client=$1 ip=$2 target=$3 policy=$4
  shift 4
  # shellcheck disable=SC2046
  SWITCHBOARD_TURN_PASSWORD=$(cat "$NAT_RUN/coturn/turn.pass") ip netns exec "$(nat_ns "$client")" "$NAT_SB" call "$target" --user alice --password alicepw \
    --proxy "sip:$KAMAILIO_IP" --listen "$ip:5400" --codecs pcmu --play tone:1000 --record call.wav --duration "${NAT_SB_DURATION:-4}" \
    --trace $(nat_sb_ice_flags "$policy") "$@" >> call.out 2>> call.trace < /dev/null
}

# The selected pair on a `connected` line: nat_sb_expect_pair FILE TYPE.
nat_sb_expect_pair() {
  local line; line=$(grep -E '^T=[0-9.]+ connected ' "$1" | tail -n 1)
  echo "$1: $line"
  grep -Eq " ice=$2 local=[0-9.]+:[0-9]+ remote=[0-9.]+:[0-9]+$" <<<"$line" \
    || { echo "$1: the connected line does not end with ice=$2 local=ADDR:PORT remote=ADDR:PORT"; return 1; }
  grep -Eq "^T=[0-9.]+ summary .* ice=$2 local=" "$1" || { echo "$1: no summary with ice=$2"; return 1; }
}

nat_sb_expect_tone() {
  [ -f "$1" ] || { echo "$1 was not recorded"; return 1; }
  python3 "$HERE/media/tonecheck.py" "$1" --expect "$2" --other "$3" --last 3 --profile 1
}

# switchboard (caller, CALLER_CLIENT) to switchboard (answer, CALLEE_CLIENT) with POLICY on both sides:
# nat_sb_to_sb CALLER_CLIENT CALLER_IP CALLEE_CLIENT CALLEE_IP POLICY ROUTER:IFACE...
nat_sb_to_sb() {
  local caller=$1 caller_ip=$2 callee=$3 callee_ip=$4 policy=$5
  shift 5
  nat_fresh_bindings carol
  nat_sb_answer_start "$callee" "$callee_ip" "$policy" || return 1
  nat_captures_start "$@" || { stop_pid "$(cat answer.pid)"; return 1; }
  nat_sb_call "$caller" "$caller_ip" "sip:carol@$KAMAILIO_IP" "$policy"
  local rc=$?
  nat_sb_answer_wait; local arc=$?
  nat_captures_stop
  echo "--- call"; cat call.out; echo "--- answer"; cat answer.out
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; tail -n 20 call.trace; return 1; }
  [ $arc -eq 0 ] || { echo "switchboard answer exited $arc"; return 1; }
}

# switchboard (caller, 1000 Hz) to baresip bob (440 Hz here):
# nat_sb_to_baresip CALLER_CLIENT CALLER_IP POLICY BOB_CLIENT BOB_IP BOB_NAT BOB_SERVER ROUTER:IFACE...
# With ICE on bob's side the call lasts 16 s: baresip 1.0 needs 5-12 s to its pair, then 4 s of audio.
nat_sb_to_baresip() {
  local caller=$1 caller_ip=$2 policy=$3 bob=$4 bob_ip=$5 bob_nat=$6 bob_server=$7
  shift 7
  nat_fresh_bindings bob
  nat_baresip_up bob "$bob" "$bob_ip" tone440.wav "$bob_nat" "$bob_server" || return 1
  nat_captures_start "$@" || { nat_baresip_down bob; return 1; }
  nat_in "$bob" python3 "$NAT_HOME/baresip-call.py" 5292 callee --timeout 60 > bob.out 2> bob.events &
  local bp=$!
  wait_for bob.out ready || echo "bob's control connection did not open"
  local NAT_SB_DURATION=4
  [ "$bob_nat" = ice ] && NAT_SB_DURATION=16
  nat_sb_call "$caller" "$caller_ip" "sip:bob@$KAMAILIO_IP" "$policy"
  local rc=$?
  wait $bp
  nat_baresip_down bob
  nat_captures_stop
  echo "--- call"; cat call.out; echo "bob: $(cat bob.out)"
  [ $rc -eq 0 ] || { echo "switchboard call exited $rc"; tail -n 20 call.trace; return 1; }
}

# (a) switchboard to switchboard on LAN A: host pair.
nat_sb_host() {
  nat_sb_to_sb a1 "$A1_IP" a2 "$A2_IP" stun ra:lan || return 1
  nat_sb_expect_pair call.out host && nat_sb_expect_pair answer.out host || return 1
  nat_sb_expect_tone call.wav 440 1000 && nat_sb_expect_tone answer-1.wav 1000 440 || return 1
  nat_expect_ice ra.pcap "LAN A" && nat_expect_direct ra.pcap "$A1_IP" "$A2_IP" 50 "LAN A"
}

# (b) switchboard behind router A calls baresip (ICE, STUN) on the public host: server-reflexive pair.
nat_sb_srflx() {
  nat_sb_to_baresip a1 "$A1_IP" stun host "$HOST_IP" ice "stun:$TURN_IP:$TURN_PORT" ra:wan || return 1
  nat_sb_expect_pair call.out srflx || return 1
  nat_sb_expect_tone call.wav 440 1000 && nat_baresip_expect_tone bob 1000 440 || return 1
  nat_expect_ice ra.pcap "router A" && nat_expect_direct ra.pcap "$RA_WAN" "$HOST_IP" 50 "router A"
}

# (c) switchboard behind router B calls baresip (ICE, TURN) behind router C: relayed.
nat_sb_relay() {
  nat_sb_to_baresip b1 "$B1_IP" turn-udp c1 "$C1_IP" ice "turn:$TURN_IP:$TURN_PORT" rb:wan rc:wan || return 1
  nat_sb_expect_pair call.out relay || return 1
  grep -Eq "connected .*(local|remote)=$TURN_IP:" call.out || { echo "the relayed pair is not on coturn ($TURN_IP)"; return 1; }
  nat_sb_expect_tone call.wav 440 1000 && nat_baresip_expect_tone bob 1000 440 || return 1
  nat_expect_ice rb.pcap "router B" && nat_expect_relayed rb.pcap "$TURN_IP" 50 "router B" \
    && nat_expect_relayed rc.pcap "$TURN_IP" 50 "router C" peer
}

# (c) the same call with --ice off (and baresip without ICE): no audio either way.
nat_sb_relay_ice_off() {
  nat_sb_to_baresip b1 "$B1_IP" off c1 "$C1_IP" none "" rb:wan rc:wan || true
  grep -q 'rtp=no' bob.out || { echo "baresip received RTP without ICE: the NATs leak"; return 1; }
  nat_baresip_expect_silence bob 1000 && nat_expect_silence call.wav 440 || return 1
  local in_b in_c; in_b=$(nat_rtp rb.pcap "ip.dst == $RB_WAN"); in_c=$(nat_rtp rc.pcap "ip.dst == $RC_WAN")
  echo "RTP arriving at router B: $in_b, at router C: $in_c"
  [ "$in_b" -eq 0 ] && [ "$in_c" -eq 0 ] || { echo "RTP crossed a NAT without ICE"; return 1; }
}

# (d) UDP to coturn blocked at routers B and C: switchboard to switchboard through TURN over TCP or TLS.
nat_sb_turn_stream() {
  local policy=turn-tcp; [ "$TRANSPORT" = tls ] && policy=turns
  "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rb on && "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rc on
  nat_sb_to_sb b1 "$B1_IP" c1 "$C1_IP" "$policy" rb:wan rc:wan
  local rc=$?
  echo "router B: $("$NAT_HOME/topology" counters "$NAT_PREFIX" rb | paste -sd' ')"
  "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rb off; "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rc off
  [ $rc -eq 0 ] || return 1
  nat_sb_expect_pair call.out relay && nat_sb_expect_pair answer.out relay || return 1
  nat_sb_expect_tone call.wav 440 1000 && nat_sb_expect_tone answer-1.wav 1000 440 || return 1
  local udp stream
  udp=$(nat_count rb.pcap "udp && ip.dst == $TURN_IP && ip.src == $RB_WAN")
  stream=$(nat_count rb.pcap "tcp.len > 0 && ip.addr == $TURN_IP")
  echo "router B: UDP to coturn on the wire: $udp; TCP segments with data to/from coturn: $stream"
  [ "$udp" -eq 0 ] || { echo "UDP to coturn left router B despite the block"; return 1; }
  [ "$stream" -gt 200 ] || { echo "too little traffic on the TURN stream for 4 s of audio"; return 1; }
  if [ "$TRANSPORT" = tcp ]; then
    # TURN framing inside the TCP stream, each way (tshark reads ChannelData and indications over TCP).
    local up down
    up=$(nat_count rb.pcap "tcp && ip.dst == $TURN_IP && (stun.channel || stun.type == 0x0016)")
    down=$(nat_count rb.pcap "tcp && ip.src == $TURN_IP && (stun.channel || stun.type == 0x0017)")
    echo "router B: TURN data over TCP to coturn $up, from coturn $down; RTP read inside: $(nat_rtp rb.pcap tcp)"
    [ "$up" -ge 50 ] && [ "$down" -ge 50 ] || { echo "fewer than 50 TURN data messages each way over TCP"; return 1; }
  else
    local rtp; rtp=$(nat_rtp rb.pcap); [ "$rtp" -eq 0 ] || { echo "$rtp RTP packets readable on the wire despite TLS"; return 1; }
  fi
}

# (d) TLS to coturn under a name its certificate does not carry: no relay, no media.
nat_sb_turns_wrong_name() {
  "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rb on && "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rc on
  nat_sb_to_sb b1 "$B1_IP" c1 "$C1_IP" turns-wrong-name rb:wan rc:wan
  "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rb off; "$NAT_HOME/topology" block-turn-udp "$NAT_PREFIX" rc off
  grep -Eq '^T=[0-9.]+ (trying|ended) ' call.out || { echo "the call was not even tried"; return 1; }
  ! grep -q ' ice=relay ' call.out || { echo "a relay was used with a certificate for another name"; return 1; }
  local hello data
  hello=$(nat_count rb.pcap "tls.handshake.type == 1 && ip.dst == $TURN_ALT_IP")
  data=$(nat_count rb.pcap "tls.record.content_type == 23 && ip.src == $RB_WAN && ip.dst == $TURN_ALT_IP")
  echo "router B to $TURN_ALT_IP: $hello ClientHello, $data encrypted records after it"
  [ "$hello" -gt 0 ] || { echo "no TLS handshake with coturn was tried"; return 1; }
  [ "$data" -le 2 ] || { echo "the client went on talking TLS to a server with the wrong name"; return 1; }
}

# (e) the far end without ICE (baresip without the ice module) on the public host: plain media.
nat_sb_no_ice_far_end() {
  nat_sb_to_baresip a1 "$A1_IP" stun host "$HOST_IP" none "" ra:wan || return 1
  grep -Eq '^T=[0-9.]+ connected ' call.out || { echo "no connected line"; return 1; }
  nat_sb_expect_tone call.wav 440 1000 && nat_baresip_expect_tone bob 1000 440 || return 1
  nat_expect_direct ra.pcap "$RA_WAN" "$HOST_IP" 50 "router A"
}

# (f) 20% loss each way at router B, switchboard to switchboard relayed (b1 to c1): in 10 calls of 10, the first
# RTP follows the answer within 5 s (ICE complete), and the tones get through. One capture for the ten calls:
# they are sequential, so each answer (the first 200 to an INVITE of a Call-ID) is followed by its own media.
nat_sb_loss() {
  local i fail=0
  "$NAT_HOME/topology" loss "$NAT_PREFIX" rb 20 || return 1
  nat_fresh_bindings carol
  nat_sb_answer_start c1 "$C1_IP" turn-udp 10 || { "$NAT_HOME/topology" loss "$NAT_PREFIX" rb off; return 1; }
  nat_capture_start "$(nat_ns rb)" wan "$CASE_DIR/rb.pcap" || fail=1
  for i in $(seq 1 10); do
    [ $fail -eq 0 ] || break
    echo "--- call $i" >> call.out
    nat_sb_call b1 "$B1_IP" "sip:carol@$KAMAILIO_IP" turn-udp || { echo "call $i failed"; fail=1; }
    mv call.wav "call-$i.wav" 2>/dev/null
  done
  nat_capture_stop "$CASE_DIR/rb.pcap"
  nat_sb_answer_wait || fail=1
  echo "router B: $("$NAT_HOME/topology" counters "$NAT_PREFIX" rb | paste -sd' ')"
  "$NAT_HOME/topology" loss "$NAT_PREFIX" rb off
  [ $fail -eq 0 ] || return 1
  local answers late=0 n=0 t delay
  answers=$(nat_read rb.pcap -Y 'sip.Status-Code == 200 && sip.CSeq.method == "INVITE"' -T fields \
    -e frame.time_relative -e sip.Call-ID | sort -u -k2,2 | sort -n | awk '{print $1}')
  for t in $answers; do
    n=$((n+1))
    delay=$(nat_answer_to_media rb.pcap "$RB_WAN" "$t")
    echo "call $n: answer to RTP (first packet, both ways): $delay s"
    awk -v d="${delay#* }" 'BEGIN { exit !(d != "-" && d <= 5) }' || late=$((late+1))
  done
  for i in $(seq 1 10); do nat_sb_expect_tone "call-$i.wav" 440 1000 >/dev/null || { echo "call $i: no 440 Hz"; fail=1; }; done
  [ $n -eq 10 ] || { echo "$n answers in the capture, not 10"; fail=1; }
  [ "$(grep -cE '^T=[0-9.]+ connected .* ice=relay ' call.out)" -eq 10 ] || { echo "not 10 relayed connected lines"; fail=1; }
  [ $late -eq 0 ] || { echo "$late of 10 calls took more than 5 s from the answer to media"; fail=1; }
  return $fail
}

# ---- registration
nat_reason=$(nat_unavailable)
if [ -n "$nat_reason" ]; then
  log "nat: the NAT group is skipped: $nat_reason"
else
  case_add nat nat-topology-selfcheck coturn udp nat_topology_selfcheck
  case_add nat nat-topology-baresip-relay baresip udp nat_baresip_relay
  case_add nat nat-topology-baresip-relay-ice-off baresip udp nat_baresip_relay_ice_off
  # Outside CI (any --only): the other two baresip proofs.
  if [ -n "$ONLY" ]; then
    case_add nat nat-topology-baresip-host baresip udp nat_baresip_host
    case_add nat nat-topology-baresip-srflx baresip udp nat_baresip_srflx
  fi
  if [ -x "$NAT_SB" ] && "$NAT_SB" call --help 2>&1 | grep -q -- '--ice'; then
    case_add nat nat-sb-host switchboard udp nat_sb_host
    case_add nat nat-sb-srflx switchboard udp nat_sb_srflx
    case_add nat nat-sb-relay switchboard udp nat_sb_relay
    case_add nat nat-sb-relay-ice-off switchboard udp nat_sb_relay_ice_off
    case_add nat nat-sb-turn switchboard tcp nat_sb_turn_stream
    case_add nat nat-sb-turn switchboard tls nat_sb_turn_stream
    case_add nat nat-sb-turns-wrong-name switchboard tls nat_sb_turns_wrong_name
    case_add nat nat-sb-no-ice-far-end switchboard udp nat_sb_no_ice_far_end
    case_add nat nat-sb-loss-10-calls switchboard udp nat_sb_loss
  else
    log "nat: the Switchboard NAT cases are skipped: \`switchboard call --help\` lists no --ice (ICE in calls, issue 14, is not in this build)"
  fi
fi
