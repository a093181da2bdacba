#!/usr/bin/env python3
"""A plain RTP/AVP endpoint (PCMU, no SRTP, no ICE) that answers an SDP offer from a file: the far side of the
gateway check in scenarios/49-webrtc.sh, where rtpengine bridges a WebRTC stack to plain RTP.

  rtp-peer.py --remote OFFER.sdp --local ANSWER.sdp --port P [--tone HZ] [--record FILE.wav] [--duration S]

Reads the offer (waits up to 10 s for the file), answers `m=audio P RTP/AVP 0` on 127.0.0.1 (written whole: a
temporary name, then a rename), then sends a HZ sine (-10 dBFS) as 20 ms PCMU packets to the offer's address
and port for --duration seconds and writes the PCMU it receives on P, decoded, to --record (8 kHz mono).
Only 127.0.0.1 is accepted as the offer's address. stdout: `summary tx=N rx=N`. Exit 0 when packets arrived.
"""
import argparse
import math
import os
import random
import socket
import struct
import sys
import time
import wave


def ulaw_encode(sample):
    """ITU-T G.711 mu-law, from a 16-bit linear sample."""
    bias, clip = 0x84, 32635
    sign = 0x80 if sample < 0 else 0
    magnitude = min(abs(sample), clip) + bias
    exponent = 7
    mask = 0x4000
    while exponent > 0 and not magnitude & mask:
        exponent -= 1
        mask >>= 1
    mantissa = (magnitude >> (exponent + 3)) & 0x0F
    return ~(sign | (exponent << 4) | mantissa) & 0xFF


def ulaw_decode(byte):
    byte = ~byte & 0xFF
    sign, exponent, mantissa = byte & 0x80, (byte >> 4) & 0x07, byte & 0x0F
    magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84
    return -magnitude if sign else magnitude


def parse_offer(text):
    address, port, payloads = None, None, []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("c=IN IP4 "):
            address = line.split()[2]
        elif line.startswith("m=audio "):
            fields = line.split()
            port, payloads = int(fields[1]), fields[3:]
    return address, port, payloads


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--remote", required=True)
    p.add_argument("--local", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tone", type=float, default=1000)
    p.add_argument("--record")
    p.add_argument("--duration", type=float, default=4)
    args = p.parse_args()

    deadline = time.monotonic() + 10
    while not os.path.exists(args.remote):
        if time.monotonic() > deadline:
            print("no offer in %s" % args.remote, file=sys.stderr)
            return 1
        time.sleep(0.05)
    with open(args.remote) as f:
        address, port, payloads = parse_offer(f.read())
    if address != "127.0.0.1" or not port or "0" not in payloads:
        print("offer not usable: address %s port %s payloads %s" % (address, port, payloads), file=sys.stderr)
        return 1

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", args.port))
    sock.setblocking(False)
    answer = ("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
              "m=audio %d RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=ptime:20\r\na=sendrecv\r\n" % args.port)
    with open(args.local + ".tmp", "w") as f:
        f.write(answer)
    os.rename(args.local + ".tmp", args.local)

    amplitude = 32767 * 10 ** (-10 / 20)
    step = 2 * math.pi * args.tone / 8000
    ssrc, seq, ts = random.getrandbits(32), random.getrandbits(16), random.getrandbits(32)
    out = wave.open(args.record, "wb") if args.record else None
    if out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
    sent = received = 0
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < args.duration:
        payload = bytes(ulaw_encode(int(amplitude * math.sin(step * (n + i)))) for i in range(160))
        header = struct.pack("!BBHII", 0x80, 0, seq & 0xFFFF, ts & 0xFFFFFFFF, ssrc)
        sock.sendto(header + payload, (address, port))
        sent += 1
        n, seq, ts = n + 160, seq + 1, ts + 160
        next_at = start + sent * 0.02
        while True:
            try:
                data, _ = sock.recvfrom(2048)
            except BlockingIOError:
                break
            if len(data) > 12 and data[0] >> 6 == 2 and data[1] & 0x7F == 0:
                received += 1
                offset = 12 + 4 * (data[0] & 0x0F)
                if data[0] & 0x10 and len(data) >= offset + 4:
                    offset += 4 + 4 * struct.unpack("!H", data[offset + 2:offset + 4])[0]
                if out:
                    out.writeframes(struct.pack("<%dh" % (len(data) - offset), *(ulaw_decode(b) for b in data[offset:])))
        time.sleep(max(0.0, next_at - time.monotonic()))
    if out:
        out.close()
    print("summary tx=%d rx=%d" % (sent, received))
    return 0 if received > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
