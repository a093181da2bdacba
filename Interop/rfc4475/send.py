#!/usr/bin/env python3
"""Sends one RFC 4475 message over UDP to a SIP element on 127.0.0.1 and checks the response; every wait is
bounded.

  send.py FILE PORT --expect CODES [--header REGEX]... [--probe]
  send.py FILE PORT --no-response [--probe]

The message is sent as in the corpus except for the top Via's sent-protocol and sent-by, which become
`SIP/2.0/UDP 127.0.0.1:<this socket's port>;rport` so that the response can reach this sender (the
corpus names hosts such as host9.example.com that do not exist here). Requests with no Via are sent unchanged.
--expect: the status codes accepted, e.g. 400 or 416,404 (retransmitted responses and 100 Trying are skipped).
--header: a regular expression that must match one header line of that response (case-insensitive).
--no-response: nothing may come back within 2 s (responses sent to us, e.g. a 200 with a broadcast Via).
--probe: afterwards, an OPTIONS must still get a final response (the element did not break).
Exit status 0 when every check held.
"""
import re
import socket
import sys
import time


def rewrite_via(data, port):
    head, sep, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if re.match(rb"^SIP/", lines[0]):
        return data  # a response: sent as is
    for i, line in enumerate(lines):
        m = re.match(rb"^(v|via)[ \t]*:[ \t]*SIP[ \t]*/[ \t]*2\.0[ \t]*/[ \t]*[A-Za-z0-9.!%*_+`'~-]+[ \t]+[^;, \t]+",
                     line, re.I)
        if m:
            lines[i] = line[:m.start()] + b"Via: SIP/2.0/UDP 127.0.0.1:%d;rport" % port + line[m.end():]
            break
    return b"\r\n".join(lines) + sep + body


def responses(sock, deadline):
    while True:
        left = deadline - time.time()
        if left <= 0:
            return
        sock.settimeout(left)
        try:
            data, _ = sock.recvfrom(65536)
        except socket.timeout:
            return
        yield data


def final_response(sock, seconds):
    for data in responses(sock, time.time() + seconds):
        m = re.match(rb"^SIP/2\.0 ([0-9]{3})", data)
        if m and int(m.group(1)) >= 200:
            return int(m.group(1)), data
        print("provisional or other: %r" % data[:60])
    return None, None


def probe(sock, port):
    branch = "z9hG4bKprobe%d" % int(time.time() * 1000)
    msg = ("OPTIONS sip:probe@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;rport;branch=%s\r\n"
           "Max-Forwards: 70\r\nTo: <sip:probe@127.0.0.1>\r\nFrom: <sip:rfc4475@127.0.0.1>;tag=probe\r\n"
           "Call-ID: probe-%s@127.0.0.1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
           % (port, sock.getsockname()[1], branch, branch))
    sock.sendto(msg.encode(), ("127.0.0.1", port))
    code, _ = final_response(sock, 3)
    print("probe OPTIONS: %s" % code)
    return code is not None


def main():
    args = sys.argv[1:]
    path, port = args[0], int(args[1])
    expect = None
    headers = []
    no_response = "--no-response" in args
    if "--expect" in args:
        expect = [int(c) for c in args[args.index("--expect") + 1].split(",")]
    for i, a in enumerate(args):
        if a == "--header":
            headers.append(args[i + 1])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    data = rewrite_via(open(path, "rb").read(), sock.getsockname()[1])
    sock.sendto(data, ("127.0.0.1", port))
    ok = True
    if no_response:
        got = list(responses(sock, time.time() + 2))
        for d in got:
            print("unexpected: %r" % d[:200])
        ok = not got
    else:
        code, response = final_response(sock, 3)
        if code is None:
            print("no final response within 3 s")
            ok = False
        else:
            text = response.decode("utf-8", "replace")
            print(text.split("\r\n\r\n")[0])
            if code not in expect:
                print("status %d, expected one of %s" % (code, expect))
                ok = False
            lines = text.split("\r\n\r\n")[0].split("\r\n")[1:]
            for h in headers:
                if not any(re.search(h, line, re.I) for line in lines):
                    print("no header line matches /%s/" % h)
                    ok = False
    if "--probe" in args and not probe(sock, port):
        print("the element did not answer an OPTIONS afterwards")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
