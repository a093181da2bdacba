#!/bin/sh
# Stops the baresip started by baresip-start.sh on DIR, by PID (SIGTERM: it unregisters, then exits; SIGKILL
# after 5 s).
DIR=$(cd "$1" && pwd)
P=$(cat "$DIR/baresip.pid" 2>/dev/null) || exit 0
kill -TERM "$P" 2>/dev/null
i=0; while kill -0 "$P" 2>/dev/null; do i=$((i+1)); [ $i -gt 50 ] && kill -KILL "$P"; sleep 0.1; done
rm -f "$DIR/baresip.pid"
