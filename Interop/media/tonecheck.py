#!/usr/bin/env python3
"""Checks that a recording holds an expected tone well above another one (stdlib only: wave + Goertzel).

  tonecheck.py FILE --expect HZ --other HZ [--min-db 20] [--min-level -40] [--from S] [--to S] [--last S]
      [--profile STEP] [--absent LEVEL]

The levels are measured with a Goertzel filter on Hann-windowed 40 ms blocks, averaged over the part of the
file chosen (default: all of it after the first 0.5 s, which holds the jitter buffer's start-up). --from/--to
are seconds from the start of the file; --last S takes the final S seconds instead. The expected tone must be
at least --min-level dBFS (a sine at full scale is 0 dBFS) and at least --min-db above the other tone.
With --absent LEVEL the check turns round: the expected tone must stay below LEVEL dBFS (e.g. while on hold).
--profile STEP also prints the expected tone's level per STEP seconds (to see hold gaps).
Prints one line: FILE expect=HZ level=dBFS other=HZ level=dBFS separation=dB; exit 0 on success, 1 if not.
"""
import argparse
import math
import struct
import sys
import wave


def read_mono(path):
    with wave.open(path, "rb") as w:
        channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
        raw = w.readframes(w.getnframes())
    if width != 2:
        raise SystemExit("%s: %d-byte samples, expected 16-bit" % (path, width))
    samples = struct.unpack("<%dh" % (len(raw) // 2), raw)
    return list(samples[::channels]), rate


def goertzel_amplitude(block, window, rate, hz):
    """The amplitude (fraction of full scale) of the HZ component of one block."""
    coeff = 2 * math.cos(2 * math.pi * hz / rate)
    s1 = s2 = 0.0
    for x, w in zip(block, window):
        s0 = x * w + coeff * s1 - s2
        s2, s1 = s1, s0
    power = s1 * s1 + s2 * s2 - coeff * s1 * s2
    # A Hann window's coherent gain is 0.5: a sine of amplitude A gives |X| = A * N / 4.
    return math.sqrt(max(power, 0.0)) * 4 / len(block) / 32768


def level_db(samples, rate, hz):
    n = int(rate * 0.04)
    if len(samples) < n:
        return -200.0
    window = [0.5 - 0.5 * math.cos(2 * math.pi * i / (n - 1)) for i in range(n)]
    total = 0.0
    blocks = 0
    for start in range(0, len(samples) - n + 1, n):
        a = goertzel_amplitude(samples[start:start + n], window, rate, hz)
        total += a * a
        blocks += 1
    rms_amplitude = math.sqrt(total / blocks)
    return 20 * math.log10(rms_amplitude) if rms_amplitude > 0 else -200.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--expect", type=float, required=True)
    p.add_argument("--other", type=float, required=True)
    p.add_argument("--min-db", type=float, default=20)
    p.add_argument("--min-level", type=float, default=-40)
    p.add_argument("--from", dest="start", type=float, default=0.5)
    p.add_argument("--to", dest="end", type=float)
    p.add_argument("--last", type=float)
    p.add_argument("--profile", type=float)
    p.add_argument("--absent", type=float)
    a = p.parse_args()
    try:
        samples, rate = read_mono(a.file)
    except (OSError, EOFError, wave.Error) as e:
        print("%s: unreadable: %s" % (a.file, e))
        return 1
    duration = len(samples) / rate
    if a.last is not None:
        part = samples[max(0, len(samples) - int(a.last * rate)):]
        what = "last %.1f s" % a.last
    else:
        end = len(samples) if a.end is None else int(a.end * rate)
        part = samples[int(a.start * rate):end]
        what = "%.1f-%.1f s" % (a.start, end / rate)
    if a.profile:
        step = int(a.profile * rate)
        levels = ["%.0f" % level_db(samples[i:i + step], rate, a.expect) for i in range(0, len(samples), step)]
        print("%s: %g Hz level per %g s: %s" % (a.file, a.expect, a.profile, " ".join(levels)))
    if len(part) < rate * 0.2:
        print("%s: %.2f s at %d Hz, too short for %s" % (a.file, duration, rate, what))
        return 1
    want = level_db(part, rate, a.expect)
    other = level_db(part, rate, a.other)
    separation = want - other
    if a.absent is not None:
        ok = want < a.absent
        print("%s: %.2f s at %d Hz, %s: expect no %g Hz: level=%.1f dBFS (below %g) %s"
              % (a.file, duration, rate, what, a.expect, want, a.absent, "ok" if ok else "FAIL"))
        return 0 if ok else 1
    ok = want >= a.min_level and separation >= a.min_db
    print("%s: %.2f s at %d Hz, %s: expect=%g level=%.1f dBFS other=%g level=%.1f dBFS separation=%.1f dB %s"
          % (a.file, duration, rate, what, a.expect, want, a.other, other, separation, "ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
