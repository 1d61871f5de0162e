/* server/link_frames.h: the frames of a direct link between two processes of a cluster
 * (server/peer_link.c), as a parser and a writer over bytes, with no sockets. A frame is
 *   u32 length (big-endian, of what follows) | u8 channel length | channel | payload
 * where the channel is the pub/sub channel the payload would have been published on, so a
 * frame reaches the same handler a Redis message would. */
#ifndef TY_LINK_FRAMES_H
#define TY_LINK_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#define TY_LINK_FRAME_HEADER 5u                /* the length and the channel length */
#define TY_LINK_FRAME_MAX (16u * 1024 * 1024) /* what follows the length, at most */

typedef enum ty_link_status {
  TY_LINK_NEED, /* the bytes hold no whole frame yet */
  TY_LINK_FRAME,
  TY_LINK_BAD /* the bytes are not a frame: the link is dropped */
} ty_link_status;

typedef struct ty_link_frame {
  const char *channel; /* pointers into the bytes given */
  size_t channel_len;
  const char *payload;
  size_t payload_len;
} ty_link_frame;

/* Reads the frame at the start of p[0, n): TY_LINK_FRAME with *used set to its size and *f
 * to its parts, TY_LINK_NEED when more bytes must come first, TY_LINK_BAD with *why when the
 * length is out of bounds or the channel longer than the frame. */
ty_link_status ty_link_frame_next(const char *p, size_t n, ty_link_frame *f, size_t *used, const char **why);

/* The bytes a frame of this channel and payload takes (0 when it would pass the bounds). */
size_t ty_link_frame_size(size_t channel_len, size_t payload_len);
/* Writes one frame at out, which has ty_link_frame_size(...) bytes. */
void ty_link_frame_put(char *out, const char *channel, size_t channel_len, const char *payload, size_t payload_len);

#endif
