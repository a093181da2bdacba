#!/usr/bin/env python3
"""Drives baresip's ctrl_tcp module (netstring-framed JSON) for the Interop scenarios; every wait is bounded.

  bctl.py PORT dial URI [--hold S] [--put-on-hold S] [--expect-closed-by-remote] [--expect-reject CODE] [--timeout T]
      dial URI; with --hold, hang up S seconds after CALL_ESTABLISHED; with --expect-closed-by-remote, wait for
      the other side to hang up; with --expect-reject, expect CALL_CLOSED before CALL_ESTABLISHED naming CODE;
      --put-on-hold as for callee.
  bctl.py PORT callee [--accept] [--reject] [--hold S] [--put-on-hold S] [--expect-closed-by-remote] [--timeout T]
      wait for an incoming call (open this before the call starts: events reach only open connections);
      --accept answers it (answermode=manual), --reject hangs it up unanswered, --hold S hangs up S seconds
      after CALL_ESTABLISHED, --put-on-hold S puts the call on hold (re-INVITE) S seconds after CALL_ESTABLISHED
      (then --hold counts from there), --expect-closed-by-remote waits for the caller to hang up.
  bctl.py PORT COMMAND [PARAMS]
      one command; prints the response's data.
Exit status 0 when the call went as expected. Events are printed on stderr, one JSON object a line; "ready" on
stdout once connected (start the call only then).
"""
import json
import socket
import sys
import time


class Ctrl:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buf = b""
        self.n = 0
        self.pending = []

    def _read(self, deadline):
        while True:
            colon = self.buf.find(b":")
            if colon > 0:
                size = int(self.buf[:colon])
                if len(self.buf) >= colon + 2 + size:
                    body = self.buf[colon + 1:colon + 1 + size]
                    self.buf = self.buf[colon + 2 + size:]
                    return json.loads(body)
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no message from baresip in time")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("baresip closed the control connection")
            self.buf += chunk

    def command(self, cmd, params=None):
        self.n += 1
        token = "t%d" % self.n
        msg = {"command": cmd, "token": token}
        if params:
            msg["params"] = params
        data = json.dumps(msg).encode()
        self.sock.sendall(b"%d:%s," % (len(data), data))
        deadline = time.time() + 5
        while True:
            m = self._read(deadline)
            if m.get("response") and m.get("token") == token:
                return m
            if m.get("event"):
                self.pending.append(m)

    def event(self, deadline):
        m = self.pending.pop(0) if self.pending else None
        while m is None or not m.get("event"):
            m = self._read(deadline)
        print("event: " + json.dumps(m), file=sys.stderr, flush=True)
        return m

    def wait(self, types, deadline):
        while True:
            m = self.event(deadline)
            if m.get("type") in types:
                return m


def option(args, name, default=None, flag=False):
    if name not in args:
        return default
    if flag:
        return True
    return args[args.index(name) + 1]


def main():
    port = int(sys.argv[1])
    mode = sys.argv[2]
    args = sys.argv[3:]
    c = Ctrl(port)
    if mode in ("dial", "callee"):
        print("ready", flush=True)  # connected: events from now on reach this connection
    timeout = float(option(args, "--timeout", "15"))
    deadline = time.time() + timeout
    hold = option(args, "--hold")
    remote = option(args, "--expect-closed-by-remote", flag=True)
    if mode == "dial":
        r = c.command("dial", args[0])
        if not r.get("ok"):
            print("dial failed: %s" % r, file=sys.stderr)
            return 1
        reject = option(args, "--expect-reject")
        m = c.wait(("CALL_ESTABLISHED", "CALL_CLOSED"), deadline)
        if reject:
            ok = m.get("type") == "CALL_CLOSED" and reject in m.get("param", "")
            print("closed before established: %s" % m.get("param"), file=sys.stderr)
            return 0 if ok else 1
        if m.get("type") != "CALL_ESTABLISHED":
            print("call failed: %s" % m.get("param"), file=sys.stderr)
            return 1
    elif mode == "callee":
        # With answermode=auto baresip reports no CALL_INCOMING, only CALL_ESTABLISHED.
        m = c.wait(("CALL_INCOMING", "CALL_ESTABLISHED", "CALL_CLOSED"), deadline)
        if m.get("type") == "CALL_INCOMING" and option(args, "--reject", flag=True):
            c.command("hangup")
            m = c.wait(("CALL_CLOSED",), deadline)
            return 0
        if m.get("type") == "CALL_INCOMING":
            if option(args, "--accept", flag=True):
                c.command("accept")
            m = c.wait(("CALL_ESTABLISHED", "CALL_CLOSED"), deadline)
        if m.get("type") != "CALL_ESTABLISHED":
            print("call failed: %s" % m.get("param"), file=sys.stderr)
            return 1
    else:
        r = c.command(mode, " ".join(args) or None)
        print(r.get("data", ""))
        return 0 if r.get("ok") else 1
    put_on_hold = option(args, "--put-on-hold")
    if put_on_hold is not None:
        time.sleep(float(put_on_hold))
        r = c.command("hold")
        print("hold: %s" % r.get("ok"), file=sys.stderr, flush=True)
        if not r.get("ok"):
            return 1
    if hold is not None:
        time.sleep(float(hold))
        c.command("hangup")
        m = c.wait(("CALL_CLOSED",), deadline)
        print("hung up locally: %s" % m.get("param"), file=sys.stderr)
        return 0
    if remote:
        m = c.wait(("CALL_CLOSED",), deadline)
        print("closed by the other side: %s" % m.get("param"), file=sys.stderr)
        return 0
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (TimeoutError, ConnectionError, OSError) as e:
        print("bctl: %s" % e, file=sys.stderr)
        sys.exit(1)
