#!/bin/sh
# Writes a headless baresip 1.0.0 config directory for the Interop run (adapted from shared/peers/baresip).
# Usage: peers/baresip/mkconf.sh DIR USER PASS SIP_PORT CTRL_PORT RTP_FIRST ANSWERMODE [TRANSPORT]
#   ANSWERMODE: auto (answers every call) or manual (the script answers or rejects through ctrl_tcp).
#   TRANSPORT: udp (the default), tcp or tls.
# The account registers with Kamailio on 127.0.0.1:5060 over UDP or TCP, or on 127.0.0.1:5061 over TLS (baresip's
# own TLS listener is then SIP_PORT+1; baresip 1.0.0 does not verify Kamailio's certificate, sip_cafile is set
# to the run's CA all the same when CERTDIR is known). The audio source is a 440 Hz 8 kHz mono WAV
# written here (aufile), the player a paced aubridge sink: no sound card, everything on 127.0.0.1.
set -e
DIR=$1; U=$2; P=$3; SP=$4; CP=$5; RTP=$6; MODE=$7; TR=${8:-udp}
case $TR in
  udp|tcp) URI="sip:$U@127.0.0.1;transport=$TR" ;;
  tls) URI="sip:$U@127.0.0.1:5061;transport=tls" ;;
  *) echo "mkconf.sh: bad transport $TR" >&2; exit 2 ;;
esac
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
python3 - "$DIR/tone.wav" <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb"); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / 8000))) for n in range(8000 * 60)))
w.close()
PY
cat > "$DIR/config" <<EOC
poll_method		epoll
sip_listen		127.0.0.1:$SP
call_local_timeout	120
call_max_calls		4
audio_player		aubridge,$U-$SP-sink
audio_source		aufile,$DIR/tone.wav
audio_alert		aubridge,$U-$SP-alert
audio_level		no
audio_buffer		20-160
ausrc_srate		8000
ausrc_channels		1
auplay_srate		8000
auplay_channels		1
rtp_ports		$RTP-$((RTP+99))
rtcp_mux		no
jitter_buffer_delay	5-10
net_interface		127.0.0.1
module_path		/usr/lib/baresip/modules
module			g711.so
module			opus.so
module			aubridge.so
module			aufile.so
module_tmp		uuid.so
module_tmp		account.so
module_app		menu.so
module_app		ctrl_tcp.so
ctrl_tcp_listen		127.0.0.1:$CP
EOC
[ "$TR" = tls ] && [ -n "${CERTDIR:-}" ] && printf 'sip_cafile\t\t%s\n' "$CERTDIR/ca.crt" >> "$DIR/config"
# BARESIP_CERT (a PEM file with certificate and key): baresip's TLS listener presents it, so a proxy that
# routes to its Contact can open a TLS connection to it (scenarios/55-reuse.sh).
if [ "$TR" = tls ] && [ -n "${BARESIP_CERT:-}" ]; then printf 'sip_certificate\t\t%s\n' "$BARESIP_CERT" >> "$DIR/config"; fi
echo "<$URI>;auth_pass=$P;answermode=$MODE;regint=600;audio_codecs=pcmu,pcma" > "$DIR/accounts"
: > "$DIR/contacts"
