#ifndef SWITCHBOARD_COPUS_SHIM_H
#define SWITCHBOARD_COPUS_SHIM_H

// libopus (Debian's libopus-dev). opus_encoder_ctl and opus_decoder_ctl are variadic, which Swift cannot
// call, so each request the Media target uses has a static inline wrapper here. Each returns OPUS_OK or a
// negative OPUS_* error code.

#include <opus.h>

static inline int sb_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}
static inline int sb_opus_encoder_set_inband_fec(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(enabled));
}
static inline int sb_opus_encoder_set_packet_loss_perc(OpusEncoder *encoder, opus_int32 percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}
static inline int sb_opus_encoder_set_complexity(OpusEncoder *encoder, opus_int32 complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
static inline int sb_opus_encoder_set_max_bandwidth(OpusEncoder *encoder, opus_int32 bandwidth) {
    return opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(bandwidth));
}
static inline int sb_opus_encoder_set_vbr(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_VBR(enabled));
}
static inline int sb_opus_encoder_set_dtx(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_DTX(enabled));
}
static inline int sb_opus_encoder_set_signal(OpusEncoder *encoder, opus_int32 signal) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(signal));
}
static inline int sb_opus_encoder_get_bitrate(OpusEncoder *encoder, opus_int32 *bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_GET_BITRATE(bitsPerSecond));
}
static inline int sb_opus_encoder_reset_state(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_RESET_STATE);
}
static inline int sb_opus_decoder_get_last_packet_duration(OpusDecoder *decoder, opus_int32 *samples) {
    return opus_decoder_ctl(decoder, OPUS_GET_LAST_PACKET_DURATION(samples));
}
static inline int sb_opus_decoder_reset_state(OpusDecoder *decoder) {
    return opus_decoder_ctl(decoder, OPUS_RESET_STATE);
}

#endif
