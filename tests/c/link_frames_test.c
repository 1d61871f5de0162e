/* tests/c/link_frames_test.c: a cluster link's frames (server/link_frames.c): frames written
 * and read back under every cut of the bytes, an empty channel and payload, and each length
 * that must be refused. */
#include "check.h"
#include "link_frames.h"

#include <stdlib.h>

/* Reads stream[0, n) as a link does, fed chunk bytes at a time into a buffer, and writes each
 * frame as "channel=payload;" into out; "BAD:why" ends it on a refusal. */
static void read_all(const char *stream, size_t n, size_t chunk, char *out, size_t cap) {
  char *buf = malloc(n + 1);
  size_t have = 0, fed = 0, o = 0;
  out[0] = 0;
  while (fed < n || have) {
    size_t k = n - fed < chunk ? n - fed : chunk;
    memcpy(buf + have, stream + fed, k);
    have += k, fed += k;
    ty_link_frame f;
    size_t used, at = 0;
    const char *why = NULL;
    ty_link_status st;
    while ((st = ty_link_frame_next(buf + at, have - at, &f, &used, &why)) == TY_LINK_FRAME) {
      CHECK(used == TY_LINK_FRAME_HEADER + f.channel_len + f.payload_len);
      o += (size_t)snprintf(out + o, cap - o, "%.*s=%.*s;", (int)f.channel_len, f.channel, (int)f.payload_len,
                            f.payload);
      at += used;
    }
    memmove(buf, buf + at, have - at);
    have -= at;
    if (st == TY_LINK_BAD) {
      snprintf(out + o, cap - o, "BAD:%s", why);
      break;
    }
    if (fed == n && st == TY_LINK_NEED) break; /* a partial frame at the end stays unread */
  }
  free(buf);
}

static size_t put(char *out, const char *channel, const char *payload) {
  size_t size = ty_link_frame_size(strlen(channel), strlen(payload));
  CHECK(size > 0);
  ty_link_frame_put(out, channel, strlen(channel), payload, strlen(payload));
  return size;
}

static void test_frames_under_every_cut(void) {
  char stream[512];
  size_t n = 0;
  n += put(stream + n, "tycho:crafty:to:a/1", "msg 7 b/2\n{\"t\":\"chat\"}");
  n += put(stream + n, "", "HELLO a/1 0123 b/2");
  n += put(stream + n, "c", "");
  n += put(stream + n, "tycho:crafty:to:a/1", "send 7 a/1\nhi");
  const char *want = "tycho:crafty:to:a/1=msg 7 b/2\n{\"t\":\"chat\"};=HELLO a/1 0123 b/2;c=;"
                     "tycho:crafty:to:a/1=send 7 a/1\nhi;";
  for (size_t chunk = 1; chunk <= n; chunk++) {
    char got[1024];
    read_all(stream, n, chunk, got, sizeof got);
    CHECK(strcmp(got, want) == 0);
  }
}

static void test_partial_frame_waits(void) {
  char stream[64];
  size_t n = put(stream, "ch", "payload");
  ty_link_frame f;
  size_t used = 0;
  const char *why = NULL;
  for (size_t k = 0; k < n; k++) CHECK_EQ_INT(ty_link_frame_next(stream, k, &f, &used, &why), TY_LINK_NEED);
  CHECK_EQ_INT(ty_link_frame_next(stream, n, &f, &used, &why), TY_LINK_FRAME);
  CHECK_EQ_INT(used, n);
}

static void test_bad_lengths_are_refused(void) {
  ty_link_frame f;
  size_t used;
  const char *why = NULL;
  const char zero[] = {0, 0, 0, 0, 0};
  CHECK_EQ_INT(ty_link_frame_next(zero, sizeof zero, &f, &used, &why), TY_LINK_BAD);
  CHECK(why && strstr(why, "length"));
  const char huge[] = {(char)0xff, (char)0xff, (char)0xff, (char)0xff, 0};
  why = NULL;
  CHECK_EQ_INT(ty_link_frame_next(huge, sizeof huge, &f, &used, &why), TY_LINK_BAD);
  CHECK(why && strstr(why, "length"));
  const char over[] = {0, 0, 0, 3, 5, 'a', 'b'}; /* a 5-byte channel in a 3-byte frame */
  why = NULL;
  CHECK_EQ_INT(ty_link_frame_next(over, sizeof over, &f, &used, &why), TY_LINK_BAD);
  CHECK(why && strstr(why, "channel"));
  /* the largest frame is taken whole; one byte more is refused */
  unsigned char at_max[5] = {(TY_LINK_FRAME_MAX >> 24) & 0xff, (TY_LINK_FRAME_MAX >> 16) & 0xff,
                             (TY_LINK_FRAME_MAX >> 8) & 0xff, TY_LINK_FRAME_MAX & 0xff, 0};
  CHECK_EQ_INT(ty_link_frame_next((const char *)at_max, sizeof at_max, &f, &used, &why), TY_LINK_NEED);
  at_max[3]++;
  CHECK_EQ_INT(ty_link_frame_next((const char *)at_max, sizeof at_max, &f, &used, &why), TY_LINK_BAD);
}

static void test_sizes_that_cannot_be_written(void) {
  CHECK_EQ_INT(ty_link_frame_size(256, 1), 0);
  CHECK_EQ_INT(ty_link_frame_size(10, TY_LINK_FRAME_MAX), 0);
  CHECK_EQ_INT(ty_link_frame_size(10, TY_LINK_FRAME_MAX - 11), TY_LINK_FRAME_HEADER + TY_LINK_FRAME_MAX - 1);
}

int main(void) {
  RUN(test_frames_under_every_cut);
  RUN(test_partial_frame_waits);
  RUN(test_bad_lengths_are_refused);
  RUN(test_sizes_that_cannot_be_written);
  return check_summary();
}
