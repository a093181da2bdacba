/*
 * ws-client: registers, calls and answers over SIP over WebSocket (RFC 7118) with libre 1.1.0's own SIP
 * stack: sip_alloc + sip_transp_add_websock (a WS or WSS client transport), sipreg for REGISTER, sipsess for
 * the INVITE dialog, sdp for the offer/answer and rtp for a PCMU stream (media.c). For the interop suite
 * (Interop/scenarios/45-websocket.sh); built by build.sh, the binary never committed.
 *
 * Usage: ws-client --user NAME [options]   (see usage() below)
 * stdout: one line per event (registered, reg-failed, incoming, connected, ended, summary), among the
 * progress lines libre 1.1.0 itself prints there ("websock: connecting to ...").
 * stderr: with --trace, every SIP message sent and received; libre's own diagnostics.
 * Exit: 0 when everything asked for succeeded (the registration; the call connected and ended with a BYE
 * from either side), 1 when it did not, 2 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ws-client.h"

struct options {
	const char *user;
	const char *password;
	const char *domain;
	const char *server;      /* HOST:PORT of the WebSocket server all requests go through, if any */
	const char *call;        /* the URI to call */
	const char *record;
	const char *ca;
	const char *tls_name;
	enum sip_transp tp;
	bool do_register;
	bool answer;
	bool trace;
	unsigned duration;
	unsigned timeout;
	unsigned expires;
	double tone;
	uint16_t rtp_min, rtp_max;
};

static struct {
	struct options o;
	struct sip *sip;
	struct sipsess_sock *sock;
	struct sipsess *sess;
	struct sipreg *reg;
	struct sdp_session *sdp;
	struct sdp_media *sdpm;
	struct media media;
	struct tmr hangup, timeout, backstop;
	char route[256];
	char aor[256];
	bool registered;
	bool connected;
	bool ended_normally;
	bool finishing;
	bool failed;
} app;

static void finish(void);

static void event(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	(void)re_vfprintf(stdout, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stdout);
	(void)fflush(stdout);
}

static void trace_handler(bool tx, enum sip_transp tp, const struct sa *src, const struct sa *dst,
			  const uint8_t *pkt, size_t len, void *arg)
{
	(void)arg;
	(void)re_fprintf(stderr, "--- %s %s %J -> %J\n%b\n", tx ? "sent" : "received", sip_transp_name(tp), src,
			 dst, pkt, len);
}

static int auth_handler(char **username, char **password, const char *realm, void *arg)
{
	(void)realm;
	(void)arg;
	if (!app.o.password)
		return EAUTH;
	int err = str_dup(username, app.o.user);
	err |= str_dup(password, app.o.password);
	return err;
}

/* The remote SDP is in: start sending to its address if it offers or accepts PCMU. */
static void media_update(void)
{
	const struct sa *raddr = sdp_media_raddr(app.sdpm);
	if (!sdp_media_rformat(app.sdpm, "PCMU") || !sa_isset(raddr, SA_ALL)) {
		event("media-failed reason=\"no PCMU at a usable address\"");
		return;
	}
	media_start(&app.media, raddr);
}

static int sdp_from_msg(const struct sip_msg *msg, bool offer)
{
	if (!msg->mb || !mbuf_get_left(msg->mb))
		return 0;
	int err = sdp_decode(app.sdp, msg->mb, offer);
	if (err)
		event("sdp-failed err=\"%m\"", err);
	return err;
}

/* A re-INVITE's offer (or an INVITE without one): answer with the same stream. */
static int offer_handler(struct mbuf **descp, const struct sip_msg *msg, void *arg)
{
	(void)arg;
	int err = sdp_from_msg(msg, true);
	if (err)
		return err;
	media_update();
	return sdp_encode(descp, app.sdp, false);
}

static int answer_handler(const struct sip_msg *msg, void *arg)
{
	(void)arg;
	int err = sdp_from_msg(msg, false);
	if (!err)
		media_update();
	return err;
}

static void progress_handler(const struct sip_msg *msg, void *arg)
{
	(void)arg;
	event("progress status=%u", msg->scode);
}

static void hangup_handler(void *arg)
{
	(void)arg;
	if (app.sess)
		event("hangup");
	app.ended_normally = true;
	finish();
}

static void establish_handler(const struct sip_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	app.connected = true;
	tmr_cancel(&app.timeout);
	event("connected transport=%s", sip_transp_name(app.o.tp));
	tmr_start(&app.hangup, app.o.duration * 1000, hangup_handler, NULL);
}

