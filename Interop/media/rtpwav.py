#!/usr/bin/env python3
"""Decodes one G.711 RTP stream of a capture into a WAV (stdlib and tshark only), to check what a peer was
sent when its own recorder cannot be trusted (baresip 1.0.0's sndfile stops recording at a re-INVITE).

  rtpwav.py CAPTURE.pcap OUT.wav --dst-port PORT [--after S] [--law pcmu|pcma]

Takes the RTP packets to PORT (any UDP source) from --after seconds into the capture on, in arrival order,
and writes their payloads as 16-bit mono 8 kHz samples. Prints the packet count; exit 1 if there was none.
"""
import argparse
import struct
import subprocess
import sys
import wave


def ulaw(byte):
    byte = ~byte & 0xFF
    sign = byte & 0x80
    exponent = (byte >> 4) & 0x07
    mantissa = byte & 0x0F
    sample = (((mantissa << 3) + 0x84) << exponent) - 0x84
    return -sample if sign else sample


def alaw(byte):
    byte ^= 0x55
    sign = byte & 0x80
    exponent = (byte >> 4) & 0x07
    mantissa = byte & 0x0F
    sample = (mantissa << 4) + 8 if exponent == 0 else ((mantissa << 4) + 0x108) << (exponent - 1)
    return sample if sign else -sample


def main():
    p = argparse.ArgumentParser()
    p.add_argument("capture")
    p.add_argument("out")
    p.add_argument("--dst-port", type=int, required=True)
    p.add_argument("--after", type=float, default=0)
    p.add_argument("--law", choices=("pcmu", "pcma"), default="pcmu")
    a = p.parse_args()
    fields = subprocess.run(
        ["tshark", "-r", a.capture, "-d", "udp.port==%d,rtp" % a.dst_port,
         "-Y", "rtp && udp.dstport == %d && frame.time_relative >= %f" % (a.dst_port, a.after),
         "-T", "fields", "-e", "rtp.p_type", "-e", "rtp.payload"],
        capture_output=True, text=True, timeout=60, check=False).stdout
    decode = ulaw if a.law == "pcmu" else alaw
    wanted = 0 if a.law == "pcmu" else 8
    samples = []
    packets = 0
    for line in fields.splitlines():
        parts = line.split("\t")
        if len(parts) != 2 or not parts[1] or int(parts[0]) != wanted:
            continue
        payload = bytes.fromhex(parts[1].replace(":", ""))
        samples.extend(decode(b) for b in payload)
        packets += 1
    with wave.open(a.out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(struct.pack("<%dh" % len(samples), *samples))
    print("%s: %d %s packets to port %d after %.2f s" % (a.out, packets, a.law, a.dst_port, a.after))
    return 0 if packets else 1


if __name__ == "__main__":
    sys.exit(main())
