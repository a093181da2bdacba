#!/usr/bin/env python3
"""One WebRTC peer on aiortc (ICE + DTLS-SRTP, an independent stack) whose SDP travels through files.

  aiortc-peer.py --role offer|answer --local FILE --remote FILE [--tone HZ] [--record FILE.wav]
                 [--duration S] [--timeout S] [--codec opus|pcmu] [--srtp-profile NAME] [--offer-only]

offer: writes its offer to --local, waits for the answer in --remote, then runs the media.
answer: waits for the offer in --remote, writes its answer to --local, then runs the media.
Files are written whole (a temporary name, then a rename), so a reader never sees half an SDP.
--tone HZ sends a sine of HZ (default 440) at -10 dBFS; --record writes what arrives as 16-bit mono WAV (at
the decoder's rate), for media/tonecheck.py. The call lasts --duration seconds (default 4) after the
connection is up; --timeout (default 30) bounds everything, waiting for files included.
--codec keeps one codec in the offer or answer; --srtp-profile (SRTP_AES128_CM_SHA1_80, SRTP_AEAD_AES_128_GCM,
SRTP_AEAD_AES_256_GCM) keeps one DTLS-SRTP profile in aiortc's use_srtp list. --offer-only writes the offer
and exits (to hand a real WebRTC offer to another tool).

Loopback only: no STUN or TURN server is configured (aiortc's default is a public STUN server: an empty
iceServers list replaces it), and host candidates are 127.0.0.1 only (aioice leaves loopback out by
default, so its address lister is replaced here).

stdout: one event line each, `T=<seconds> EVENT key=value...`: local-sdp, remote-sdp, state connection=...,
srtp profile=..., connected, remote-ended (the peer closed the DTLS association), failed reason="...",
summary rx-frames=N rx-seconds=S tx-frames=N, ended.
Exit 0: connected and audio arrived (the call may end by the peer's close); 1: failed (the reason is on the
failed line: a DTLS failure, a failed connection, no audio); 2: bad usage; 3: timeout.
"""
import argparse
import asyncio
import fractions
import logging
import math
import os
import struct
import sys
import time
import wave

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc import rtcdtlstransport
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError
from aiortc.rtcrtpsender import RTCRtpSender
from av import AudioFrame

START = time.monotonic()


def event(name, **fields):
    parts = ["T=%.3f" % (time.monotonic() - START), name]
    for key, value in fields.items():
        value = str(value)
        parts.append('%s="%s"' % (key, value) if (" " in value or not value) else "%s=%s" % (key, value))
    print(" ".join(parts), flush=True)


class Outcome:
    """What the DTLS layer said, read from aiortc's debug log (its only report of why a handshake failed)."""

    def __init__(self):
        self.failure = None
        self.profile = None


OUTCOME = Outcome()


class DtlsLog(logging.Handler):
    def emit(self, record):
        text = record.getMessage()
        print("aiortc: " + text, file=sys.stderr, flush=True)
        if "DTLS handshake failed" in text and OUTCOME.failure is None:
            OUTCOME.failure = "DTLS " + text.split("DTLS handshake failed", 1)[1].strip(" ()")
        elif "DTLS handshake negotiated" in text:
            OUTCOME.profile = text.rsplit(" ", 1)[1]
            event("srtp", profile=OUTCOME.profile)


class ToneTrack(AudioStreamTrack):
    """A sine at HZ, 20 ms frames of 16-bit mono at 48 kHz, paced in real time like aiortc's own tracks."""

    def __init__(self, hz, rate=48000):
        super().__init__()
        self.rate = rate
        self.samples = int(0.02 * rate)
        amplitude = int(32767 * 10 ** (-10 / 20))
        self.step = 2 * math.pi * hz / rate
        self.amplitude = amplitude
        self.n = 0
        self.sent = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if hasattr(self, "_timestamp"):
            self._timestamp += self.samples
            wait = self._start + (self._timestamp / self.rate) - time.time()
            await asyncio.sleep(wait)
        else:
            self._start = time.time()
            self._timestamp = 0
        values = [int(self.amplitude * math.sin(self.step * (self.n + i))) for i in range(self.samples)]
        self.n += self.samples
        frame = AudioFrame(format="s16", layout="mono", samples=self.samples)
        frame.planes[0].update(struct.pack("<%dh" % self.samples, *values))
        frame.pts = self._timestamp
        frame.sample_rate = self.rate
        frame.time_base = fractions.Fraction(1, self.rate)
        self.sent += 1
        return frame


