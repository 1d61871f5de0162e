/* server/link_frames.c: a cluster link's frames, read and written (see link_frames.h). */
#include "link_frames.h"

#include <string.h>

ty_link_status ty_link_frame_next(const char *p, size_t n, ty_link_frame *f, size_t *used, const char **why) {
  if (n < TY_LINK_FRAME_HEADER) return TY_LINK_NEED;
  const unsigned char *u = (const unsigned char *)p;
  uint32_t len = (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
  size_t channel_len = u[4];
  if (len < 1 || len > TY_LINK_FRAME_MAX) {
    *why = "frame length out of bounds";
    return TY_LINK_BAD;
  }
  if (channel_len > len - 1) {
    *why = "channel longer than its frame";
    return TY_LINK_BAD;
  }
  if (n - 4 < len) return TY_LINK_NEED;
  f->channel = p + TY_LINK_FRAME_HEADER;
  f->channel_len = channel_len;
  f->payload = f->channel + channel_len;
  f->payload_len = len - 1 - channel_len;
  *used = 4 + (size_t)len;
  return TY_LINK_FRAME;
}

size_t ty_link_frame_size(size_t channel_len, size_t payload_len) {
  if (channel_len > 255 || payload_len > TY_LINK_FRAME_MAX - 1 - channel_len) return 0;
  return TY_LINK_FRAME_HEADER + channel_len + payload_len;
}

void ty_link_frame_put(char *out, const char *channel, size_t channel_len, const char *payload, size_t payload_len) {
  uint32_t len = (uint32_t)(1 + channel_len + payload_len);
  unsigned char *u = (unsigned char *)out;
  u[0] = (unsigned char)(len >> 24), u[1] = (unsigned char)(len >> 16), u[2] = (unsigned char)(len >> 8);
  u[3] = (unsigned char)len, u[4] = (unsigned char)channel_len;
  memcpy(out + TY_LINK_FRAME_HEADER, channel, channel_len);
  if (payload_len) memcpy(out + TY_LINK_FRAME_HEADER + channel_len, payload, payload_len);
}
