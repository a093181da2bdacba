#!/usr/bin/env python3
"""Drives one baresip call through its ctrl_tcp module (netstring-framed JSON) for the media scenarios; every
wait is bounded. Adapted from interop4's Interop/peers/baresip/bctl.py (duplicated so this suite stands alone).

  baresip-ctl.py PORT dial URI   [options]    dial URI, then follow the call
  baresip-ctl.py PORT callee     [options]    wait for an incoming call (auto-answered), then follow it
  baresip-ctl.py PORT COMMAND [PARAMS]        one command; prints the response's data

Options for a call:
  --for S               hang up S seconds after CALL_ESTABLISHED (default: wait for the other side's BYE)
  --dtmf DIGITS         send DIGITS (RFC 4733, baresip's in-call `sndcode`) --dtmf-at seconds after established
  --dtmf-at S           (default 1.5)
  --at S COMMAND        run the in-call command COMMAND (e.g. hold, resume) S seconds after established;
                        repeatable
  --timeout T           overall bound in seconds (default 30)

Open the connection before the call starts: baresip pushes events only to connections open at that moment.
In callee mode a line `ready` on stdout says the connection is open. Every event is printed on stderr (one
JSON object a line); at the end one line on stdout:
  established=yes|no closed=local|remote|no dtmf-received=DIGITS
Exit status 0 when the call was established and closed as asked.
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
        print("command: " + json.dumps(msg), file=sys.stderr, flush=True)
        deadline = time.time() + 5
        while True:
            m = self._read(deadline)
            if m.get("response") and m.get("token") == token:
                print("response: " + json.dumps(m), file=sys.stderr, flush=True)
                return m
            if m.get("event"):
                self.pending.append(m)

    def event(self, deadline):
        """The next event before the deadline, or None when the deadline passes."""
        while True:
            if self.pending:
                m = self.pending.pop(0)
            else:
                try:
                    m = self._read(deadline)
                except TimeoutError:
                    return None
            if m.get("event"):
                print("event: " + json.dumps(m), file=sys.stderr, flush=True)
                return m


def option(args, name, default=None):
    return args[args.index(name) + 1] if name in args else default


def timed_commands(args):
    """The (seconds, command, params) of every --at, in time order."""
    found = []
    for i, arg in enumerate(args):
        if arg == "--at":
            found.append((float(args[i + 1]), args[i + 2], None))
    if "--dtmf" in args:
        found.append((float(option(args, "--dtmf-at", "1.5")), "sndcode", option(args, "--dtmf")))
    return sorted(found, key=lambda item: item[0])


def follow(c, args, deadline):
    """Waits for the call to be established, then sends digits, hangs up or waits for the other side."""
    digits = []
    established = None
    closed = "no"
    hold = option(args, "--for")
    while established is None:
        m = c.event(deadline)
        if m is None:
            break
        if m.get("type") == "CALL_ESTABLISHED":
            established = time.time()
        elif m.get("type") == "CALL_CLOSED":
            closed = "remote"
            break
    if established is not None:
        hangup_at = established + float(hold) if hold is not None else None
        commands = [(established + at, cmd, params) for at, cmd, params in timed_commands(args)]
        while closed == "no":
            now = time.time()
            if commands and now >= commands[0][0]:
                _, cmd, params = commands.pop(0)
                c.command(cmd, params)
                continue
            if hangup_at is not None and now >= hangup_at:
                c.command("hangup")
                hangup_at = None
                closed = "local"
                # Wait for CALL_CLOSED below.
                end = min(deadline, time.time() + 5)
                while True:
                    m = c.event(end)
                    if m is None or m.get("type") == "CALL_CLOSED":
                        break
                    if m.get("type") == "CALL_DTMF_START":
                        digits.append(m.get("param", ""))
                break
            wake = min(t for t in (commands[0][0] if commands else None, hangup_at, deadline) if t is not None)
            m = c.event(wake)
            if m is None:
                if time.time() >= deadline:
                    break
                continue
            if m.get("type") == "CALL_DTMF_START":
                digits.append(m.get("param", ""))
            elif m.get("type") == "CALL_CLOSED":
                closed = "remote"
    print("established=%s closed=%s dtmf-received=%s"
          % ("yes" if established else "no", closed, "".join(digits)), flush=True)
    return established is not None and closed != "no"


def main():
    port = int(sys.argv[1])
    mode = sys.argv[2]
    args = sys.argv[3:]
    c = Ctrl(port)
    deadline = time.time() + float(option(args, "--timeout", "30"))
    if mode == "dial":
        r = c.command("dial", args[0])
        if not r.get("ok"):
            print("dial failed: %s" % r, file=sys.stderr)
            return 1
        return 0 if follow(c, args[1:], deadline) else 1
    if mode == "callee":
        print("ready", flush=True)
        return 0 if follow(c, args, deadline) else 1
    r = c.command(mode, " ".join(args) or None)
    print(r.get("data", ""))
    return 0 if r.get("ok") else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (TimeoutError, ConnectionError, OSError) as e:
        print("baresip-ctl: %s" % e, file=sys.stderr)
        sys.exit(1)