static void close_handler(int err, const struct sip_msg *msg, void *arg)
{
	(void)arg;
	app.sess = mem_deref(app.sess);
	if (err)
		event("ended reason=error err=\"%m\"", err);
	else if (msg && !msg->req)
		event("ended reason=rejected status=%u phrase=\"%r\"", msg->scode, &msg->reason);
	else
		event("ended reason=remote");
	app.ended_normally = app.connected && !err && !(msg && !msg->req);
	if (!app.ended_normally)
		app.failed = true;
	finish();
}

static void place_call(void)
{
	struct mbuf *desc = NULL;
	const char *routev[1] = {app.route};
	int err = sdp_encode(&desc, app.sdp, true);
	if (!err)
		err = sipsess_connect(&app.sess, app.sock, app.o.call, NULL, app.aor, app.o.user, routev,
				      app.route[0] ? 1 : 0, "application/sdp", desc, auth_handler, NULL, false,
				      offer_handler, answer_handler, progress_handler, establish_handler, NULL, NULL,
				      close_handler, NULL, "Allow: INVITE, ACK, BYE, CANCEL, OPTIONS\r\n");
	mem_deref(desc);
	if (err) {
		event("ended reason=error err=\"%m\"", err);
		app.failed = true;
		finish();
		return;
	}
	event("calling uri=%s", app.o.call);
}

static void connect_handler(const struct sip_msg *msg, void *arg)
{
	(void)arg;
	if (app.sess || app.finishing || !app.o.answer) {
		(void)sip_treply(NULL, app.sip, msg, 486, "Busy Here");
		return;
	}
	event("incoming from=%r transport=%s", &msg->from.auri, sip_transp_name(msg->tp));
	struct mbuf *desc = NULL;
	int err = sdp_from_msg(msg, true);
	if (!err)
		err = sdp_encode(&desc, app.sdp, false);
	if (!err)
		err = sipsess_accept(&app.sess, app.sock, msg, 200, "OK", app.o.user, "application/sdp", desc,
				     auth_handler, NULL, false, offer_handler, answer_handler, establish_handler, NULL,
				     NULL, close_handler, NULL, "Allow: INVITE, ACK, BYE, CANCEL, OPTIONS\r\n");
	mem_deref(desc);
	if (err) {
		(void)sip_treply(NULL, app.sip, msg, 500, "Server Error");
		event("ended reason=error err=\"%m\"", err);
		app.failed = true;
		finish();
		return;
	}
	media_update();
}

static void register_handler(int err, const struct sip_msg *msg, void *arg)
{
	(void)arg;
	if (err || !msg || msg->scode >= 300) {
		if (err)
			event("reg-failed err=\"%m\"", err);
		else if (msg)
			event("reg-failed status=%u phrase=\"%r\"", msg->scode, &msg->reason);
		app.failed = true;
		finish();
		return;
	}
	if (msg->scode < 200 || app.registered)
		return;
	app.registered = true;
	const struct sip_hdr *contact = sip_msg_hdr(msg, SIP_HDR_CONTACT);
	if (contact)
		event("registered contact=\"%r\"", &contact->val);
	else
		event("registered");
	if (app.o.call) {
		place_call();
	}
	else if (!app.o.answer) {
		/* Registration only: stay registered for --duration, then unregister. */
		tmr_cancel(&app.timeout);
		tmr_start(&app.hangup, app.o.duration * 1000, hangup_handler, NULL);
	}
}

static void exit_handler(void *arg)
{
	(void)arg;
	re_cancel();
}

static void backstop_handler(void *arg)
{
	(void)arg;
	re_cancel();
}

static void timeout_handler(void *arg)
{
	(void)arg;
	event("timeout seconds=%u", app.o.timeout);
	app.failed = true;
	finish();
}

/* Ends the call (BYE, or CANCEL before an answer), unregisters, and stops when libre reports its transactions
 * done (sip_close's exit handler), or after 1.5 s: on loopback the BYE and the unregistration (with its digest
 * round) are answered within milliseconds. */
static void finish(void)
{
	if (app.finishing)
		return;
	app.finishing = true;
	tmr_cancel(&app.hangup);
	tmr_cancel(&app.timeout);
	event("summary tx=%u rx=%u verified-tls=%u", app.media.tx_frames, app.media.rx_packets, tls_verify_count());
	media_close(&app.media);
	app.sess = mem_deref(app.sess);
	app.reg = mem_deref(app.reg);
	tmr_start(&app.backstop, 1500, backstop_handler, NULL);
	sip_close(app.sip, false);
}

