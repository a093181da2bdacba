#!/bin/bash
# Starts a headless baresip on config DIR in the background and waits (10 s at most) until its account is
# registered and its ctrl_tcp port answers. PID in DIR/baresip.pid, log in DIR/baresip.log.
# Usage: peers/baresip/start.sh DIR
DIR=$(cd "$1" && pwd)
CP=$(awk '$1=="ctrl_tcp_listen"{split($2,a,":");print a[2]}' "$DIR/config")
baresip -f "$DIR" > "$DIR/baresip.log" 2>&1 < /dev/null &
echo $! > "$DIR/baresip.pid"
i=0
while :; do
  i=$((i+1))
  if [ $i -gt 100 ]; then echo "baresip $DIR: not registered after 10 s" >&2; tail -20 "$DIR/baresip.log" >&2; exit 1; fi
  kill -0 "$(cat "$DIR/baresip.pid")" 2>/dev/null || { echo "baresip $DIR exited" >&2; tail -20 "$DIR/baresip.log" >&2; exit 1; }
  if grep -q '} 200 OK' "$DIR/baresip.log" && (exec 3<>/dev/tcp/127.0.0.1/$CP) 2>/dev/null; then break; fi
  sleep 0.1
done
