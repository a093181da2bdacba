#!/usr/bin/env python3
"""UDP probes for checking the NAT topology without any peer (stdlib only; every wait is bounded).

  udpprobe.py echo IP:PORT [IP:PORT ...] --seconds S
      answers every datagram with "seen IP:PORT" (its source as this side sees it), on each address, for S s
  udpprobe.py ask --bind IP:PORT TARGET [TARGET ...] [--timeout S]
      from one socket, asks each echo TARGET what it saw; prints "TARGET seen IP:PORT" (or "TARGET none")
      and exits 1 when a target did not answer
  udpprobe.py listen IP:PORT --seconds S
      prints "got FROM" for the first datagram, or "nothing" after S s (exit 0 either way)
  udpprobe.py send --bind IP:PORT TARGET
      sends one datagram to TARGET from IP:PORT
  udpprobe.py flood --bind IP:PORT TARGET [--count N]
      sends N (default 500) datagrams to an echo TARGET, 1 ms apart, and counts the answers (0.5 s grace);
      prints "sent=N answered=M"
"""
import select
import socket
import sys
import time


def addr(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


def option(args, name, default=None):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


def bound(text):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(addr(text))
    return s


def echo(args):
    seconds = float(option(args, "--seconds", "10"))
    socks = [bound(a) for a in args]
    print("ready", flush=True)
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select(socks, [], [], max(0.0, end - time.time()))
        for s in ready:
            data, peer = s.recvfrom(2048)
            s.sendto(b"seen %s:%d" % (peer[0].encode(), peer[1]), peer)
    return 0


def ask(args):
    local = option(args, "--bind", "0.0.0.0:0")
    timeout = float(option(args, "--timeout", "1"))
    s = bound(local)
    status = 0
    for target in args:
        seen = None
        for _ in range(3):
            s.sendto(b"probe", addr(target))
            ready, _, _ = select.select([s], [], [], timeout / 3)
            if ready:
                data, _ = s.recvfrom(2048)
                seen = data.decode().split(" ", 1)[1]
                break
        print("%s seen %s" % (target, seen or "none"), flush=True)
        status |= seen is None
    return status


def listen(args):
    seconds = float(option(args, "--seconds", "2"))
    s = bound(args[0])
    print("ready", flush=True)
    ready, _, _ = select.select([s], [], [], seconds)
    if ready:
        _, peer = s.recvfrom(2048)
        print("got %s:%d" % peer, flush=True)
    else:
        print("nothing", flush=True)
    return 0


def send(args):
    local = option(args, "--bind", "0.0.0.0:0")
    s = bound(local)
    s.sendto(b"unasked", addr(args[0]))
    return 0


def flood(args):
    local = option(args, "--bind", "0.0.0.0:0")
    count = int(option(args, "--count", "500"))
    s = bound(local)
    s.setblocking(False)
    target = addr(args[0])
    answered = 0
    for _ in range(count):
        s.sendto(b"probe", target)
        time.sleep(0.001)
        answered += drain(s)
    end = time.time() + 0.5
    while time.time() < end:
        ready, _, _ = select.select([s], [], [], max(0.0, end - time.time()))
        if ready:
            answered += drain(s)
    print("sent=%d answered=%d" % (count, answered), flush=True)
    return 0


def drain(s):
    n = 0
    while True:
        try:
            s.recvfrom(2048)
        except BlockingIOError:
            return n
        n += 1


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    mode, args = sys.argv[1], sys.argv[2:]
    return {"echo": echo, "ask": ask, "listen": listen, "send": send, "flood": flood}[mode](args)


if __name__ == "__main__":
    sys.exit(main())
