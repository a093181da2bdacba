#!/usr/bin/env python3
"""Compares the three views of one switchboard session: the --trace text, the --pcap file as tshark
decodes it, and the rows embedded in the --ladder page. Each becomes a list of (direction, method or
status, CSeq); all three must be identical and non-empty, every pcap record must decode as SIP, and the
ladder must hold no credentials.
usage: compare.py TRACE PCAP LADDER.html PEER_PORT[,PEER_PORT...]
  (a pcap packet whose source port is a peer port was received, any other was sent)"""
import json
import re
import subprocess
import sys


def from_trace(path):
    rows, lines = [], open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^--- T=\S+ (sent|received) ", lines[i])
        if not m:
            i += 1
            continue
        start = lines[i + 1].split(" ") if i + 1 < len(lines) else [""]
        label = start[1] if start[0].startswith("SIP/") else start[0]
        cseq, j = "", i + 2
        while j < len(lines) and lines[j] != "" and not lines[j].startswith("--- T="):
            name, _, value = lines[j].partition(":")
            if name.strip().lower() == "cseq" and not cseq:
                cseq = " ".join(value.split())
            j += 1
        rows.append((m.group(1), label, cseq))
        i = j
    return rows


def tshark(path, *args):
    out = subprocess.run(["tshark", "-r", path, *args], capture_output=True, text=True, check=True).stdout
    return [line for line in out.split("\n") if line != ""]


def from_pcap(path, peer_ports):
    fields = ["-T", "fields", "-E", "separator=|", "-e", "udp.srcport", "-e", "sip.Method", "-e",
              "sip.Status-Code", "-e", "sip.CSeq"]
    rows = []
    for line in tshark(path, "-Y", "sip", *fields):
        sport, method, status, cseq = line.split("|")
        direction = "received" if sport in peer_ports else "sent"
        rows.append((direction, method or status, " ".join(cseq.split())))
    frames = len(tshark(path, "-T", "fields", "-e", "frame.number"))
    return rows, frames


def from_ladder(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="ladder-rows">(.*?)</script>', html, re.S)
    if not m:
        sys.exit(f"{path}: no ladder-rows JSON")
    data = json.loads(m.group(1))
    rows = [(r["direction"], r["method"] or str(r["status"]), r["cseq"]) for r in data["rows"]]
    return rows, data


def main():
    trace_path, pcap_path, ladder_path, ports = sys.argv[1:5]
    trace = from_trace(trace_path)
    pcap, frames = from_pcap(pcap_path, set(ports.split(",")))
    ladder, data = from_ladder(ladder_path)
    width = max(len(trace), len(pcap), len(ladder))
    print(f"{'#':>3}  {'trace':<34} {'tshark':<34} {'ladder':<34}")
    for i in range(width):
        cells = [" ".join(v[i]) if i < len(v) else "-" for v in (trace, pcap, ladder)]
        mark = "" if len(set(cells)) == 1 else "   <-- differs"
        print(f"{i + 1:>3}  {cells[0]:<34} {cells[1]:<34} {cells[2]:<34}{mark}")
    problems = []
    if not trace:
        problems.append("no messages in the trace")
    if trace != pcap:
        problems.append("trace and tshark differ")
    if trace != ladder:
        problems.append("trace and ladder differ")
    if frames != len(pcap):
        problems.append(f"{frames} pcap records but tshark decoded {len(pcap)} as SIP")
    text = json.dumps(data)
    if "response=" in text or "Digest username" in text:
        problems.append("credentials in the ladder")
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)
    print(f"OK: {len(trace)} messages, identical in the trace, tshark ({frames} records) and the ladder")


main()
