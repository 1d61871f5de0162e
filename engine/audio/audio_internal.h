/* engine/audio/audio_internal.h: what the audio module's files share, and nothing else sees. */
#ifndef TY_AUDIO_INTERNAL_H
#define TY_AUDIO_INTERNAL_H

#include "audio.h"

#include <sndfile.h>

/* A stream keeps this many buffers of this many frames queued per playing source: about
 * a third of a second at 48 kHz, refilled every frame and between render chunks. */
#define TY_STREAM_BUFFERS 4
#define TY_STREAM_FRAMES 4096

bool ty_audio_check_format(const SF_INFO *info, char *err, size_t errsz);
/* Opens path for streaming; NULL with a message in err. Close with sf_close. */
SNDFILE *ty_audio_stream_open(const char *path, SF_INFO *info, char *err, size_t errsz);

#endif
