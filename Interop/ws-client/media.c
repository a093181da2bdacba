/*
 * The harness's audio: a sine tone as G.711 mu-law (PCMU) RTP every 20 ms through libre's rtp module, and
 * what arrives decoded into a 16-bit mono 8 kHz WAV file. No jitter buffer: packets are written in the order
 * they arrive, which on loopback is the order they were sent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws-client.h"

enum {
	SAMPLE_RATE = 8000,
	FRAME = 160,        /* 20 ms at 8 kHz */
	PT_PCMU = 0,
};

/* G.711 mu-law (ITU-T G.711 section 2, with the usual bias of 0x84 and clip at 32635). */
static uint8_t ulaw_encode(int16_t pcm)
{
	int sample = pcm;
	int sign = sample < 0 ? 0x80 : 0;
	if (sign)
		sample = -sample;
	if (sample > 32635)
		sample = 32635;
	sample += 0x84;
	int exponent = 7;
	for (int mask = 0x4000; exponent > 0 && !(sample & mask); mask >>= 1)
		--exponent;
	int mantissa = (sample >> (exponent + 3)) & 0x0f;
	return (uint8_t)~(sign | (exponent << 4) | mantissa);
}

static int16_t ulaw_decode(uint8_t code)
{
	code = (uint8_t)~code;
	int exponent = (code >> 4) & 0x07;
	int magnitude = ((((code & 0x0f) << 3) + 0x84) << exponent) - 0x84;
	return (int16_t)((code & 0x80) ? -magnitude : magnitude);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
}

/* The 44-byte RIFF header of a PCM WAV holding `samples` 16-bit mono samples at 8 kHz. */
static void wav_header(uint8_t h[44], uint32_t samples)
{
	uint32_t bytes = samples * 2;
	memcpy(h, "RIFF", 4); put_le32(h + 4, 36 + bytes); memcpy(h + 8, "WAVEfmt ", 8);
	put_le32(h + 16, 16); put_le16(h + 20, 1); put_le16(h + 22, 1);
	put_le32(h + 24, SAMPLE_RATE); put_le32(h + 28, SAMPLE_RATE * 2); put_le16(h + 32, 2); put_le16(h + 34, 16);
	memcpy(h + 36, "data", 4); put_le32(h + 40, bytes);
}

static void rtp_recv_handler(const struct sa *src, const struct rtp_header *hdr, struct mbuf *mb, void *arg)
{
	struct media *m = arg;
	(void)src;
	if (hdr->pt != PT_PCMU)
		return;
	m->rx_packets++;
	if (!m->wav)
		return;
	size_t n = mbuf_get_left(mb);
	const uint8_t *payload = mbuf_buf(mb);
	int16_t pcm[FRAME * 4];
	if (n > sizeof(pcm) / sizeof(pcm[0]))
		n = sizeof(pcm) / sizeof(pcm[0]);
	for (size_t i = 0; i < n; i++) {
		int16_t s = ulaw_decode(payload[i]);
		pcm[i] = s;  /* WAV is little-endian; so is every host this runs on */
	}
	if (fwrite(pcm, 2, n, m->wav) == n)
		m->wav_samples += (uint32_t)n;
}

int media_open(struct media *m, const struct sa *laddr, uint16_t port_min, uint16_t port_max, double tone_hz,
	       const char *record)
{
	memset(m, 0, sizeof(*m));
	m->tone_hz = tone_hz;
	if (record) {
		m->wav = fopen(record, "wb");
		if (!m->wav)
			return errno ? errno : EIO;
		uint8_t h[44];
		wav_header(h, 0);
		if (fwrite(h, 1, sizeof(h), m->wav) != sizeof(h))
			return EIO;
	}
	/* RTCP on port + 1 (bound, not started), so the RTP port is even as RFC 3550 section 11 asks. */
	return rtp_listen(&m->rtp, IPPROTO_UDP, laddr, port_min, port_max, true, rtp_recv_handler, NULL, m);
}

uint16_t media_port(const struct media *m)
{
	return sa_port(rtp_local(m->rtp));
}

/* Sends the frames that are due by now (catching up after a late timer), then re-arms for the next one. */
static void tx_handler(void *arg)
{
	struct media *m = arg;
	uint64_t elapsed = tmr_jiffies() - m->started_ms;
	while ((uint64_t)m->tx_frames * 20 <= elapsed) {
		struct mbuf *mb = mbuf_alloc(RTP_HEADER_SIZE + FRAME);
		if (!mb)
			break;
		mb->pos = mb->end = RTP_HEADER_SIZE;
		for (int i = 0; i < FRAME; i++) {
			double t = (double)(m->tx_frames * FRAME + (uint32_t)i) / SAMPLE_RATE;
			/* -10 dBFS: an amplitude of 0.316 of full scale. */
			double v = 0.316 * sin(2 * M_PI * m->tone_hz * t) * 32767;
			(void)mbuf_write_u8(mb, ulaw_encode((int16_t)lrint(v)));
		}
		mb->pos = RTP_HEADER_SIZE;
		int err = rtp_send(m->rtp, &m->remote, false, m->tx_frames == 0, PT_PCMU,
				   m->tx_frames * FRAME, mb);
		mem_deref(mb);
		if (err)
			break;
		m->tx_frames++;
	}
	tmr_start(&m->tx_timer, 20 - (tmr_jiffies() - m->started_ms) % 20, tx_handler, m);
}

void media_start(struct media *m, const struct sa *remote)
{
	m->remote = *remote;
	if (m->running)
		return;
	m->running = true;
	m->started_ms = tmr_jiffies();
	tmr_start(&m->tx_timer, 0, tx_handler, m);
}

void media_close(struct media *m)
{
	tmr_cancel(&m->tx_timer);
	m->running = false;
	m->rtp = mem_deref(m->rtp);
	if (m->wav) {
		uint8_t h[44];
		wav_header(h, m->wav_samples);
		if (fseek(m->wav, 0, SEEK_SET) == 0)
			(void)fwrite(h, 1, sizeof(h), m->wav);
		fclose(m->wav);
		m->wav = NULL;
	}
}
