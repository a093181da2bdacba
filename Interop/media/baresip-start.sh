#!/bin/bash
# Starts a headless baresip on config DIR in the background and waits (10 s at most) until its ctrl_tcp port
# answers and, when its account registers (regint > 0), until Kamailio said 200 OK. PID in DIR/baresip.pid,
# log in DIR/baresip.log. (The same as interop4's Interop/peers/baresip/start.sh, plus accounts that do not
# register.) Usage: media/baresip-start.sh DIR
DIR=$(cd "$1" && pwd)
CP=$(awk '$1=="ctrl_tcp_listen"{split($2,a,":");print a[2]}' "$DIR/config")
REG=1; grep -q 'regint=0' "$DIR/accounts" && REG=0
cd "$DIR" || exit 1   # sndfile's snd_path "rec" is relative to it
baresip -f "$DIR" > "$DIR/baresip.log" 2>&1 < /dev/null &
echo $! > "$DIR/baresip.pid"
i=0
while :; do
  i=$((i+1))
  if [ $i -gt 100 ]; then echo "baresip $DIR: not ready after 10 s" >&2; tail -20 "$DIR/baresip.log" >&2; exit 1; fi
  kill -0 "$(cat "$DIR/baresip.pid")" 2>/dev/null || { echo "baresip $DIR exited" >&2; tail -20 "$DIR/baresip.log" >&2; exit 1; }
  if { [ $REG -eq 0 ] || grep -q '} 200 OK' "$DIR/baresip.log"; } && (exec 3<>/dev/tcp/127.0.0.1/$CP) 2>/dev/null; then
    break
  fi
  sleep 0.1
done
