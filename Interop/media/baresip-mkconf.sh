#!/bin/sh
# Writes a headless baresip 1.0.0 config directory for the media scenarios (adapted from shared/peers/baresip
# and interop4's Interop/peers/baresip/mkconf.sh, duplicated here so this suite stands on its own).
# Usage: media/baresip-mkconf.sh DIR USER PASS SIP_PORT CTRL_PORT RTP_FIRST WAV CODECS MEDIAENC [REGISTER]
#   WAV: what baresip sends (aufile; 8 kHz mono 16-bit, baresip resamples to and from every codec)
#   CODECS: baresip's audio_codecs, e.g. opus/48000/2 or pcmu; MEDIAENC: none | srtp | srtp-mand
#   REGISTER: yes (default: registers with Kamailio on 127.0.0.1:5060 over UDP) or no (regint=0, direct calls)
# What baresip receives is written by the sndfile filter to DIR/rec/dump-<time>-dec.wav (and what it sends to
# -enc.wav); aufile is only a source in this version. The player is a paced aubridge sink: no sound card.
# snd_path is relative (baresip-start.sh runs baresip in DIR): sndfile builds the file name in a 128-byte
# buffer, and a long absolute path lost the ".wav" and more.
set -e
DIR=$1; U=$2; P=$3; SP=$4; CP=$5; RTP=$6; WAV=$7; CODECS=$8; MENC=$9; REG=${10:-yes}
mkdir -p "$DIR/rec"; DIR=$(cd "$DIR" && pwd)
cat > "$DIR/config" <<EOC
poll_method		epoll
sip_listen		127.0.0.1:$SP
call_local_timeout	120
call_max_calls		4
audio_player		aubridge,$U-$SP-sink
audio_source		aufile,$WAV
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
rtp_stats		yes
net_interface		127.0.0.1
module_path		/usr/lib/baresip/modules
module			opus.so
module			g711.so
module			aubridge.so
module			aufile.so
module			sndfile.so
module			srtp.so
module_tmp		uuid.so
module_tmp		account.so
module_app		menu.so
module_app		ctrl_tcp.so
ctrl_tcp_listen		127.0.0.1:$CP
snd_path		rec
opus_bitrate		28000
EOC
EXTRA=";audio_codecs=$CODECS"
[ "$MENC" != none ] && EXTRA="$EXTRA;mediaenc=$MENC"
if [ "$REG" = yes ]; then
  echo "<sip:$U@127.0.0.1;transport=udp>;auth_pass=$P;answermode=auto;regint=600$EXTRA" > "$DIR/accounts"
else
  echo "<sip:$U@127.0.0.1:$SP;transport=udp>;answermode=auto;regint=0$EXTRA" > "$DIR/accounts"
fi
: > "$DIR/contacts"
