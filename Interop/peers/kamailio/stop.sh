#!/bin/sh
# Stops the Kamailio started by start.sh, by PID (SIGTERM, then SIGKILL after 5 s).
: "${RUN:?RUN must name a run directory}"
P=$(cat "$RUN/kamailio.main.pid" 2>/dev/null) || exit 0
kill -TERM "$P" 2>/dev/null || exit 0
i=0; while kill -0 "$P" 2>/dev/null; do i=$((i+1)); [ $i -gt 100 ] && kill -KILL "$P"; sleep 0.05; done
rm -f "$RUN/kamailio.main.pid"
