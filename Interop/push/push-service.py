#!/usr/bin/env python3
"""The suite's stand-in for APNs/FCM (issue 18), which cannot be reached here: Kamailio POSTs each push to
http://127.0.0.1:PORT/push as a form (type, call-id, from, pn-prid); this service checks the device token
against the one it expects, and hands the payload without the token to the woken app, one line on FIFO,
as the OS would hand it to PushKit. A push for another token gets 410 (APNs: the token is no longer
valid). It logs what it delivered, never the token.

    push-service.py PORT FIFO TOKEN[,TOKEN...] LOG
"""
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

port, fifo, tokens, log_path = int(sys.argv[1]), sys.argv[2], set(sys.argv[3].split(",")), sys.argv[4]
app = open(fifo, "w", buffering=1)
log = open(log_path, "a", buffering=1)


class Push(BaseHTTPRequestHandler):
    def do_POST(self):
        length = min(int(self.headers.get("Content-Length", "0")), 8192)
        fields = urllib.parse.parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        values = {key: items[0] for key, items in fields.items()}
        token = values.pop("pn-prid", "")
        if self.path != "/push" or token not in tokens:
            self.send_response(410 if self.path == "/push" else 404)
            self.end_headers()
            log.write("refused type=%s call-id=%s\n" % (values.get("type", "call"), values.get("call-id", "")))
            return
        app.write(urllib.parse.urlencode(values) + "\n")
        log.write("delivered %s\n" % " ".join("%s=%s" % kv for kv in sorted(values.items())))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", port), Push).serve_forever()
