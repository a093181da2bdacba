# Switchboard client against Switchboard server in a network namespace made for the case, with an nftables
# rule dropping 20% of the UDP datagrams both ways (netem does not exist on these kernels). T1 = 100 ms.
# 200 non-INVITE and 200 INVITE transactions (final 486) must complete at least 99%, with retransmissions;
# 10 more to a port that drops everything must time out at 64*T1 within 50 ms.

loss_case() {
  local method=$1 expect=$2
  local ns="sb-lossy-$$-$RANDOM"
  ip netns add "$ns" || return 1
  ip -n "$ns" link set lo up
  ip netns exec "$ns" nft -f - <<NFT || { ip netns del "$ns"; return 1; }
table inet lossy {
  chain in {
    type filter hook input priority 0;
    udp dport { 5410, 5411 } numgen random mod 100 < 20 drop
    udp dport 5412 drop
  }
}
NFT
  ip netns exec "$ns" "$ENDPOINT" uas --listen udp:127.0.0.1:5410 --t1-ms 100 > uas.out 2>&1 &
  local uas=$!
  wait_for uas.out "ready udp" || { cat uas.out; stop_pid $uas; ip netns del "$ns"; return 1; }
  ip netns exec "$ns" "$ENDPOINT" uac --target "sip:svc@127.0.0.1:5410" --listen udp:127.0.0.1:5411 \
    --method "$method" --count 200 --concurrency 25 --t1-ms 100 --expect "$expect" --min-success 99 > uac.out 2>&1
  local rc=$?
  ip netns exec "$ns" "$ENDPOINT" uac --target "sip:svc@127.0.0.1:5412" --listen udp:127.0.0.1:5413 \
    --method "$method" --count 10 --concurrency 10 --t1-ms 100 --min-success 0 > timeouts.out 2>&1
  stop_pid $uas
  ip netns del "$ns"
  cat uac.out timeouts.out uas.out
  [ $rc -eq 0 ] || { echo "fewer than 99% of the transactions completed"; return 1; }
  grep -Eq "retransmissions=[1-9]" uac.out || { echo "no retransmissions were counted"; return 1; }
  grep -q "timeouts=10 " timeouts.out || { echo "the black-holed transactions did not all time out"; return 1; }
  local deviation; deviation=$(grep -o "timeout_deviation_ms_max=[0-9]*" timeouts.out | cut -d= -f2)
  [ -n "$deviation" ] && [ "$deviation" -le 50 ] || { echo "a timeout fired ${deviation:-?} ms away from 64*T1"; return 1; }
}

loss_non_invite() { loss_case OPTIONS 200; }
loss_invite() { loss_case INVITE 486; }

case_add netns non-invite-20pct-loss switchboard udp loss_non_invite
case_add netns invite-486-20pct-loss switchboard udp loss_invite
