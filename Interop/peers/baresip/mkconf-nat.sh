#!/bin/sh
# Writes a headless baresip 1.0.0 config directory for a client of the NAT topology (Interop/nat): it binds
# to its namespace's one address, registers with Kamailio on the public segment over UDP and, with ICE, uses
# the ice, stun and turn modules (libre's ICE agent, RFC 5245 era; TURN over UDP only).
# Usage: peers/baresip/mkconf-nat.sh DIR USER PASS LOCAL_IP CTRL_PORT RTP_FIRST WAV NAT [SERVER [TURN_DIR]]
#   NAT: ice (medianat=ice) or none (no medianat: plain c=/m= addresses)
#   SERVER: stun:HOST:PORT or turn:HOST:PORT (the account's stunserver; ICE gathers srflx, or relay + srflx)
#   TURN_DIR: a directory holding turn.user and turn.pass (Interop/nat/coturn's RUN), for turn: servers
# Audio as in media/baresip-mkconf.sh: WAV (8 kHz mono) is sent with aufile, PCMU only; what baresip hears
# is written by sndfile to DIR/rec/dump-<time>-dec.wav; the player is a paced aubridge sink.
# RTCP is multiplexed (rtcp_mux yes): one ICE component per call, half the checks of two.
set -e
DIR=$1; U=$2; P=$3; IP=$4; CP=$5; RTP=$6; WAV=$7; NAT=$8; SERVER=${9:-}; TURN_DIR=${10:-}
. "$(dirname "$0")/../../nat/addresses.sh"
mkdir -p "$DIR/rec"; DIR=$(cd "$DIR" && pwd)
cat > "$DIR/config" <<EOC
poll_method		epoll
sip_listen		$IP:5060
call_local_timeout	120
call_max_calls		4
audio_player		aubridge,$U-$CP-sink
audio_source		aufile,$WAV
audio_alert		aubridge,$U-$CP-alert
audio_level		no
audio_buffer		20-160
ausrc_srate		8000
ausrc_channels		1
auplay_srate		8000
auplay_channels		1
rtp_ports		$RTP-$((RTP+99))
rtcp_mux		yes
jitter_buffer_delay	5-10
rtp_stats		yes
net_interface		$IP
module_path		/usr/lib/baresip/modules
module			g711.so
module			aubridge.so
module			aufile.so
module			sndfile.so
EOC
if [ "$NAT" = ice ]; then
  printf 'module\t\t\tstun.so\nmodule\t\t\tturn.so\nmodule\t\t\tice.so\n' >> "$DIR/config"
fi
cat >> "$DIR/config" <<EOC
module_tmp		uuid.so
module_tmp		account.so
module_app		menu.so
module_app		ctrl_tcp.so
ctrl_tcp_listen		127.0.0.1:$CP
snd_path		rec
EOC
EXTRA=";audio_codecs=pcmu"
if [ "$NAT" = ice ]; then
  EXTRA="$EXTRA;medianat=ice;stunserver=$SERVER"
  case $SERVER in
    turn:*) EXTRA="$EXTRA;stunuser=$(cat "$TURN_DIR/turn.user");stunpass=$(cat "$TURN_DIR/turn.pass")" ;;
  esac
fi
(umask 077; echo "<sip:$U@$KAMAILIO_IP;transport=udp>;auth_pass=$P;answermode=auto;regint=600$EXTRA" > "$DIR/accounts")
: > "$DIR/contacts"
