/*
 * ws-client: an independent SIP-over-WebSocket endpoint for the interop suite, on libre 1.1.0's own stack
 * (sip with its WebSocket transport, sipsess, sipreg, sdp, rtp). Interop/README.md says why and how.
 */
#ifndef WS_CLIENT_H
#define WS_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <re.h>

/* One call's audio: a PCMU tone out, PCMU in to a WAV file. */
struct media {
	struct rtp_sock *rtp;
	struct tmr tx_timer;
	struct sa remote;
	double tone_hz;
	uint64_t started_ms;
	uint32_t tx_frames;
	uint32_t rx_packets;
	uint32_t wav_samples;
	FILE *wav;
	bool running;
};

int media_open(struct media *m, const struct sa *laddr, uint16_t port_min, uint16_t port_max, double tone_hz,
	       const char *record);
uint16_t media_port(const struct media *m);
void media_start(struct media *m, const struct sa *remote);
void media_close(struct media *m);

/* Certificate checks for WSS (tls-verify.c): the CA file and the name the server's certificate must carry. */
void tls_verify_configure(const char *ca_file, const char *server_name);
/* How many TLS connections had the checks switched on (0 means libre never asked for a server name). */
unsigned tls_verify_count(void);

#endif