static void signal_handler(int sig)
{
	(void)sig;
	if (app.finishing)
		re_cancel();
	else
		finish();
}

static void usage(void)
{
	(void)fprintf(stderr,
		      "usage: ws-client --user NAME [--password PW] [--domain HOST] --transport ws|wss\n"
		      "                 [--server HOST:PORT] [--register] [--call URI] [--answer]\n"
		      "                 [--duration S] [--timeout S] [--expires S] [--tone HZ] [--record FILE.wav]\n"
		      "                 [--rtp-ports LOW-HIGH] [--ca FILE] [--tls-name NAME] [--trace]\n"
		      "  --server     every request goes through this WebSocket server (a Route to it)\n"
		      "  --register   registers NAME@DOMAIN first (then calls, or waits for a call)\n"
		      "  --call URI   calls URI (sip:bob@127.0.0.1:5580;transport=ws to reach a server directly)\n"
		      "  --answer     answers the first incoming INVITE with 200 and PCMU\n"
		      "  --ca FILE    WSS (required): trust only this CA and check the server's name (--tls-name,\n"
		      "               default the host libre connects to)\n");
}

static int parse_unsigned(const char *flag, const char *value, unsigned *out)
{
	char *end = NULL;
	unsigned long v = strtoul(value, &end, 10);
	if (!*value || *end || v > 86400) {
		(void)fprintf(stderr, "ws-client: bad value for %s: %s\n", flag, value);
		return EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	*o = (struct options){.domain = "127.0.0.1", .tp = SIP_TRANSP_NONE, .duration = 3, .timeout = 15,
			      .expires = 60, .tone = 440, .rtp_min = 17200, .rtp_max = 17299};
	for (int i = 1; i < argc; i++) {
		const char *flag = argv[i];
		bool has_value = i + 1 < argc;
		const char *value = has_value ? argv[i + 1] : NULL;
		unsigned u = 0;
		int err = 0;
		if (!strcmp(flag, "--register")) { o->do_register = true; continue; }
		if (!strcmp(flag, "--answer")) { o->answer = true; continue; }
		if (!strcmp(flag, "--trace")) { o->trace = true; continue; }
		if (!has_value) {
			(void)fprintf(stderr, "ws-client: unknown flag or missing value: %s\n", flag);
			return EINVAL;
		}
		i++;
		if (!strcmp(flag, "--user")) o->user = value;
		else if (!strcmp(flag, "--password")) o->password = value;
		else if (!strcmp(flag, "--domain")) o->domain = value;
		else if (!strcmp(flag, "--server")) o->server = value;
		else if (!strcmp(flag, "--call")) o->call = value;
		else if (!strcmp(flag, "--record")) o->record = value;
		else if (!strcmp(flag, "--ca")) o->ca = value;
		else if (!strcmp(flag, "--tls-name")) o->tls_name = value;
		else if (!strcmp(flag, "--transport")) {
			if (!strcmp(value, "ws")) o->tp = SIP_TRANSP_WS;
			else if (!strcmp(value, "wss")) o->tp = SIP_TRANSP_WSS;
			else err = EINVAL;
		}
		else if (!strcmp(flag, "--duration")) err = parse_unsigned(flag, value, &o->duration);
		else if (!strcmp(flag, "--timeout")) err = parse_unsigned(flag, value, &o->timeout);
		else if (!strcmp(flag, "--expires")) err = parse_unsigned(flag, value, &o->expires);
		else if (!strcmp(flag, "--tone")) { err = parse_unsigned(flag, value, &u); o->tone = u; }
		else if (!strcmp(flag, "--rtp-ports")) {
			unsigned lo = 0, hi = 0;
			if (sscanf(value, "%u-%u", &lo, &hi) != 2 || lo == 0 || hi < lo + 1 || hi > 65535) err = EINVAL;
			o->rtp_min = (uint16_t)lo;
			o->rtp_max = (uint16_t)hi;
		}
		else {
			(void)fprintf(stderr, "ws-client: unknown flag: %s\n", flag);
			return EINVAL;
		}
		if (err) {
			(void)fprintf(stderr, "ws-client: bad value for %s: %s\n", flag, value);
			return err;
		}
	}
	if (!o->user || o->tp == SIP_TRANSP_NONE || (!o->call && !o->answer && !o->do_register)) {
		(void)fprintf(stderr, "ws-client: --user, --transport and one of --register, --call, --answer are "
			      "needed\n");
		return EINVAL;
	}
	if (o->tp == SIP_TRANSP_WSS && !o->ca) {
		(void)fprintf(stderr, "ws-client: --transport wss needs --ca (libre 1.1.0 alone checks no "
			      "certificate)\n");
		return EINVAL;
	}
	if (o->answer && o->call) {
		(void)fprintf(stderr, "ws-client: --call and --answer exclude each other\n");
		return EINVAL;
	}
	return 0;
}

static int setup(void)
{
	struct sa laddr, ns;
	struct dnsc *dnsc = NULL;
	int err = sa_set_str(&laddr, "127.0.0.1", 0);
	/* libre wants a DNS client; every address here is numeric, so it is never asked. */
	err |= sa_set_str(&ns, "127.0.0.1", 53);
	if (err)
		return err;
	err = dnsc_alloc(&dnsc, NULL, &ns, 1);
	if (!err)
		err = sip_alloc(&app.sip, dnsc, 32, 32, 32, "ws-client (libre " "1.1.0" ")", exit_handler, NULL);
	mem_deref(dnsc);
	if (err)
		return err;
	if (app.o.trace)
		sip_set_trace_handler(app.sip, trace_handler);
	/* Client-side WebSocket transports (server=false): libre opens ws://HOST:PORT/ or wss://HOST:PORT/ on
	 * demand. Both, as baresip adds them: a WSS server's Record-Route says transport=ws (RFC 7118 has no
	 * transport=wss), and libre refuses a next hop whose transport it has not added; it then finds the
	 * open connection to that address, whichever kind it is. */
	err = sip_transp_add_websock(app.sip, SIP_TRANSP_WS, &laddr, false, NULL);
	if (!err)
		err = sip_transp_add_websock(app.sip, SIP_TRANSP_WSS, &laddr, false, NULL);
	if (!err)
		err = sipsess_listen(&app.sock, app.sip, 32, connect_handler, NULL);
	if (!err)
		err = media_open(&app.media, &laddr, app.o.rtp_min, app.o.rtp_max, app.o.tone, app.o.record);
	if (!err)
		err = sdp_session_alloc(&app.sdp, &laddr);
	if (!err)
		err = sdp_media_add(&app.sdpm, app.sdp, "audio", media_port(&app.media), "RTP/AVP");
	if (!err)
		err = sdp_format_add(NULL, app.sdpm, false, "0", "PCMU", 8000, 1, NULL, NULL, NULL, false, NULL);
	return err;
}

int main(int argc, char **argv)
{
	if (parse_args(argc, argv, &app.o)) {
		usage();
		return 2;
	}
	const char *param = app.o.tp == SIP_TRANSP_WSS ? "wss" : "ws";
	if (app.o.server)
		(void)re_snprintf(app.route, sizeof(app.route), "sip:%s;transport=%s", app.o.server, param);
	(void)re_snprintf(app.aor, sizeof(app.aor), "sip:%s@%s", app.o.user, app.o.domain);
	if (app.o.ca)
		tls_verify_configure(app.o.ca, app.o.tls_name);

	int err = libre_init();
	if (!err)
		err = setup();
	if (err) {
		(void)re_fprintf(stderr, "ws-client: set-up failed: %m\n", err);
		return 1;
	}
	tmr_start(&app.timeout, app.o.timeout * 1000, timeout_handler, NULL);
	if (app.o.do_register) {
		char reg_uri[256];
		const char *routev[1] = {app.route};
		(void)re_snprintf(reg_uri, sizeof(reg_uri), "sip:%s;transport=%s", app.o.domain, param);
		err = sipreg_register(&app.reg, app.sip, reg_uri, app.aor, NULL, app.aor, app.o.expires, app.o.user,
				      routev, app.route[0] ? 1 : 0, 0, auth_handler, NULL, false, register_handler,
				      NULL, NULL, NULL);
		if (err) {
			event("reg-failed err=\"%m\"", err);
			return 1;
		}
	}
	else if (app.o.call) {
		place_call();
	}
	if (app.o.answer)
		event("waiting");
	(void)re_main(signal_handler);

	bool ok = !app.failed && (!app.o.do_register || app.registered) &&
		  ((!app.o.call && !app.o.answer) || app.ended_normally);
	media_close(&app.media);
	app.sess = mem_deref(app.sess);
	app.reg = mem_deref(app.reg);
	app.sock = mem_deref(app.sock);
	app.sdp = mem_deref(app.sdp);
	app.sip = mem_deref(app.sip);
	libre_close();
	return ok ? 0 : 1;
}
