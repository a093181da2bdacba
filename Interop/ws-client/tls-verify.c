/*
 * Certificate checks for libre 1.1.0's WSS client.
 *
 * libre 1.1.0's SIP WebSocket transport opens its connections through an HTTP client it allocates itself
 * (http_client_alloc, called from the transport the first time a WS/WSS connection is needed) and keeps
 * private. That client's TLS context is made with no trusted CA and no verify mode (OpenSSL's default,
 * SSL_VERIFY_NONE): a WSS connection made by that code accepts any certificate for any name. Nothing in
 * libre's public API reaches that client or its connections.
 *
 * The two functions below take the place of libre's own (the executable's definitions come first in the
 * dynamic linker's lookup, and libre calls both through its PLT), call libre's originals, and then switch on
 * the checks with libre's own TLS API: the run's CA is added to the HTTP client (http_client_add_ca), and
 * each connection is told to verify the peer and its name (tls_set_verify_server: SSL_set1_host with
 * SSL_VERIFY_PEER). libre's handshake code then fails the connection on a bad certificate, as it does for
 * its SIP TLS transport.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>

#include "ws-client.h"

static const char *verify_ca;
static const char *verify_name;
static unsigned verified;

void tls_verify_configure(const char *ca_file, const char *server_name)
{
	verify_ca = ca_file;
	verify_name = server_name;
}

unsigned tls_verify_count(void)
{
	return verified;
}

int http_client_alloc(struct http_cli **clip, struct dnsc *dnsc)
{
	int (*original)(struct http_cli **, struct dnsc *) =
		(int (*)(struct http_cli **, struct dnsc *))dlsym(RTLD_NEXT, "http_client_alloc");
	if (!original)
		return ENOSYS;
	int err = original(clip, dnsc);
	if (err || !verify_ca)
		return err;
	return http_client_add_ca(*clip, verify_ca);
}

int tls_set_servername(struct tls_conn *tc, const char *servername)
{
	int (*original)(struct tls_conn *, const char *) =
		(int (*)(struct tls_conn *, const char *))dlsym(RTLD_NEXT, "tls_set_servername");
	if (!original)
		return ENOSYS;
	int err = original(tc, servername);
	if (err || !verify_ca)
		return err;
	err = tls_set_verify_server(tc, verify_name ? verify_name : servername);
	if (!err)
		verified++;
	return err;
}
