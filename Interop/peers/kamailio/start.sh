#!/bin/sh
# Starts Kamailio in the background for the Interop run and waits until it answers on its RPC socket.
# Usage: RUN=dir CERTDIR=dir [CFG=kamailio-reuse.cfg] peers/kamailio/start.sh [extra kamailio args, e.g. -A WITH_IPV6]
# CFG names the configuration in this directory (kamailio.cfg unless set); it runs as $RUN/kamailio.cfg.
# The configuration is copied into $RUN with the certificate paths filled in; the PID is in $RUN/kamailio.main.pid.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
: "${RUN:?RUN must name a run directory}"
: "${CERTDIR:?CERTDIR must name the certificate directory}"
mkdir -p "$RUN/sipdump"
RUN=$(cd "$RUN" && pwd)
cp "$HERE/${CFG:-kamailio.cfg}" "$RUN/kamailio.cfg"
cp "$HERE/users.cfg" "$RUN/"
sed "s|__CERTDIR__|$CERTDIR|g" "$HERE/tls.cfg" > "$RUN/tls.cfg"
LOG=${LOG:-$RUN/kamailio.log}
kamailio -f "$RUN/kamailio.cfg" -DD -E -P "$RUN/kamailio.pid" -m 128 -M 16 \
  --substdef="!__RUNDIR__!$RUN!g" "$@" >"$LOG" 2>&1 &
echo $! > "$RUN/kamailio.main.pid"
i=0
until kamcmd -s "unix:$RUN/kamailio_ctl" core.uptime >/dev/null 2>&1; do
  i=$((i+1)); [ $i -gt 200 ] && { echo "kamailio did not start, see $LOG" >&2; exit 1; }
  kill -0 "$(cat "$RUN/kamailio.main.pid")" 2>/dev/null || { echo "kamailio exited, see $LOG" >&2; tail -20 "$LOG" >&2; exit 1; }
  sleep 0.05
done
