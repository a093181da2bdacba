# RFC 4475 §3.3 (application-layer torture messages), each sent over UDP by rfc4475/send.py to
# `switchboard answer --auto-answer`, one case per message: the response a user agent (not a proxy, not a
# registrar) must give, and, for the ones the RFC says must not break the element, an OPTIONS afterwards.
# The bytes are Tests/SIPMessageTests/Data/rfc4475/ (the RFC's Appendix A archive); send.py only points the top
# Via at itself so the response can come back. switchboard takes any free port (--listen 127.0.0.1:0): other
# runs on this machine take free pairs anywhere in 5400-5499.

export RFC4475_DIR="$ROOT/Tests/SIPMessageTests/Data/rfc4475"

# torture FILE send.py-arguments...
torture() {
  local name=$1; shift
  "$(switchboard_bin)" answer --listen 127.0.0.1:0 --auto-answer --trace > events.out 2> trace.out < /dev/null &
  local ap=$!
  wait_for trace.out "listening on udp:127.0.0.1:" || { cat trace.out; stop_pid $ap; return 1; }
  local port; port=$(grep -o 'listening on udp:127.0.0.1:[0-9]*' trace.out | head -1 | sed 's/.*://')
  capture_start "$CASE_DIR/capture.pcap" "udp port $port"
  python3 "$HERE/rfc4475/send.py" "$RFC4475_DIR/$name.dat" "$port" "$@"
  local rc=$?
  stop_pid $ap
  capture_stop "$CASE_DIR/capture.pcap"
  capture_sip "$CASE_DIR/capture.pcap" > capture.txt
  # No call may have been set up by any of these messages.
  if grep -q " connected " events.out; then echo "a torture message set up a call:"; cat events.out; return 1; fi
  return $rc
}

# §3.3.1 No Call-ID, From, To: 400, and the element still answers.
rfc4475_insuf()    { torture insuf --expect 400 --probe; }
# §3.3.2 Request-URI with an unknown scheme: 416.
rfc4475_unkscm()   { torture unkscm --expect 416; }
# §3.3.3 A known but atypical scheme (soap.beep) that a UA never accepts: 416 (404 allowed).
rfc4475_novelsc()  { torture novelsc --expect 416,404; }
# §3.3.4 REGISTER with non-SIP schemes in To/From/Contact: a UA is no registrar, 405 with Allow (400 from a
# registrar).
rfc4475_unksm2()   { torture unksm2 --expect 405,400 --header '^Allow:'; }
# §3.3.5 Require with unknown option tags: 420 with Unsupported naming both (Proxy-Require is for proxies).
rfc4475_bext01()   { torture bext01 --expect 420 --header '^Unsupported:.*nothingSupportsThis\b' \
  --header '^Unsupported:.*nothingSupportsThisEither'; }
# §3.3.6 INVITE with an unknown body type: 415 listing what is acceptable in Accept (§21.4.13).
rfc4475_invut()    { torture invut --expect 415 --header '^Accept:.*application/sdp'; }
# §3.3.7 REGISTER with an unknown Authorization scheme: a UA that is no registrar answers 405.
rfc4475_regaut01() { torture regaut01 --expect 405,401 --probe; }
# §3.3.8 Two values in single-valued fields: 400, and the element still answers.
rfc4475_multi01()  { torture multi01 --expect 400 --probe; }
# §3.3.9 Two different Content-Length values: a framing error, 400 over UDP.
rfc4475_mcl01()    { torture mcl01 --expect 400 --probe; }
# §3.3.10 A 200 with a broadcast Via: dropped (no answer, nothing sent on), the element still answers.
rfc4475_bcast()    { torture bcast --no-response --probe; }
# §3.3.11 OPTIONS with Max-Forwards 0: an endpoint processes it normally (483 is for proxies): 200.
rfc4475_zeromf()   { torture zeromf --expect 200; }
# §3.3.12-14 REGISTERs a registrar would accept: a UA answers 405 with Allow.
rfc4475_cparam01() { torture cparam01 --expect 405 --header '^Allow:'; }
rfc4475_cparam02() { torture cparam02 --expect 405 --header '^Allow:'; }
rfc4475_regescrt() { torture regescrt --expect 405 --header '^Allow:'; }
# §3.3.15 INVITE whose Accept excludes SDP: 406 (400 allowed); never a 200 with SDP.
rfc4475_sdp01()    { torture sdp01 --expect 406,400; }

for m in insuf unkscm novelsc unksm2 bext01 invut regaut01 multi01 mcl01 bcast zeromf cparam01 cparam02 regescrt sdp01; do
  case_add rfc4475 "rfc4475-$m" switchboard udp "rfc4475_$m"
done
