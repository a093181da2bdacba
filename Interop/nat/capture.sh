# Captures in the NAT topology's namespaces and the checks read from them (sourced, bash; tshark 4.0).
# Every reader decodes what TURN carries: STUN and RTP inside ChannelData and Send/Data indications
# (heuristics stun_turn and rtp_stun, off by default) and RTP on any UDP port (rtp_udp), so a check sees the
# same packets whether they went direct or through the relay.

# (Functions only: Interop/run hands a case its functions and exported variables, not arrays.)
nat_read() { tshark -r "$1" --enable-heuristic stun_turn --enable-heuristic rtp_stun --enable-heuristic rtp_udp "${@:2}" 2>/dev/null; }

# Starts tshark on IFACE inside namespace NS, writing FILE: nat_capture_start NS IFACE FILE.
nat_capture_start() {
  local netns=$1 iface=$2 file=$3
  ip netns exec "$netns" tshark -i "$iface" -w "$file" -q > "$file.log" 2>&1 &
  echo $! > "$file.pid"
  local i=0
  until grep -q "Capture started" "$file.log" 2>/dev/null; do
    i=$((i+1)); [ $i -gt 100 ] && { echo "tshark did not start in $netns: $(cat "$file.log")"; return 1; }
    sleep 0.05
  done
  sleep 0.2
}

nat_capture_stop() {
  local file=$1 pid i=0
  [ -f "$file.pid" ] || return 0
  sleep 0.3
  pid=$(cat "$file.pid")
  kill -INT "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null; do i=$((i+1)); [ $i -gt 100 ] && kill -KILL "$pid"; sleep 0.05; done
  rm -f "$file.pid"
}

# The number of packets of FILE matching the display FILTER: nat_count FILE FILTER.
nat_count() { nat_read "$1" -Y "$2" -T fields -e frame.number | wc -l; }

# ICE connectivity checks (RFC 8445 §7.1.2): Binding requests with USERNAME and MESSAGE-INTEGRITY; the ones
# that also carry USE-CANDIDATE (0x0025) nominate. Gathering requests to the server carry no USERNAME.
nat_check_filter() { echo 'stun.type == 0x0001 && stun.att.type == 0x0006 && stun.att.type == 0x0008'; }
nat_checks() { nat_count "$1" "$(nat_check_filter)"; }
nat_nominations() { nat_count "$1" "$(nat_check_filter) && stun.att.type == 0x0025"; }

# RTP packets matching an extra FILTER (e.g. "ip.dst == 203.0.113.20"): nat_rtp FILE [FILTER].
nat_rtp() { nat_count "$1" "rtp.version == 2${2:+ && ($2)}"; }

# RTP carried by TURN (ChannelData, or Send/Data indications: a stun layer around it) to and from the relay
# address ADDR: prints "to=N from=N".
nat_rtp_relayed() {
  local file=$1 addr=$2
  echo "to=$(nat_rtp "$file" "stun && ip.dst == $addr") from=$(nat_rtp "$file" "stun && ip.src == $addr")"
}

# Asserts the captures of a call: nat_expect_ice FILE LABEL: checks with MESSAGE-INTEGRITY and at least one
# nomination (USE-CANDIDATE) were seen in FILE.
nat_expect_ice() {
  local file=$1 label=$2 checks nominations
  checks=$(nat_checks "$file"); nominations=$(nat_nominations "$file")
  echo "$label: $checks connectivity checks with MESSAGE-INTEGRITY, $nominations with USE-CANDIDATE"
  [ "$checks" -gt 0 ] || { echo "$label: no connectivity check with MESSAGE-INTEGRITY in the capture"; return 1; }
  [ "$nominations" -gt 0 ] || { echo "$label: no check with USE-CANDIDATE in the capture"; return 1; }
}

# Asserts that every RTP packet in FILE went to or came from the TURN server's address ADDR, at least MIN
# packets each way: nat_expect_relayed FILE ADDR MIN LABEL [peer]. Without "peer", through TURN framing
# both ways (the capture of the client that holds the allocation). With "peer", any framing: the far end of
# a relayed pair that has no allocation of its own reaches the relayed address with plain RTP, and the
# relay's answers come from that address as plain RTP too (RFC 8656 §2.2).
nat_expect_relayed() {
  local file=$1 addr=$2 min=$3 label=$4 other relayed to from
  other=$(nat_rtp "$file" "!(ip.addr == $addr)")
  if [ "${5:-}" = peer ]; then
    relayed="to=$(nat_rtp "$file" "ip.dst == $addr") from=$(nat_rtp "$file" "ip.src == $addr")"
  else
    relayed=$(nat_rtp_relayed "$file" "$addr")
  fi
  to=${relayed%% *}; to=${to#to=}; from=${relayed##*from=}
  echo "$label: RTP through TURN at $addr: $relayed; RTP elsewhere: $other"
  [ "$other" -eq 0 ] || { echo "$label: $other RTP packets bypassed the relay"; return 1; }
  [ "$to" -ge "$min" ] && [ "$from" -ge "$min" ] || { echo "$label: fewer than $min relayed RTP packets each way"; return 1; }
}

# Asserts that RTP flowed between addresses A and B directly (not through TURN), at least MIN packets each
# way: nat_expect_direct FILE A B MIN LABEL.
nat_expect_direct() {
  local file=$1 a=$2 b=$3 min=$4 label=$5 ab ba turned
  ab=$(nat_rtp "$file" "!stun && ip.src == $a && ip.dst == $b")
  ba=$(nat_rtp "$file" "!stun && ip.src == $b && ip.dst == $a")
  turned=$(nat_rtp "$file" "stun")
  echo "$label: RTP $a -> $b: $ab, $b -> $a: $ba, inside TURN framing: $turned"
  [ "$ab" -ge "$min" ] && [ "$ba" -ge "$min" ] || { echo "$label: fewer than $min direct RTP packets each way"; return 1; }
  [ "$turned" -eq 0 ] || { echo "$label: $turned RTP packets went through TURN"; return 1; }
}

# The capture's relative time of the first packet matching FILTER (empty when none): nat_first FILE FILTER.
nat_first() {
  nat_read "$1" -Y "$2" -T fields -e frame.time_relative | head -n 1
}
