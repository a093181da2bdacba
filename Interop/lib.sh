# Shared helpers for Interop/run and the scenario files (sourced, bash).

# Registers a case: GROUP (shares a set-up: a peer started once), NAME, PEER, TRANSPORT, FUNCTION.
CASES=()
case_add() { CASES+=("$1|$2|$3|$4|$5"); }

# Group set-up and tear-down: a scenario file defines group_setup_<group> / group_teardown_<group>.

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Waits (up to 15 s, a liveness guard for a busy machine) until FILE contains PATTERN.
wait_for() {
  local file=$1 pattern=$2 i=0
  until grep -q -- "$pattern" "$file" 2>/dev/null; do
    i=$((i+1)); [ $i -gt 300 ] && return 1
    sleep 0.05
  done
}

# Waits (up to 5 s) until something listens on UDP port PORT on 127.0.0.1.
wait_udp_port() { wait_port "$1" udp; }

# Waits (up to 5 s) until something listens on port PORT on 127.0.0.1 over TRANSPORT (udp, the default, or tcp).
wait_port() {
  local i=0 flag=-Hlun
  [ "${2:-udp}" = tcp ] && flag=-Hltn
  until ss $flag "( sport = :$1 )" 2>/dev/null | grep -q .; do
    i=$((i+1)); [ $i -gt 100 ] && return 1
    sleep 0.05
  done
}

# Stops a process by PID: SIGTERM, then SIGKILL after 3 s; tolerates a PID that is gone.
stop_pid() {
  local pid=$1 i=0
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do
    i=$((i+1)); [ $i -gt 60 ] && { kill -KILL "$pid" 2>/dev/null; break; }
    sleep 0.05
  done
  wait "$pid" 2>/dev/null || true
}

# tshark capture of the case's ports on lo: capture_start FILE BPF / capture_stop FILE.
capture_start() {
  local file=$1 bpf=$2
  tshark -i lo -f "$bpf" -w "$file" -q > "$file.log" 2>&1 &
  echo $! > "$file.pid"
  wait_for "$file.log" "Capture started" || { log "tshark did not start: $(cat "$file.log")"; return 1; }
  sleep 0.2
}

capture_stop() {
  local file=$1
  [ -f "$file.pid" ] || return 0
  sleep 0.3
  local pid; pid=$(cat "$file.pid")
  kill -INT "$pid" 2>/dev/null
  local i=0; while kill -0 "$pid" 2>/dev/null; do i=$((i+1)); [ $i -gt 100 ] && kill -KILL "$pid"; sleep 0.05; done
  rm -f "$file.pid"
}

# One line per SIP message in a capture: time src sport dport info.
capture_sip() {
  tshark -r "$1" -Y sip -T fields -E separator=' ' -e frame.time_relative -e ip.src -e udp.srcport \
    -e tcp.srcport -e udp.dstport -e tcp.dstport -e _ws.col.Info 2>/dev/null
}

# Runs sipp in the background with the common loopback options; echoes its PID.
sipp_bg() {
  local out=$1; shift
  sipp "$@" -i 127.0.0.1 -nostdin > "$out" 2>&1 &
  echo $!
}

# The Switchboard interop endpoint is "$ENDPOINT" (built by Interop/run). Always start background
# processes directly, never through a shell function: `f &` backgrounds a subshell, and killing $! would
# leave the real process holding its port.
