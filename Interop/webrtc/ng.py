#!/usr/bin/env python3
"""A client of rtpengine's ng control protocol (bencoded dictionaries over UDP), for the Interop checks.

  ng.py ADDR:PORT ping
      prints "pong"; exit 0 when rtpengine answered pong.
  ng.py ADDR:PORT offer|answer SDP_IN SDP_OUT --call-id ID --from-tag TAG [--to-tag TAG] [FLAG...]
      sends the SDP with rtpengine's flags as the Kamailio module would parse them (ICE=force, DTLS=off,
      SDES-off, RTP/AVP, UDP/TLS/RTP/SAVPF, rtcp-mux-offer, replace-origin, ...), writes the rewritten SDP.
  ng.py ADDR:PORT delete --call-id ID --from-tag TAG
Every request waits 2 s at most for its answer (one retransmission after 1 s). Exit 1 on an error result.
"""
import os
import socket
import sys


def bencode(value):
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes):
        return b"%d:%s" % (len(value), value)
    if isinstance(value, list):
        return b"l" + b"".join(bencode(v) for v in value) + b"e"
    if isinstance(value, dict):
        return b"d" + b"".join(bencode(k) + bencode(value[k]) for k in sorted(value)) + b"e"
    raise TypeError(type(value))


def bdecode(data, i=0):
    c = data[i:i + 1]
    if c == b"i":
        end = data.index(b"e", i)
        return int(data[i + 1:end]), end + 1
    if c == b"l":
        out, i = [], i + 1
        while data[i:i + 1] != b"e":
            v, i = bdecode(data, i)
            out.append(v)
        return out, i + 1
    if c == b"d":
        out, i = {}, i + 1
        while data[i:i + 1] != b"e":
            k, i = bdecode(data, i)
            v, i = bdecode(data, i)
            out[k.decode()] = v
        return out, i + 1
    colon = data.index(b":", i)
    size = int(data[i:colon])
    return data[colon + 1:colon + 1 + size], colon + 1 + size


def request(addr, message):
    host, port = addr.rsplit(":", 1)
    cookie = os.urandom(6).hex().encode()
    packet = cookie + b" " + bencode(message)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _ in range(2):
            sock.sendto(packet, (host, int(port)))
            sock.settimeout(1.0)
            try:
                while True:
                    data, _ = sock.recvfrom(65535)
                    if data.startswith(cookie + b" "):
                        return bdecode(data, len(cookie) + 1)[0]
            except socket.timeout:
                continue
    finally:
        sock.close()
    raise SystemExit("ng: no answer from %s" % addr)


# How the Kamailio rtpengine module turns its flag words into ng keys (the subset the gateway uses).
def flags_to_message(words, message):
    for w in words:
        if "=" in w:
            key, value = w.split("=", 1)
            message[key] = value
        elif w in ("RTP/AVP", "RTP/AVPF", "RTP/SAVP", "RTP/SAVPF", "UDP/TLS/RTP/SAVP", "UDP/TLS/RTP/SAVPF"):
            message["transport-protocol"] = w
        elif w.startswith("rtcp-mux-"):
            message.setdefault("rtcp-mux", []).append(w[len("rtcp-mux-"):])
        elif w.startswith("replace-"):
            message.setdefault("replace", []).append(w[len("replace-"):])
        elif w.startswith("SDES-"):
            message.setdefault("SDES", []).append(w[len("SDES-"):])
        else:
            message.setdefault("flags", []).append(w)
    return message


def option(args, name):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return None


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    addr, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if command == "ping":
        reply = request(addr, {"command": "ping"})
        result = reply.get("result", b"").decode()
        print(result)
        return 0 if result == "pong" else 1
    call_id, from_tag, to_tag = option(args, "--call-id"), option(args, "--from-tag"), option(args, "--to-tag")
    message = {"command": command, "call-id": call_id, "from-tag": from_tag}
    if to_tag:
        message["to-tag"] = to_tag
    if command in ("offer", "answer"):
        sdp_in, sdp_out, words = args[0], args[1], args[2:]
        with open(sdp_in) as f:
            message["sdp"] = f.read()
        flags_to_message(words, message)
    reply = request(addr, message)
    result = reply.get("result", b"").decode()
    if result != "ok":
        print("ng %s: %s %s" % (command, result, reply.get("error-reason", b"").decode()), file=sys.stderr)
        return 1
    if command in ("offer", "answer"):
        with open(sdp_out, "wb") as f:
            f.write(reply["sdp"])
    if "warning" in reply:
        print("ng %s: warning %s" % (command, reply["warning"].decode()), file=sys.stderr)
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
