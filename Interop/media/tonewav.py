#!/usr/bin/env python3
"""Writes a test tone as a 16-bit mono WAV (stdlib only), for the media scenarios.

  tonewav.py FILE HZ [--rate 8000] [--seconds 30] [--level 0.25]
"""
import argparse
import math
import struct
import wave


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("hz", type=float)
    p.add_argument("--rate", type=int, default=8000)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--level", type=float, default=0.25, help="peak amplitude, a fraction of full scale")
    a = p.parse_args()
    peak = a.level * 32767
    count = int(a.rate * a.seconds)
    step = 2 * math.pi * a.hz / a.rate
    with wave.open(a.file, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(a.rate)
        w.writeframes(b"".join(struct.pack("<h", int(round(peak * math.sin(step * n)))) for n in range(count)))


if __name__ == "__main__":
    main()
