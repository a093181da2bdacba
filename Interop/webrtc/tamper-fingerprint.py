#!/usr/bin/env python3
"""Copies an SDP with every a=fingerprint value changed in one hex digit (the last), as an attacker in the
signalling path would: tamper-fingerprint.py IN OUT. The copy is written whole (a temporary name, then a
rename). Exit 1 when IN has no a=fingerprint line (nothing to tamper with is a failed set-up, not a pass)."""
import os
import re
import sys


def flip(match):
    value = match.group(2)
    last = value[-1]
    new = "0" if last.upper() != "0" else "1"
    return match.group(1) + value[:-1] + new


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, newline="") as f:
        text = f.read()
    out, count = re.subn(r"(a=fingerprint:\S+ )([0-9A-Fa-f:]+)", flip, text)
    if count == 0:
        print("no a=fingerprint line in %s" % src, file=sys.stderr)
        return 1
    with open(dst + ".tmp", "w", newline="") as f:
        f.write(out)
    os.rename(dst + ".tmp", dst)
    print("tampered %d fingerprint line(s): %s -> %s" % (count, src, dst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
