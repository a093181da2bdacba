#!/usr/bin/env python3
"""Drives one baresip call across the NAT topology through ctrl_tcp (media/baresip-ctl.py's client), timing
ICE: baresip 1.0 reports CALL_ESTABLISHED at the 200 OK and CALL_RTPESTAB when the first RTP arrives, which
with ICE is after the connectivity checks (5-12 s to a relayed pair).

  baresip-call.py PORT dial URI [--audio S] [--max S] [--timeout T]
  baresip-call.py PORT callee [--timeout T]

dial: hangs up S seconds (--audio, default 4) after the first RTP, or --max seconds (default 25) after
CALL_ESTABLISHED when no RTP comes (the ICE-off control). callee: prints "ready" once connected, then follows
the call until the caller hangs up. Every event goes to stderr; one line to stdout at the end:
  established=yes|no rtp=yes|no answer_to_rtp=SECONDS|none closed=local|remote|no
Exit 0 when the call was established and closed (with or without RTP: the caller's assertions decide).
"""
import importlib.util
import os
import sys
import time

_spec = importlib.util.spec_from_file_location(
    "baresip_ctl", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "media", "baresip-ctl.py"))
baresip_ctl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baresip_ctl)


def follow(ctrl, deadline, audio, longest, caller):
    established = rtp = None
    closed = "no"
    hangup_at = None
    while closed == "no":
        wake = min(t for t in (hangup_at, deadline) if t is not None)
        m = ctrl.event(wake)
        now = time.time()
        if m is None:
            if hangup_at is not None and now >= hangup_at:
                ctrl.command("hangup")
                closed = "local"
                end = min(deadline, now + 5)
                while True:
                    m = ctrl.event(end)
                    if m is None or m.get("type") == "CALL_CLOSED":
                        break
                break
            if now >= deadline:
                break
            continue
        kind = m.get("type")
        if kind == "CALL_ESTABLISHED" and established is None:
            established = now
            if caller:
                hangup_at = now + longest
        elif kind == "CALL_RTPESTAB" and rtp is None:
            rtp = now
            if caller and established is not None:
                hangup_at = min(hangup_at, now + audio)
        elif kind == "CALL_CLOSED":
            closed = "remote"
    delay = "%.2f" % (rtp - established) if rtp and established else "none"
    print("established=%s rtp=%s answer_to_rtp=%s closed=%s"
          % ("yes" if established else "no", "yes" if rtp else "no", delay, closed), flush=True)
    return established is not None and closed != "no"


def main():
    args = sys.argv[1:]
    port, mode = int(args[0]), args[1]
    audio = float(baresip_ctl.option(args, "--audio", "4"))
    longest = float(baresip_ctl.option(args, "--max", "25"))
    deadline = time.time() + float(baresip_ctl.option(args, "--timeout", "45"))
    ctrl = baresip_ctl.Ctrl(port)
    if mode == "dial":
        r = ctrl.command("dial", args[2])
        if not r.get("ok"):
            print("dial failed: %s" % r, file=sys.stderr)
            return 1
        return 0 if follow(ctrl, deadline, audio, longest, True) else 1
    if mode == "callee":
        print("ready", flush=True)
        return 0 if follow(ctrl, deadline, audio, longest, False) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (TimeoutError, ConnectionError, OSError) as e:
        print("baresip-call: %s" % e, file=sys.stderr)
        sys.exit(1)