class Recorder:
    """Writes the first channel of every decoded frame to a 16-bit mono WAV."""

    def __init__(self, path):
        self.path = path
        self.wav = None
        self.frames = 0
        self.samples = 0
        self.rate = 0

    async def run(self, track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            channels = len(frame.layout.channels)
            data = bytes(frame.planes[0])[: frame.samples * channels * 2]
            if channels > 1:
                values = struct.unpack("<%dh" % (len(data) // 2), data)[::channels]
                data = struct.pack("<%dh" % len(values), *values)
            if self.wav is None and self.path:
                self.rate = frame.sample_rate
                self.wav = wave.open(self.path, "wb")
                self.wav.setnchannels(1)
                self.wav.setsampwidth(2)
                self.wav.setframerate(self.rate)
            if self.wav is not None:
                self.wav.writeframes(data)
            self.rate = frame.sample_rate
            self.frames += 1
            self.samples += frame.samples

    def close(self):
        if self.wav is not None:
            self.wav.close()


def write_whole(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


async def read_when_there(path):
    while not os.path.exists(path):
        await asyncio.sleep(0.05)
    with open(path) as f:
        return f.read()


def keep_codec(pc, name):
    if not name:
        return
    wanted = {"opus": "audio/opus", "pcmu": "audio/PCMU"}[name]
    codecs = [c for c in RTCRtpSender.getCapabilities("audio").codecs if c.mimeType.lower() == wanted.lower()]
    for transceiver in pc.getTransceivers():
        transceiver.setCodecPreferences(codecs)


async def run(args):
    config = RTCConfiguration(iceServers=[])
    pc = RTCPeerConnection(configuration=config)
    recorder = Recorder(args.record)
    tone = ToneTrack(args.tone)
    connected = asyncio.Event()
    failed = asyncio.Event()
    tasks = []

    @pc.on("connectionstatechange")
    async def on_state():
        event("state", connection=pc.connectionState, ice=pc.iceConnectionState)
        if pc.connectionState == "connected":
            connected.set()
        elif pc.connectionState in ("failed", "closed"):
            failed.set()

    @pc.on("track")
    def on_track(track):
        if track.kind == "audio":
            tasks.append(asyncio.ensure_future(recorder.run(track)))

    try:
        if args.role == "offer":
            pc.addTransceiver(tone, direction="sendrecv")
            keep_codec(pc, args.codec)
            await pc.setLocalDescription(await pc.createOffer())
            write_whole(args.local, pc.localDescription.sdp)
            event("local-sdp", type="offer", file=args.local)
            if args.offer_only:
                return 0
            remote = await read_when_there(args.remote)
            event("remote-sdp", type="answer", file=args.remote)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=remote, type="answer"))
        else:
            remote = await read_when_there(args.remote)
            event("remote-sdp", type="offer", file=args.remote)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=remote, type="offer"))
            for transceiver in pc.getTransceivers():
                if transceiver.kind == "audio":
                    transceiver.sender.replaceTrack(tone)
                    transceiver.direction = "sendrecv"
            keep_codec(pc, args.codec)
            await pc.setLocalDescription(await pc.createAnswer())
            write_whole(args.local, pc.localDescription.sdp)
            event("local-sdp", type="answer", file=args.local)

        done, _ = await asyncio.wait(
            [asyncio.ensure_future(connected.wait()), asyncio.ensure_future(failed.wait())],
            return_when=asyncio.FIRST_COMPLETED,
        )
        if failed.is_set() and not connected.is_set():
            event("failed", reason=OUTCOME.failure or "connection " + pc.connectionState)
            return 1
        event("connected", profile=OUTCOME.profile or "-")
        # The call: --duration seconds, or until the connection fails (a peer that gave up, a DTLS failure).
        try:
            await asyncio.wait_for(failed.wait(), timeout=args.duration)
        except asyncio.TimeoutError:
            pass
        if OUTCOME.failure or pc.connectionState == "failed":
            event("failed", reason=OUTCOME.failure or "connection failed")
            return 1
        if failed.is_set():
            event("remote-ended", connection=pc.connectionState)
        if recorder.frames == 0:
            event("failed", reason="no audio arrived")
            return 1
        return 0
    finally:
        rx_seconds = recorder.samples / recorder.rate if recorder.rate else 0
        event("summary", **{"rx-frames": recorder.frames, "rx-seconds": "%.2f" % rx_seconds, "tx-frames": tone.sent})
        await pc.close()
        for task in tasks:
            task.cancel()
        recorder.close()
        event("ended")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--role", choices=["offer", "answer"], required=True)
    p.add_argument("--local", required=True)
    p.add_argument("--remote")
    p.add_argument("--tone", type=float, default=440)
    p.add_argument("--record")
    p.add_argument("--duration", type=float, default=4)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--codec", choices=["opus", "pcmu"])
    p.add_argument("--srtp-profile", choices=["SRTP_AES128_CM_SHA1_80", "SRTP_AEAD_AES_128_GCM", "SRTP_AEAD_AES_256_GCM"])
    p.add_argument("--offer-only", action="store_true")
    args = p.parse_args()
    if not args.offer_only and not args.remote:
        p.error("--remote is required")

    # Loopback only: host candidates on 127.0.0.1 and nothing else.
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []
    if args.srtp_profile:
        chosen = [p for p in rtcdtlstransport.SRTP_PROFILES if p.openssl_profile.decode() == args.srtp_profile]
        rtcdtlstransport.SRTP_PROFILES[:] = chosen
    dtls_log = logging.getLogger("aiortc.rtcdtlstransport")
    dtls_log.setLevel(logging.DEBUG)
    dtls_log.addHandler(DtlsLog())
    dtls_log.propagate = False

    try:
        code = asyncio.run(asyncio.wait_for(run(args), timeout=args.timeout))
    except asyncio.TimeoutError:
        event("failed", reason="timeout after %g s" % args.timeout)
        code = 3
    except Exception as exc:  # a malformed SDP or any other error: a clear line, never a traceback alone
        event("failed", reason="%s: %s" % (type(exc).__name__, exc))
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
