/* tests/c/crdt_test.c: engine/sync/crdt: exact wire bytes, every conflict rule, deletes and
 * entity versions, corrections, refusal of malformed input, and a convergence property over
 * random histories delivered shuffled, duplicated and late. */
#include "check.h"
#include "sync/crdt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ty_crdt_state *fresh(void) { return ty_crdt_create(&(ty_crdt_desc){.quiet = true}); }

/* Bytes written little-endian into a test buffer. */
typedef struct bytes {
  uint8_t b[512];
  uint32_t n;
} bytes;

static void u32(bytes *w, uint32_t v) {
  for (int i = 0; i < 4; i++) w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void raw(bytes *w, const void *p, uint32_t n) {
  memcpy(w->b + w->n, p, n);
  w->n += n;
}

static bool buf_is(const ty_crdt_buf *b, const bytes *w) { return b->len == w->n && memcmp(b->data, w->b, w->n) == 0; }

static uint32_t apply_buf(ty_crdt_state *s, const ty_crdt_buf *b, ty_crdt_buf *corr) {
  return ty_crdt_apply(s, b->data, b->len, corr);
}

/* Applies one PUT from a peer. */
static uint32_t recv_put(ty_crdt_state *s, uint32_t e, uint32_t c, uint32_t ts, const char *data, ty_crdt_buf *corr) {
  ty_crdt_buf b = {0};
  ty_crdt_write_put(&b, e, c, ts, data, (uint32_t)strlen(data));
  uint32_t n = apply_buf(s, &b, corr);
  ty_crdt_buf_free(&b);
  return n;
}

static uint32_t recv_del(ty_crdt_state *s, uint32_t e, uint32_t c, uint32_t ts, ty_crdt_buf *corr) {
  ty_crdt_buf b = {0};
  ty_crdt_write_delete_component(&b, e, c, ts);
  uint32_t n = apply_buf(s, &b, corr);
  ty_crdt_buf_free(&b);
  return n;
}

static uint32_t recv_del_entity(ty_crdt_state *s, uint32_t e) {
  ty_crdt_buf b = {0};
  ty_crdt_write_delete_entity(&b, e);
  uint32_t n = apply_buf(s, &b, NULL);
  ty_crdt_buf_free(&b);
  return n;
}

/* The stored data as a C string ("" for a tombstone, "<none>" when nothing). */
static const char *got(ty_crdt_state *s, uint32_t e, uint32_t c, uint32_t *ts) {
  static char text[1024];
  const uint8_t *d;
  uint32_t len;
  if (!ty_crdt_get(s, e, c, &d, &len, ts)) return "<none>";
  if (!d) return "";
  if (len >= sizeof text) len = sizeof text - 1;
  memcpy(text, d, len);
  text[len] = 0;
  return text;
}

static void snapshot(ty_crdt_state *s, ty_crdt_buf *out) {
  out->len = 0;
  ty_crdt_snapshot(s, out, 0);
}

/* ---- ids ---- */

static void test_entity_ids(void) {
  CHECK_EQ_INT(ty_crdt_entity(514, 1), 66050);
  CHECK_EQ_INT(ty_crdt_entity(40000, 65535), 4294941760u);
  CHECK_EQ_INT(ty_crdt_entity_number(4294941760u), 40000);
  CHECK_EQ_INT(ty_crdt_entity_version(4294941760u), 65535);
  CHECK_EQ_INT(ty_crdt_entity(0x1FFFF, 0x10002), ty_crdt_entity(0xFFFF, 2)); /* masked as @dcl/ecs does */
}

static void test_component_ids(void) {
  CHECK_EQ_INT(ty_crdt_component_id("core::Transform", 15), 1);
  CHECK_EQ_INT(ty_crdt_component_id("core::MeshRenderer", 18), 1018);
  CHECK_EQ_INT(ty_crdt_component_id("core::VisibilityComponent", 25), 1081);
  CHECK_EQ_INT(ty_crdt_component_id("example::Health", 15), 2280581199u);
  /* A near-miss of a core name is hashed, not looked up; so is a core name's prefix. */
  CHECK(ty_crdt_component_id("core::Transfor", 14) != 1);
  CHECK(ty_crdt_component_id("core::Transform", 14) == ty_crdt_component_id("core::Transfor", 14));
  /* Bytes past 128 are dropped, as writing into a Uint8Array(128) drops them. */
  char a[200], b[200];
  memset(a, 'x', sizeof a);
  memset(b, 'x', sizeof b);
  b[150] = 'y';
  CHECK_EQ_INT(ty_crdt_component_id(a, 200), ty_crdt_component_id(b, 200));
  CHECK_EQ_INT(ty_crdt_component_id(a, 128), ty_crdt_component_id(b, 129));
  CHECK(ty_crdt_component_id(a, 127) != ty_crdt_component_id(a, 128));
}

/* ---- wire bytes ---- */

static void test_encode_put_bytes(void) {
  ty_crdt_buf b = {0};
  ty_crdt_write_put(&b, ty_crdt_entity(512, 1), 1, 3, "abc", 3);
  bytes w = {0};
  u32(&w, 27), u32(&w, 1), u32(&w, 512 | 1 << 16), u32(&w, 1), u32(&w, 3), u32(&w, 3), raw(&w, "abc", 3);
  CHECK(buf_is(&b, &w));
  static const uint8_t literal[27] = {27, 0, 0, 0, 1, 0, 0, 0, 0, 2, 1, 0, 1, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
  CHECK(b.len == 27 && memcmp(b.data, literal, 27) == 0);
  ty_crdt_buf_free(&b);
  CHECK(b.data == NULL && b.len == 0);
}

static void test_encode_other_types_bytes(void) {
  ty_crdt_buf b = {0};
  ty_crdt_write_delete_component(&b, 0x01020304, 0xA0B0C0D0, 0xFFFFFFFF);
  ty_crdt_write_delete_entity(&b, 66050);
  ty_crdt_write_append(&b, 7, 1063, 0, "\x01\x02", 2);
  ty_crdt_write_put_network(&b, 9, 1, 5, 77, "z", 1);
  ty_crdt_write_delete_component_network(&b, 9, 1, 6, 77);
  ty_crdt_write_delete_entity_network(&b, 9, 77);
  ty_crdt_write_put(&b, 600, 2048, 1, NULL, 0);
  bytes w = {0};
  u32(&w, 20), u32(&w, 2), u32(&w, 0x01020304), u32(&w, 0xA0B0C0D0), u32(&w, 0xFFFFFFFF);
  u32(&w, 12), u32(&w, 3), u32(&w, 66050);
  u32(&w, 26), u32(&w, 4), u32(&w, 7), u32(&w, 1063), u32(&w, 0), u32(&w, 2), raw(&w, "\x01\x02", 2);
  u32(&w, 29), u32(&w, 5), u32(&w, 9), u32(&w, 1), u32(&w, 5), u32(&w, 77), u32(&w, 1), raw(&w, "z", 1);
  u32(&w, 24), u32(&w, 6), u32(&w, 9), u32(&w, 1), u32(&w, 6), u32(&w, 77);
  u32(&w, 16), u32(&w, 7), u32(&w, 9), u32(&w, 77);
  u32(&w, 24), u32(&w, 1), u32(&w, 600), u32(&w, 2048), u32(&w, 1), u32(&w, 0);
  CHECK(buf_is(&b, &w));
  CHECK(memcmp(b.data, "\x14\x00\x00\x00\x02\x00\x00\x00\x04\x03\x02\x01\xD0\xC0\xB0\xA0\xFF\xFF\xFF\xFF", 20) == 0);
  ty_crdt_buf_free(&b);
}

static void test_decode_fields(void) {
  ty_crdt_buf b = {0};
  ty_crdt_write_put(&b, 66050, 2280581199u, 42, "hello", 5);
  ty_crdt_write_delete_component(&b, 1, 2, 3);
  ty_crdt_write_delete_entity(&b, 4);
  ty_crdt_write_append(&b, 5, 6, 7, "ab", 2);
  ty_crdt_write_put_network(&b, 8, 9, 10, 11, "xyz", 3);
  ty_crdt_write_delete_component_network(&b, 12, 13, 14, 15);
  ty_crdt_write_delete_entity_network(&b, 16, 17);
  const uint32_t want[][7] = {
      /* type length entity component timestamp network data_len */
      {1, 29, 66050, 2280581199u, 42, 0, 5}, {2, 20, 1, 2, 3, 0, 0},     {3, 12, 4, 0, 0, 0, 0},
      {4, 26, 5, 6, 7, 0, 2},                {5, 31, 8, 9, 10, 11, 3},   {6, 24, 12, 13, 14, 15, 0},
      {7, 16, 16, 0, 0, 17, 0},
  };
  size_t off = 0;
  for (int i = 0; i < 7; i++) {
    ty_crdt_msg m;
    uint32_t used;
    ty_crdt_reject why;
    CHECK_EQ_INT(ty_crdt_decode(b.data + off, b.len - off, 0, &m, &used, &why), TY_CRDT_DECODED);
    uint32_t f[7] = {m.type, m.length, m.entity, m.component, m.timestamp, m.network_id, m.data_len};
    for (int k = 0; k < 7; k++) CHECK_EQ_INT(f[k], want[i][k]);
    CHECK_EQ_INT(used, want[i][1]);
    off += used;
  }
  ty_crdt_msg m;
  uint32_t used;
  ty_crdt_reject why;
  CHECK_EQ_INT(ty_crdt_decode(b.data + off, b.len - off, 0, &m, &used, &why), TY_CRDT_DECODE_END);
  CHECK(memcmp(b.data + 24, "hello", 5) == 0);
  ty_crdt_decode(b.data, b.len, 0, &m, &used, &why);
  CHECK(m.data == b.data + 24);
  ty_crdt_buf_free(&b);
}

static void test_transform_layout(void) {
  ty_crdt_transform t;
  ty_crdt_transform_default(&t);
  uint8_t out[TY_CRDT_TRANSFORM_SIZE];
  ty_crdt_transform_encode(&t, out);
  bytes w = {0};
  for (int i = 0; i < 6; i++) u32(&w, 0);      /* position, rotation xyz */
  for (int i = 0; i < 4; i++) u32(&w, 0x3F800000); /* w, scale */
  u32(&w, 0);
  CHECK(w.n == 44 && memcmp(out, w.b, 44) == 0);

  t = (ty_crdt_transform){{1.5f, -2.0f, 0.25f}, {0, 0.70710677f, 0, 0.70710677f}, {2, 3, 4}, 66050};
  ty_crdt_transform_encode(&t, out);
  static const uint8_t pos[12] = {0, 0, 0xC0, 0x3F, 0, 0, 0, 0xC0, 0, 0, 0x80, 0x3E};
  CHECK(memcmp(out, pos, 12) == 0);
  CHECK(memcmp(out + 40, "\x02\x02\x01\x00", 4) == 0);
  CHECK(memcmp(out + 28, "\x00\x00\x00\x40", 4) == 0);
  ty_crdt_transform d;
  CHECK(ty_crdt_transform_decode(out, 44, &d));
  CHECK(memcmp(&d, &t, sizeof d) == 0);
  CHECK(!ty_crdt_transform_decode(out, 43, &d));
  CHECK(!ty_crdt_transform_decode(out, 45, &d));
}

/* ---- conflict rules ---- */

static void test_nothing_stored_accepts(void) {
  ty_crdt_state *s = fresh();
  uint32_t ts;
  CHECK_EQ_INT(recv_put(s, 512, 1, 7, "a", NULL), 1);
  CHECK(strcmp(got(s, 512, 1, &ts), "a") == 0);
  CHECK_EQ_INT(ts, 7);
  /* A delete of something never stored is a tombstone with its timestamp. */
  CHECK_EQ_INT(recv_del(s, 513, 1, 4, NULL), 1);
  CHECK(strcmp(got(s, 513, 1, &ts), "") == 0);
  CHECK_EQ_INT(ts, 4);
  CHECK(strcmp(got(s, 514, 1, NULL), "<none>") == 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->accepted, 2);
  ty_crdt_destroy(s);
}

static void test_greater_timestamp_wins(void) {
  ty_crdt_state *s = fresh();
  uint32_t ts;
  recv_put(s, 512, 1, 1, "long data", NULL);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "a", NULL), 1); /* even though shorter */
  CHECK(strcmp(got(s, 512, 1, &ts), "a") == 0);
  CHECK_EQ_INT(recv_del(s, 512, 1, 9, NULL), 1);
  CHECK(strcmp(got(s, 512, 1, &ts), "") == 0);
  CHECK_EQ_INT(ts, 9);
  CHECK_EQ_INT(recv_put(s, 512, 1, 10, "", NULL), 1); /* empty bytes are data, not a delete */
  const uint8_t *d;
  uint32_t len;
  CHECK(ty_crdt_get(s, 512, 1, &d, &len, &ts) && d != NULL && len == 0 && ts == 10);
  ty_crdt_destroy(s);
}

static void test_lower_timestamp_rejected_with_correction(void) {
  ty_crdt_state *s = fresh();
  ty_crdt_buf corr = {0}, want = {0};
  recv_put(s, 512, 1, 5, "mine", NULL);
  CHECK_EQ_INT(recv_put(s, 512, 1, 4, "theirs, and longer", &corr), 0);
  ty_crdt_write_put(&want, 512, 1, 5, "mine", 4);
  CHECK(corr.len == want.len && memcmp(corr.data, want.data, want.len) == 0);
  CHECK(strcmp(got(s, 512, 1, NULL), "mine") == 0);
  /* A stale delete gets the same answer. */
  corr.len = 0;
  CHECK_EQ_INT(recv_del(s, 512, 1, 1, &corr), 0);
  CHECK(corr.len == want.len && memcmp(corr.data, want.data, want.len) == 0);
  /* Against a tombstone the correction is a DELETE_COMPONENT. */
  recv_del(s, 512, 1, 8, NULL);
  corr.len = want.len = 0;
  CHECK_EQ_INT(recv_put(s, 512, 1, 6, "x", &corr), 0);
  ty_crdt_write_delete_component(&want, 512, 1, 8);
  CHECK(corr.len == 20 && memcmp(corr.data, want.data, 20) == 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->stale, 3);
  /* Without a buffer the message is still refused. */
  CHECK_EQ_INT(recv_put(s, 512, 1, 7, "x", NULL), 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->stale, 4);
  ty_crdt_buf_free(&corr);
  ty_crdt_buf_free(&want);
  ty_crdt_destroy(s);
}

static void test_equal_timestamp_put_beats_delete(void) {
  ty_crdt_state *s = fresh();
  ty_crdt_buf corr = {0}, want = {0};
  uint32_t ts;
  recv_del(s, 512, 1, 3, NULL);
  CHECK_EQ_INT(recv_put(s, 512, 1, 3, "", NULL), 1); /* null < any bytes, even none */
  CHECK(ty_crdt_get(s, 512, 1, NULL, NULL, &ts) && ts == 3);
  CHECK(strcmp(got(s, 512, 1, NULL), "") == 0);
  const uint8_t *d;
  ty_crdt_get(s, 512, 1, &d, NULL, NULL);
  CHECK(d != NULL);
  /* The delete at the same timestamp loses and is corrected. */
  CHECK_EQ_INT(recv_del(s, 512, 1, 3, &corr), 0);
  ty_crdt_write_put(&want, 512, 1, 3, "", 0);
  CHECK(corr.len == want.len && memcmp(corr.data, want.data, want.len) == 0);
  /* Delete on a tombstone at the same timestamp: no change, no correction. */
  recv_del(s, 513, 1, 2, NULL);
  corr.len = 0;
  CHECK_EQ_INT(recv_del(s, 513, 1, 2, &corr), 0);
  CHECK_EQ_INT(corr.len, 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->unchanged, 1);
  ty_crdt_buf_free(&corr);
  ty_crdt_buf_free(&want);
  ty_crdt_destroy(s);
}

static void test_equal_timestamp_longer_wins(void) {
  ty_crdt_state *s = fresh();
  ty_crdt_buf corr = {0};
  recv_put(s, 512, 1, 2, "zz", NULL);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "aaa", NULL), 1);
  CHECK(strcmp(got(s, 512, 1, NULL), "aaa") == 0);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "zz", &corr), 0);
  CHECK(strcmp(got(s, 512, 1, NULL), "aaa") == 0);
  CHECK_EQ_INT(corr.len, 27);
  ty_crdt_buf_free(&corr);
  ty_crdt_destroy(s);
}

static void test_equal_timestamp_first_differing_byte_unsigned(void) {
  ty_crdt_state *s = fresh();
  recv_put(s, 512, 1, 2, "ab\x7f" "c", NULL);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "ab\x80" "a", NULL), 1); /* 0x80 > 0x7f unsigned */
  CHECK(strcmp(got(s, 512, 1, NULL), "ab\x80" "a") == 0);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "ab\x7f" "z", NULL), 0);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "ab\x80" "b", NULL), 1); /* later byte decides when earlier equal */
  /* Identical: nothing changes and no correction is written. */
  ty_crdt_buf corr = {0};
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "ab\x80" "b", &corr), 0);
  CHECK_EQ_INT(corr.len, 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->unchanged, 1);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->stale, 1);
  ty_crdt_destroy(s);
}

static void test_timestamps_compare_unsigned(void) {
  ty_crdt_state *s = fresh();
  recv_put(s, 512, 1, 0x7FFFFFFF, "a", NULL);
  CHECK_EQ_INT(recv_put(s, 512, 1, 0x80000000u, "b", NULL), 1);
  CHECK_EQ_INT(recv_put(s, 512, 1, 0xFFFFFFFFu, "c", NULL), 1);
  CHECK_EQ_INT(recv_put(s, 512, 1, 0, "d", NULL), 0);
  /* At the top of the clock a local write cannot win, so it is refused. */
  ty_crdt_buf out = {0};
  CHECK_EQ_INT(ty_crdt_put(s, 512, 1, "e", 1, &out), TY_CRDT_CLOCK_EXHAUSTED);
  CHECK_EQ_INT(out.len, 0);
  CHECK(strcmp(got(s, 512, 1, NULL), "c") == 0);
  ty_crdt_buf_free(&out);
  ty_crdt_destroy(s);
}

/* ---- local writes and the clock ---- */

static void test_local_writes_use_stored_timestamp_plus_one(void) {
  ty_crdt_state *s = fresh();
  ty_crdt_buf out = {0}, want = {0};
  uint32_t ts;
  CHECK_EQ_INT(ty_crdt_put(s, 512, 1, "a", 1, &out), TY_CRDT_OK);
  ty_crdt_write_put(&want, 512, 1, 1, "a", 1);
  CHECK(out.len == want.len && memcmp(out.data, want.data, want.len) == 0);
  /* A received timestamp becomes the base of the next local write. */
  recv_put(s, 512, 1, 40, "b", NULL);
  out.len = want.len = 0;
  CHECK_EQ_INT(ty_crdt_put(s, 512, 1, "c", 1, &out), TY_CRDT_OK);
  ty_crdt_write_put(&want, 512, 1, 41, "c", 1);
  CHECK(out.len == want.len && memcmp(out.data, want.data, want.len) == 0);
  /* A refused (stale) message does not move the clock. */
  recv_put(s, 512, 1, 3, "zzzz", NULL);
  /* The same bytes again send nothing. */
  out.len = 0;
  CHECK_EQ_INT(ty_crdt_put(s, 512, 1, "c", 1, &out), TY_CRDT_UNCHANGED);
  CHECK_EQ_INT(out.len, 0);
  CHECK(ty_crdt_get(s, 512, 1, NULL, NULL, &ts) && ts == 41);
  /* Other (component, entity) pairs keep their own clocks. */
  out.len = want.len = 0;
  CHECK_EQ_INT(ty_crdt_put(s, 512, 2, "c", 1, &out), TY_CRDT_OK);
  ty_crdt_write_put(&want, 512, 2, 1, "c", 1);
  CHECK(out.len == want.len && memcmp(out.data, want.data, want.len) == 0);
  /* Delete: ts + 1; a second delete, or one of nothing, sends nothing. */
  out.len = want.len = 0;
  CHECK_EQ_INT(ty_crdt_delete_component(s, 512, 1, &out), TY_CRDT_OK);
  ty_crdt_write_delete_component(&want, 512, 1, 42);
  CHECK(out.len == want.len && memcmp(out.data, want.data, want.len) == 0);
  out.len = 0;
  CHECK_EQ_INT(ty_crdt_delete_component(s, 512, 1, &out), TY_CRDT_UNCHANGED);
  CHECK_EQ_INT(ty_crdt_delete_component(s, 700, 1, &out), TY_CRDT_UNCHANGED);
  CHECK_EQ_INT(ty_crdt_delete_component(s, 512, 99, &out), TY_CRDT_UNCHANGED);
  CHECK_EQ_INT(out.len, 0);
  /* Putting over a tombstone continues from its timestamp. */
  CHECK_EQ_INT(ty_crdt_put(s, 512, 1, "c", 1, &out), TY_CRDT_OK);
  CHECK(ty_crdt_get(s, 512, 1, NULL, NULL, &ts) && ts == 43);
  ty_crdt_buf_free(&out);
  ty_crdt_buf_free(&want);
  ty_crdt_destroy(s);
}

static void test_local_message_applies_the_same_on_a_peer(void) {
  ty_crdt_state *a = fresh(), *b = fresh();
  ty_crdt_buf out = {0}, sa = {0}, sb = {0};
  ty_crdt_put(a, 512, 1, "x", 1, &out);
  ty_crdt_put(a, ty_crdt_entity(513, 2), 7, "yy", 2, &out);
  ty_crdt_delete_component(a, 512, 1, &out);
  ty_crdt_put(a, 1, 1, "p", 1, &out);
  ty_crdt_delete_entity(a, ty_crdt_entity(513, 2), &out);
  ty_crdt_apply(b, out.data, out.len, NULL);
  snapshot(a, &sa);
  snapshot(b, &sb);
  CHECK(sa.len == sb.len && memcmp(sa.data, sb.data, sa.len) == 0);
  ty_crdt_buf_free(&out);
  ty_crdt_buf_free(&sa);
  ty_crdt_buf_free(&sb);
  ty_crdt_destroy(a);
  ty_crdt_destroy(b);
}

/* ---- entities ---- */

static void test_delete_entity_ignores_later_state(void) {
  ty_crdt_state *s = fresh();
  uint32_t e = ty_crdt_entity(600, 2);
  recv_put(s, e, 1, 1, "a", NULL);
  recv_put(s, e, 2, 1, "b", NULL);
  CHECK_EQ_INT(recv_del_entity(s, e), 1);
  CHECK(ty_crdt_removed(s, e));
  CHECK(ty_crdt_removed(s, ty_crdt_entity(600, 0))); /* lower versions die with it */
  CHECK(!ty_crdt_removed(s, ty_crdt_entity(600, 3)));
  CHECK(strcmp(got(s, e, 1, NULL), "<none>") == 0);
  CHECK_EQ_INT(ty_crdt_count(s), 0); /* memory is given back */
  CHECK_EQ_INT(recv_put(s, e, 1, 99, "late", NULL), 0);
  CHECK_EQ_INT(recv_del(s, e, 1, 99, NULL), 0);
  CHECK_EQ_INT(recv_put(s, ty_crdt_entity(600, 1), 1, 99, "older", NULL), 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->removed_entity, 3);
  CHECK_EQ_INT(ty_crdt_count(s), 0);
  /* Deleting again changes nothing; a later version lives. */
  CHECK_EQ_INT(recv_del_entity(s, e), 0);
  CHECK_EQ_INT(recv_del_entity(s, ty_crdt_entity(600, 1)), 0);
  CHECK_EQ_INT(recv_put(s, ty_crdt_entity(600, 3), 1, 1, "new", NULL), 1);
  CHECK(strcmp(got(s, ty_crdt_entity(600, 3), 1, NULL), "new") == 0);
  /* Local writes to a removed entity are refused. */
  ty_crdt_buf out = {0};
  CHECK_EQ_INT(ty_crdt_put(s, e, 1, "x", 1, &out), TY_CRDT_REMOVED);
  CHECK_EQ_INT(ty_crdt_delete_component(s, e, 1, &out), TY_CRDT_REMOVED);
  CHECK_EQ_INT(ty_crdt_delete_entity(s, e, &out), TY_CRDT_REMOVED);
  CHECK_EQ_INT(out.len, 0);
  ty_crdt_buf_free(&out);
  ty_crdt_destroy(s);
}

static void test_delete_entity_runs_after_the_batch(void) {
  ty_crdt_state *s = fresh();
  uint32_t e = 700;
  ty_crdt_buf b = {0};
  ty_crdt_write_delete_entity(&b, e);
  ty_crdt_write_put(&b, e, 1, 1, "after the delete", 16);
  ty_crdt_write_put(&b, 701, 1, 1, "other", 5);
  CHECK_EQ_INT(ty_crdt_apply(s, b.data, b.len, NULL), 3);
  CHECK(strcmp(got(s, e, 1, NULL), "<none>") == 0);
  CHECK(ty_crdt_removed(s, e));
  CHECK(strcmp(got(s, 701, 1, NULL), "other") == 0);
  /* In the next batch the entity is already deleted. */
  b.len = 0;
  ty_crdt_write_put(&b, e, 1, 2, "x", 1);
  CHECK_EQ_INT(ty_crdt_apply(s, b.data, b.len, NULL), 0);
  ty_crdt_buf_free(&b);
  ty_crdt_destroy(s);
}

static void test_unknown_version_retires_the_previous(void) {
  ty_crdt_state *s = fresh();
  recv_put(s, ty_crdt_entity(800, 0), 1, 5, "v0", NULL);
  CHECK_EQ_INT(recv_put(s, ty_crdt_entity(800, 2), 1, 1, "v2", NULL), 1);
  CHECK(ty_crdt_removed(s, ty_crdt_entity(800, 1)));
  CHECK(ty_crdt_removed(s, ty_crdt_entity(800, 0)));
  CHECK(!ty_crdt_removed(s, ty_crdt_entity(800, 2)));
  CHECK(strcmp(got(s, ty_crdt_entity(800, 0), 1, NULL), "<none>") == 0);
  CHECK_EQ_INT(recv_put(s, ty_crdt_entity(800, 1), 1, 9, "v1", NULL), 0);
  CHECK_EQ_INT(ty_crdt_count(s), 1);
  /* Any message counts as a sighting, a delete too. */
  CHECK_EQ_INT(recv_del(s, ty_crdt_entity(801, 4), 1, 1, NULL), 1);
  CHECK(ty_crdt_removed(s, ty_crdt_entity(801, 3)));
  /* The snapshot carries the removal. */
  ty_crdt_buf snap = {0};
  snapshot(s, &snap);
  ty_crdt_state *t = fresh();
  ty_crdt_apply(t, snap.data, snap.len, NULL);
  CHECK(ty_crdt_removed(t, ty_crdt_entity(800, 1)));
  CHECK(ty_crdt_removed(t, ty_crdt_entity(801, 3)));
  ty_crdt_buf_free(&snap);
  ty_crdt_destroy(t);
  ty_crdt_destroy(s);
}

static void test_reserved_numbers_are_cleared_not_removed(void) {
  ty_crdt_state *s = fresh();
  uint32_t ts;
  recv_put(s, 1, 1, 5, "player", NULL);
  recv_put(s, 1, 2, 3, "name", NULL);
  recv_put(s, ty_crdt_entity(511, 4), 1, 1, "avatar", NULL);
  CHECK(!ty_crdt_removed(s, ty_crdt_entity(511, 3))); /* no retirement below 512 */
  CHECK(strcmp(got(s, ty_crdt_entity(511, 4), 1, NULL), "avatar") == 0);
  recv_del(s, 1, 3, 7, NULL);
  CHECK_EQ_INT(recv_del_entity(s, 1), 1);
  CHECK(!ty_crdt_removed(s, 1));
  /* Data dropped; the tombstone is one tick later, as @dcl/ecs's DELETE_COMPONENT for it. */
  CHECK(strcmp(got(s, 1, 1, &ts), "") == 0);
  CHECK_EQ_INT(ts, 6);
  CHECK(strcmp(got(s, 1, 2, &ts), "") == 0);
  CHECK_EQ_INT(ts, 4);
  CHECK(strcmp(got(s, 1, 3, &ts), "") == 0); /* already a tombstone: untouched */
  CHECK_EQ_INT(ts, 7);
  CHECK_EQ_INT(recv_del_entity(s, 1), 0);
  /* Still writable: an equal timestamp put beats the tombstone, an older one loses. */
  CHECK_EQ_INT(recv_put(s, 1, 1, 5, "old", NULL), 0);
  CHECK_EQ_INT(recv_put(s, 1, 1, 6, "again", NULL), 1);
  CHECK(strcmp(got(s, 1, 1, NULL), "again") == 0);
  /* Deleting reserved entities locally: 0-2 send their DELETE_COMPONENTs only. */
  ty_crdt_buf out = {0}, want = {0};
  CHECK_EQ_INT(ty_crdt_delete_entity(s, 1, &out), TY_CRDT_OK);
  ty_crdt_write_delete_component(&want, 1, 1, 7);
  CHECK(out.len == want.len && memcmp(out.data, want.data, want.len) == 0);
  CHECK_EQ_INT(ty_crdt_delete_entity(s, 1, &out), TY_CRDT_UNCHANGED);
  out.len = 0;
  CHECK_EQ_INT(ty_crdt_delete_entity(s, ty_crdt_entity(511, 4), &out), TY_CRDT_UNCHANGED); /* avatar range */
  CHECK_EQ_INT(out.len, 0);
  CHECK(strcmp(got(s, ty_crdt_entity(511, 4), 1, NULL), "avatar") == 0);
  ty_crdt_buf_free(&out);
  ty_crdt_buf_free(&want);
  ty_crdt_destroy(s);
}

static void test_local_delete_entity_bytes(void) {
  ty_crdt_state *s = fresh();
  ty_crdt_buf out = {0};
  uint32_t e = ty_crdt_entity(600, 1);
  ty_crdt_put(s, e, 2048, "b", 1, &out);
  ty_crdt_put(s, e, 1, "a", 1, &out);
  ty_crdt_put(s, e, 5, "c", 1, &out);
  ty_crdt_delete_component(s, e, 5, &out);
  recv_put(s, e, 1, 10, "z", NULL);
  out.len = 0;
  CHECK_EQ_INT(ty_crdt_delete_entity(s, e, &out), TY_CRDT_OK);
  bytes w = {0};
  u32(&w, 20), u32(&w, 2), u32(&w, e), u32(&w, 1), u32(&w, 11); /* live components, by id */
  u32(&w, 20), u32(&w, 2), u32(&w, e), u32(&w, 2048), u32(&w, 2);
  u32(&w, 12), u32(&w, 3), u32(&w, e);
  CHECK(buf_is(&out, &w));
  CHECK(ty_crdt_removed(s, e));
  CHECK_EQ_INT(ty_crdt_count(s), 0);
  /* An entity with nothing stored still sends its DELETE_ENTITY. */
  out.len = 0;
  CHECK_EQ_INT(ty_crdt_delete_entity(s, 900, &out), TY_CRDT_OK);
  CHECK_EQ_INT(out.len, 12);
  ty_crdt_buf_free(&out);
  ty_crdt_destroy(s);
}

/* ---- malformed input ---- */

/* Applies w to a state that already holds one entry and checks that nothing in the state
 * moved but the stats, and that exactly `applied` messages went through. */
static void expect_refused(const bytes *w, ty_crdt_reject why, uint32_t applied, const ty_crdt_desc *desc) {
  ty_crdt_state *s = ty_crdt_create(desc);
  recv_put(s, 512, 1, 5, "keep", NULL);
  ty_crdt_buf before = {0}, after = {0};
  snapshot(s, &before);
  CHECK_EQ_INT(ty_crdt_apply(s, w->b, w->n, NULL), applied);
  const ty_crdt_stats *st = ty_crdt_get_stats(s);
  CHECK_EQ_INT(st->rejected[why], 1);
  CHECK_EQ_INT(st->malformed, 1);
  if (!applied) {
    snapshot(s, &after);
    CHECK(before.len == after.len && memcmp(before.data, after.data, before.len) == 0);
  }
  CHECK(strcmp(got(s, 512, 1, NULL), "keep") == 0);
  ty_crdt_buf_free(&before);
  ty_crdt_buf_free(&after);
  ty_crdt_destroy(s);
}

static void test_malformed_truncated(void) {
  bytes w = {0};
  u32(&w, 24), u32(&w, 1), u32(&w, 513), u32(&w, 1), u32(&w, 1), u32(&w, 0); /* valid */
  raw(&w, "\x14\x00\x00\x00\x02", 5);
  expect_refused(&w, TY_CRDT_REJECT_TRUNCATED, 1, &(ty_crdt_desc){.quiet = true});
  bytes h = {0};
  raw(&h, "\x08\x00\x00", 3);
  expect_refused(&h, TY_CRDT_REJECT_TRUNCATED, 0, &(ty_crdt_desc){.quiet = true});
}

static void test_malformed_short_length(void) {
  for (uint32_t len = 0; len < 8; len++) {
    bytes w = {0};
    u32(&w, len), u32(&w, 1), u32(&w, 512), u32(&w, 1), u32(&w, 9), u32(&w, 0);
    expect_refused(&w, TY_CRDT_REJECT_SHORT_LENGTH, 0, &(ty_crdt_desc){.quiet = true});
  }
}

static void test_malformed_past_end(void) {
  bytes w = {0};
  u32(&w, 30), u32(&w, 1), u32(&w, 512), u32(&w, 1), u32(&w, 9), u32(&w, 6), raw(&w, "abc", 3); /* 3 short */
  expect_refused(&w, TY_CRDT_REJECT_PAST_END, 0, &(ty_crdt_desc){.quiet = true});
  bytes x = {0};
  u32(&x, 21), u32(&x, 2), u32(&x, 512), u32(&x, 1), u32(&x, 9); /* declared one past */
  expect_refused(&x, TY_CRDT_REJECT_PAST_END, 0, &(ty_crdt_desc){.quiet = true});
}

static void test_malformed_too_large(void) {
  /* Over the cap but inside the buffer: skipped, the next message still applies. */
  bytes w = {0};
  u32(&w, 24 + 80), u32(&w, 1), u32(&w, 512), u32(&w, 1), u32(&w, 9), u32(&w, 80);
  for (int i = 0; i < 80; i++) w.b[w.n++] = 'x';
  u32(&w, 24), u32(&w, 1), u32(&w, 513), u32(&w, 1), u32(&w, 1), u32(&w, 0);
  expect_refused(&w, TY_CRDT_REJECT_TOO_LARGE, 1, &(ty_crdt_desc){.quiet = true, .max_message = 64});
  /* A huge declared size is refused at once with the default 1 MiB cap. */
  bytes h = {0};
  u32(&h, 0xFFFFFFF0u), u32(&h, 1), u32(&h, 512), u32(&h, 1), u32(&h, 9), u32(&h, 0xFFFFFFF0u - 24);
  expect_refused(&h, TY_CRDT_REJECT_TOO_LARGE, 0, &(ty_crdt_desc){.quiet = true});
  bytes m = {0};
  u32(&m, (1u << 20) + 1), u32(&m, 77);
  expect_refused(&m, TY_CRDT_REJECT_TOO_LARGE, 0, &(ty_crdt_desc){.quiet = true});
}

static void test_malformed_bad_size(void) {
  const ty_crdt_desc q = {.quiet = true};
  bytes a = {0}; /* PUT too short for its fixed fields */
  u32(&a, 20), u32(&a, 1), u32(&a, 512), u32(&a, 1), u32(&a, 9);
  u32(&a, 24), u32(&a, 1), u32(&a, 513), u32(&a, 1), u32(&a, 1), u32(&a, 0);
  expect_refused(&a, TY_CRDT_REJECT_BAD_SIZE, 1, &q);
  bytes b = {0}; /* DELETE_COMPONENT with 4 extra bytes */
  u32(&b, 24), u32(&b, 2), u32(&b, 512), u32(&b, 1), u32(&b, 9), u32(&b, 0);
  expect_refused(&b, TY_CRDT_REJECT_BAD_SIZE, 0, &q);
  bytes c = {0}; /* DELETE_ENTITY 4 bytes short */
  u32(&c, 8), u32(&c, 3);
  expect_refused(&c, TY_CRDT_REJECT_BAD_SIZE, 0, &q);
  bytes d = {0}; /* DELETE_ENTITY_NETWORK as declared before 7.28 */
  u32(&d, 12), u32(&d, 7), u32(&d, 600);
  expect_refused(&d, TY_CRDT_REJECT_BAD_SIZE, 0, &q);
  bytes e = {0};
  u32(&e, 20), u32(&e, 6), u32(&e, 512), u32(&e, 1), u32(&e, 9);
  expect_refused(&e, TY_CRDT_REJECT_BAD_SIZE, 0, &q);
  bytes f = {0};
  u32(&f, 24), u32(&f, 5), u32(&f, 512), u32(&f, 1), u32(&f, 9), u32(&f, 0);
  expect_refused(&f, TY_CRDT_REJECT_BAD_SIZE, 0, &q);
}

static void test_malformed_data_length(void) {
  const ty_crdt_desc q = {.quiet = true};
  bytes a = {0}; /* says 5, holds 3 */
  u32(&a, 27), u32(&a, 1), u32(&a, 512), u32(&a, 1), u32(&a, 9), u32(&a, 5), raw(&a, "abc", 3);
  u32(&a, 20), u32(&a, 2), u32(&a, 513), u32(&a, 1), u32(&a, 1);
  expect_refused(&a, TY_CRDT_REJECT_DATA_LENGTH, 1, &q);
  bytes b = {0}; /* says 1, holds 3 */
  u32(&b, 27), u32(&b, 1), u32(&b, 512), u32(&b, 1), u32(&b, 9), u32(&b, 1), raw(&b, "abc", 3);
  expect_refused(&b, TY_CRDT_REJECT_DATA_LENGTH, 0, &q);
  bytes c = {0}; /* a huge dataLength must not be trusted */
  u32(&c, 27), u32(&c, 4), u32(&c, 512), u32(&c, 1), u32(&c, 9), u32(&c, 0xFFFFFFFFu), raw(&c, "abc", 3);
  expect_refused(&c, TY_CRDT_REJECT_DATA_LENGTH, 0, &q);
  bytes d = {0};
  u32(&d, 29), u32(&d, 5), u32(&d, 512), u32(&d, 1), u32(&d, 9), u32(&d, 1), u32(&d, 2), raw(&d, "a", 1);
  expect_refused(&d, TY_CRDT_REJECT_DATA_LENGTH, 0, &q);
}

static void test_reject_names(void) {
  const char *want[] = {"truncated", "short_length", "past_end", "too_large", "bad_size", "data_length"};
  for (int i = 0; i < TY_CRDT_REJECT_COUNT; i++) CHECK(strcmp(ty_crdt_reject_name((ty_crdt_reject)i), want[i]) == 0);
  CHECK(strcmp(ty_crdt_reject_name(TY_CRDT_REJECT_COUNT), "unknown") == 0);
}

static void test_unknown_network_and_append_are_skipped(void) {
  ty_crdt_state *s = fresh();
  bytes w = {0};
  u32(&w, 13), u32(&w, 0), raw(&w, "12345", 5);  /* RESERVED */
  u32(&w, 10), u32(&w, 8), raw(&w, "ab", 2);     /* MAX_MESSAGE_TYPE */
  u32(&w, 8), u32(&w, 0xDEADBEEF);                /* unknown, empty body */
  ty_crdt_buf b = {0};
  ty_crdt_write_put_network(&b, 600, 1, 5, 1, "n", 1);
  ty_crdt_write_delete_component_network(&b, 600, 1, 6, 1);
  ty_crdt_write_delete_entity_network(&b, 600, 1);
  ty_crdt_write_append(&b, ty_crdt_entity(601, 2), 1063, 0, "v", 1);
  ty_crdt_write_put(&b, 602, 1, 1, "ok", 2);
  raw(&w, b.data, b.len);
  CHECK_EQ_INT(ty_crdt_apply(s, w.b, w.n, NULL), 1);
  const ty_crdt_stats *st = ty_crdt_get_stats(s);
  CHECK_EQ_INT(st->unknown_type, 3);
  CHECK_EQ_INT(st->network_ignored, 3);
  CHECK_EQ_INT(st->append_ignored, 1);
  CHECK_EQ_INT(st->messages, 8);
  CHECK_EQ_INT(st->malformed, 0);
  CHECK(strcmp(got(s, 602, 1, NULL), "ok") == 0);
  CHECK(strcmp(got(s, 600, 1, NULL), "<none>") == 0);
  CHECK(ty_crdt_removed(s, ty_crdt_entity(601, 1))); /* an append is still a sighting */
  CHECK_EQ_INT(ty_crdt_count(s), 1);
  ty_crdt_buf_free(&b);
  ty_crdt_destroy(s);
}

static void test_component_limit(void) {
  ty_crdt_state *s = ty_crdt_create(&(ty_crdt_desc){.quiet = true, .max_components = 2});
  ty_crdt_buf b = {0}, out = {0};
  ty_crdt_write_put(&b, 512, 10, 1, "a", 1);
  ty_crdt_write_put(&b, 512, 20, 1, "b", 1);
  ty_crdt_write_put(&b, 512, 30, 1, "c", 1); /* a third id: refused */
  ty_crdt_write_put(&b, 513, 10, 1, "d", 1); /* known ids still take new entities */
  CHECK_EQ_INT(ty_crdt_apply(s, b.data, b.len, NULL), 3);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->component_limit, 1);
  CHECK(strcmp(got(s, 512, 30, NULL), "<none>") == 0);
  CHECK_EQ_INT(ty_crdt_put(s, 600, 40, "x", 1, &out), TY_CRDT_COMPONENT_LIMIT);
  CHECK_EQ_INT(out.len, 0);
  CHECK_EQ_INT(ty_crdt_put(s, 600, 20, "x", 1, &out), TY_CRDT_OK);
  ty_crdt_buf_free(&b);
  ty_crdt_buf_free(&out);
  ty_crdt_destroy(s);
}

/* max_entries and max_bytes: a winning message or local write that would pass them is
 * refused and counted, writes that do not grow always pass, stale ones are still corrected,
 * and the totals follow every add, overwrite, tombstone and purge. */
static void test_state_limits(void) {
  ty_crdt_state *s = ty_crdt_create(&(ty_crdt_desc){.quiet = true, .max_entries = 3, .max_bytes = 10});
  ty_crdt_buf out = {0}, corr = {0};
  CHECK_EQ_INT(recv_put(s, 512, 1, 1, "abcd", NULL), 1);
  CHECK_EQ_INT(recv_del(s, 513, 1, 1, NULL), 1); /* a tombstone takes an entry, no bytes */
  CHECK_EQ_INT(ty_crdt_put(s, 514, 1, "efgh", 4, &out), TY_CRDT_OK);
  CHECK_EQ_INT(ty_crdt_count(s), 3);
  CHECK_EQ_INT((int)ty_crdt_bytes(s), 8);
  /* A fourth entry: refused, counted, nothing stored, nothing sent. */
  CHECK_EQ_INT(recv_put(s, 515, 1, 1, "x", NULL), 0);
  CHECK_EQ_INT(recv_del(s, 515, 2, 1, NULL), 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->state_limit, 2);
  out.len = 0;
  CHECK_EQ_INT(ty_crdt_put(s, 515, 1, "x", 1, &out), TY_CRDT_STATE_LIMIT);
  CHECK_EQ_INT(out.len, 0);
  CHECK(strcmp(got(s, 515, 1, NULL), "<none>") == 0);
  CHECK_EQ_INT(ty_crdt_count(s), 3);
  /* Growing past 10 bytes: refused; the same size or less: fine. */
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "abcdefg", NULL), 0);
  CHECK_EQ_INT(ty_crdt_put(s, 513, 1, "xyz", 3, &out), TY_CRDT_STATE_LIMIT);
  CHECK_EQ_INT(recv_put(s, 512, 1, 2, "wxyz", NULL), 1);
  CHECK_EQ_INT(recv_put(s, 512, 1, 3, "ab", NULL), 1);
  CHECK_EQ_INT((int)ty_crdt_bytes(s), 6);
  CHECK_EQ_INT(ty_crdt_put(s, 513, 1, "xyzw", 4, &out), TY_CRDT_OK); /* the tombstone gets data */
  CHECK_EQ_INT((int)ty_crdt_bytes(s), 10);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->state_limit, 3);
  /* A stale message is corrected, not refused, even when it would not fit. */
  CHECK_EQ_INT(recv_put(s, 512, 1, 1, "longer than the cap", &corr), 0);
  CHECK(corr.len > 0);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->stale, 1);
  CHECK_EQ_INT(ty_crdt_get_stats(s)->state_limit, 3);
  /* Deletes free bytes; deleting the entity frees its entries. */
  CHECK_EQ_INT(ty_crdt_delete_component(s, 514, 1, &out), TY_CRDT_OK);
  CHECK_EQ_INT((int)ty_crdt_bytes(s), 6);
  CHECK_EQ_INT(ty_crdt_count(s), 3);
  CHECK_EQ_INT(recv_del_entity(s, 514), 1);
  CHECK_EQ_INT(ty_crdt_count(s), 2);
  CHECK_EQ_INT(ty_crdt_delete_entity(s, 512, &out), TY_CRDT_OK);
  CHECK_EQ_INT(ty_crdt_count(s), 1);
  CHECK_EQ_INT((int)ty_crdt_bytes(s), 4);
  CHECK_EQ_INT(recv_put(s, 600, 1, 1, "123456", NULL), 1);
  CHECK_EQ_INT((int)ty_crdt_bytes(s), 10);
  ty_crdt_buf_free(&out);
  ty_crdt_buf_free(&corr);
  ty_crdt_destroy(s);
}

/* The totals against a model over random puts, deletes and entity removals of values
 * large and small (heap buffers grow, shrink and are given back), with tables that fill
 * and empty. */
static void test_totals_against_model(void) {
  enum { N = 700, C = 3 };
  ty_crdt_state *s = fresh();
  static int len_model[N][C]; /* -1: nothing, -2: tombstone */
  static bool gone[N];
  static uint8_t data[600];
  for (uint32_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 31 + 7);
  for (int i = 0; i < N; i++)
    for (int c = 0; c < C; c++) len_model[i][c] = -1;
  srand(11);
  for (int step = 0; step < 40000; step++) {
    int i = rand() % N, c = rand() % C, op = rand() % 10;
    if (gone[i]) continue;
    if (op < 7) {
      uint32_t len = (uint32_t)(rand() % 3 == 0 ? rand() % 600 : rand() % 60);
      data[0] = (uint8_t)step; /* differ from what is stored */
      ty_crdt_status st = ty_crdt_put(s, 512 + (uint32_t)i, 10 + (uint32_t)c, data, len, NULL);
      CHECK(st == TY_CRDT_OK || st == TY_CRDT_UNCHANGED);
      len_model[i][c] = (int)len;
    } else if (op < 9) {
      ty_crdt_delete_component(s, 512 + (uint32_t)i, 10 + (uint32_t)c, NULL);
      if (len_model[i][c] >= 0) len_model[i][c] = -2;
    } else if (rand() % 8 == 0) {
      ty_crdt_delete_entity(s, 512 + (uint32_t)i, NULL);
      gone[i] = true;
      for (int k = 0; k < C; k++) len_model[i][k] = -1;
    }
    if (step % 997 == 0 || step == 39999) {
      uint64_t total = 0;
      uint32_t count = 0;
      for (int a = 0; a < N; a++)
        for (int k = 0; k < C; k++) {
          count += len_model[a][k] != -1;
          total += len_model[a][k] > 0 ? (uint64_t)len_model[a][k] : 0;
        }
      CHECK_EQ_INT(ty_crdt_count(s), count);
      CHECK_EQ_INT((int)ty_crdt_bytes(s), (int)total);
    }
  }
  ty_crdt_destroy(s);
}

/* Many component ids arriving out of order still come out sorted, and cost O(n) to add. */
static void test_many_components_sorted(void) {
  ty_crdt_state *s = fresh();
  ty_crdt_buf b = {0}, snap = {0};
  for (uint32_t i = 0; i < 3000; i++) ty_crdt_write_put(&b, 512, (i * 7919u) % 3001u + 1, 1, "v", 1); /* 3001 is prime: distinct ids */
  ty_crdt_apply(s, b.data, b.len, NULL);
  CHECK_EQ_INT(ty_crdt_count(s), 3000);
  ty_crdt_snapshot(s, &snap, 0);
  uint32_t prev = 0, n = 0;
  size_t off = 0;
  ty_crdt_msg m;
  uint32_t used;
  ty_crdt_reject why;
  while (ty_crdt_decode(snap.data + off, snap.len - off, 0, &m, &used, &why) == TY_CRDT_DECODED) {
    CHECK(m.component > prev);
    prev = m.component;
    off += used;
    n++;
  }
  CHECK_EQ_INT(n, 3000);
  ty_crdt_buf_free(&b);
  ty_crdt_buf_free(&snap);
  ty_crdt_destroy(s);
}

/* ---- snapshot ---- */

static void test_snapshot_bytes_and_round_trip(void) {
  ty_crdt_state *s = fresh();
  recv_put(s, 600, 2048, 3, "b", NULL);
  recv_put(s, 513, 2048, 1, "a", NULL);
  recv_del(s, 512, 1, 4, NULL);
  recv_put(s, 1, 1, 2, "root", NULL);
  recv_put(s, 700, 1, 1, "gone", NULL);
  recv_del_entity(s, ty_crdt_entity(700, 0));
  ty_crdt_buf snap = {0};
  snapshot(s, &snap);
  bytes w = {0};
  u32(&w, 28), u32(&w, 1), u32(&w, 1), u32(&w, 1), u32(&w, 2), u32(&w, 4), raw(&w, "root", 4);
  u32(&w, 20), u32(&w, 2), u32(&w, 512), u32(&w, 1), u32(&w, 4);
  u32(&w, 25), u32(&w, 1), u32(&w, 513), u32(&w, 2048), u32(&w, 1), u32(&w, 1), raw(&w, "a", 1);
  u32(&w, 25), u32(&w, 1), u32(&w, 600), u32(&w, 2048), u32(&w, 3), u32(&w, 1), raw(&w, "b", 1);
  u32(&w, 12), u32(&w, 3), u32(&w, 700);
  CHECK(buf_is(&snap, &w));
  /* The dump form leaves out the DELETE_ENTITY, as @dcl/ecs's does. */
  ty_crdt_buf dump = {0};
  ty_crdt_snapshot(s, &dump, TY_CRDT_SNAPSHOT_DUMP);
  CHECK(dump.len == w.n - 12 && memcmp(dump.data, w.b, dump.len) == 0);
  ty_crdt_state *t = fresh();
  CHECK_EQ_INT(ty_crdt_apply(t, snap.data, snap.len, NULL), 5);
  ty_crdt_buf again = {0};
  snapshot(t, &again);
  CHECK(buf_is(&again, &w));
  /* Applying a snapshot twice is idempotent. */
  CHECK_EQ_INT(ty_crdt_apply(t, snap.data, snap.len, NULL), 0);
  ty_crdt_buf_free(&snap);
  ty_crdt_buf_free(&dump);
  ty_crdt_buf_free(&again);
  ty_crdt_destroy(t);
  ty_crdt_destroy(s);
}

static void test_large_values_and_buffer_reuse(void) {
  ty_crdt_state *s = fresh();
  char big[300], small[10];
  memset(big, 'B', sizeof big - 1);
  big[sizeof big - 1] = 0;
  memset(small, 's', sizeof small - 1);
  small[sizeof small - 1] = 0;
  recv_put(s, 512, 1, 1, small, NULL);
  recv_put(s, 512, 1, 2, big, NULL);
  CHECK(strcmp(got(s, 512, 1, NULL), big) == 0);
  recv_put(s, 512, 1, 3, small, NULL);
  CHECK(strcmp(got(s, 512, 1, NULL), small) == 0);
  big[100] = 0;
  recv_put(s, 512, 1, 4, big, NULL);
  CHECK(strcmp(got(s, 512, 1, NULL), big) == 0);
  recv_del(s, 512, 1, 5, NULL);
  big[100] = 'B';
  recv_put(s, 512, 1, 6, big, NULL);
  CHECK(strcmp(got(s, 512, 1, NULL), big) == 0);
  ty_crdt_destroy(s); /* ASan checks the heap buffers are freed */
}

/* Many entities in, half removed, the rest still found: exercises growth and the
 * backward-shift removal of the open-addressing table against a plain array. */
static void test_table_against_model(void) {
  ty_crdt_state *s = fresh();
  enum { N = 6000 };
  static uint32_t ts_model[N];
  static bool alive[N], removed[N];
  srand(7);
  for (int round = 0; round < 4; round++) {
    for (uint32_t i = 0; i < N; i++) {
      if (removed[i] || rand() % 3 == 0) continue;
      char d[8];
      int len = snprintf(d, sizeof d, "%u", (unsigned)(rand() % 97));
      ty_crdt_status st = ty_crdt_put(s, 512 + i, 1, d, (uint32_t)len, NULL);
      CHECK(st == TY_CRDT_OK || st == TY_CRDT_UNCHANGED);
      if (st == TY_CRDT_OK) ts_model[i]++;
      alive[i] = true;
    }
    for (uint32_t i = 0; i < N; i++) {
      if (!alive[i] || rand() % 2) continue;
      CHECK_EQ_INT(ty_crdt_delete_entity(s, 512 + i, NULL), TY_CRDT_OK);
      alive[i] = false;
      removed[i] = true;
    }
  }
  uint32_t live = 0;
  for (uint32_t i = 0; i < N; i++) {
    uint32_t ts = 0;
    bool found = ty_crdt_get(s, 512 + i, 1, NULL, NULL, &ts);
    if (alive[i]) {
      live++;
      CHECK(found && ts == ts_model[i]);
    } else {
      CHECK(!found);
    }
  }
  CHECK_EQ_INT(ty_crdt_count(s), live);
  ty_crdt_destroy(s);
}

/* ---- convergence ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % n);
}

typedef struct packet {
  uint8_t *data;
  uint32_t len;
} packet;

typedef struct inbox {
  uint32_t *items; /* packet indices not yet delivered (dropped ones stay) */
  uint32_t n, cap;
} inbox;

static const uint32_t conv_components[] = {1, 2048, 2280581199u};
/* Totals over all histories, to show the property met conflicts and deletes, not only easy cases. */
static uint64_t conv_stale, conv_removed;

static uint32_t random_entity(void) {
  static const uint32_t numbers[] = {0, 1, 2, 5, 511, 512, 513, 514, 600, 65535};
  uint32_t n = numbers[rnd(10)];
  uint32_t v = rnd(4) == 0 ? rnd(4) : 0;
  if (n == 65535 && rnd(2)) v = 65535 - rnd(2);
  return ty_crdt_entity(n, v);
}

/* One random history; returns whether every replica wrote the same snapshot. */
static bool converge_once(uint32_t replicas, uint32_t ops) {
  ty_crdt_state *rep[20];
  inbox box[20] = {{0}};
  packet *packets = NULL;
  uint32_t npackets = 0, packets_cap = 0;
  for (uint32_t r = 0; r < replicas; r++) rep[r] = fresh();
  ty_crdt_buf out = {0}, corr = {0}, batch = {0};

  /* Sends out (if any) from replica `from` to every other replica's inbox. */
#define BROADCAST(from, buf)                                                  \
  do {                                                                        \
    if ((buf).len) {                                                          \
      TY_GROW(packets, packets_cap, npackets + 1);                            \
      packets[npackets].data = malloc((buf).len);                             \
      memcpy(packets[npackets].data, (buf).data, (buf).len);                  \
      packets[npackets].len = (buf).len;                                      \
      for (uint32_t r_ = 0; r_ < replicas; r_++) {                            \
        if (r_ == (from)) continue;                                           \
        TY_GROW(box[r_].items, box[r_].cap, box[r_].n + 1);                   \
        box[r_].items[box[r_].n++] = npackets;                                \
      }                                                                       \
      npackets++;                                                             \
    }                                                                         \
  } while (0)

  for (uint32_t step = 0; step < ops; step++) {
    uint32_t r = rnd(replicas);
    if (rnd(3)) {
      out.len = 0;
      uint32_t e = random_entity(), c = conv_components[rnd(3)];
      uint32_t k = rnd(10);
      if (k < 6) {
        uint8_t data[64];
        uint32_t len = rnd(5) == 0 ? 49 + rnd(15) : rnd(4);
        for (uint32_t i = 0; i < len; i++) data[i] = (uint8_t)("ab\x7f\x80"[rnd(4)]);
        ty_crdt_put(rep[r], e, c, data, len, &out);
      } else if (k < 9) {
        ty_crdt_delete_component(rep[r], e, c, &out);
      } else {
        ty_crdt_delete_entity(rep[r], e, &out);
      }
      BROADCAST(r, out);
    } else if (box[r].n) {
      /* A random, shuffled, sometimes duplicated subset of r's inbox as one batch; what is
       * not picked stays for later (dropped, then redelivered). */
      batch.len = 0;
      uint32_t take = 1 + rnd(box[r].n);
      for (uint32_t i = 0; i < take; i++) {
        uint32_t j = rnd(box[r].n);
        packet *p = &packets[box[r].items[j]];
        TY_GROW(batch.data, batch.cap, batch.len + p->len);
        memcpy(batch.data + batch.len, p->data, p->len);
        batch.len += p->len;
        /* Usually consumed; sometimes kept so it arrives again (a duplicate). */
        if (rnd(4)) box[r].items[j] = box[r].items[--box[r].n];
        if (!box[r].n) break;
      }
      corr.len = 0;
      ty_crdt_apply(rep[r], batch.data, batch.len, &corr);
      if (rnd(2)) BROADCAST(r, corr); /* corrections are only restatements: sending them is optional */
    }
  }
  /* Everyone receives whatever is left, in random order and in random batch sizes. */
  for (uint32_t r = 0; r < replicas; r++) {
    while (box[r].n) {
      uint32_t j = rnd(box[r].n);
      packet *p = &packets[box[r].items[j]];
      box[r].items[j] = box[r].items[--box[r].n];
      ty_crdt_apply(rep[r], p->data, p->len, NULL);
    }
  }
  ty_crdt_buf first = {0}, other = {0};
  ty_crdt_snapshot(rep[0], &first, 0);
  bool same = true;
  for (uint32_t r = 1; r < replicas; r++) {
    other.len = 0;
    ty_crdt_snapshot(rep[r], &other, 0);
    if (other.len != first.len || memcmp(other.data, first.data, first.len) != 0) same = false;
  }
  for (uint32_t r = 0; r < replicas; r++) {
    const ty_crdt_stats *st = ty_crdt_get_stats(rep[r]);
    CHECK_EQ_INT(st->malformed, 0);
    conv_stale += st->stale;
    conv_removed += st->removed_entity;
    ty_crdt_destroy(rep[r]);
    free(box[r].items);
  }
  for (uint32_t i = 0; i < npackets; i++) free(packets[i].data);
  free(packets);
  ty_crdt_buf_free(&out);
  ty_crdt_buf_free(&corr);
  ty_crdt_buf_free(&batch);
  ty_crdt_buf_free(&first);
  ty_crdt_buf_free(&other);
#undef BROADCAST
  return same;
}

static void test_convergence_property(void) {
  uint32_t failed = 0, runs = 300;
  for (uint32_t i = 0; i < runs; i++) {
    rng_state = 0x9E3779B97F4A7C15ull * (i + 1);
    uint32_t replicas = 2 + rnd(19);
    if (!converge_once(replicas, 50 + rnd(400))) {
      if (!failed) fprintf(stderr, "  history %u (%u replicas) diverged\n", i, replicas);
      failed++;
    }
  }
  CHECK_EQ_INT(failed, 0);
  printf("     convergence: %u histories, %llu stale messages refused, %llu for removed entities\n", runs,
         (unsigned long long)conv_stale, (unsigned long long)conv_removed);
  CHECK(conv_stale > 1000 && conv_removed > 100);
}

int main(void) {
  RUN(test_entity_ids);
  RUN(test_component_ids);
  RUN(test_encode_put_bytes);
  RUN(test_encode_other_types_bytes);
  RUN(test_decode_fields);
  RUN(test_transform_layout);
  RUN(test_nothing_stored_accepts);
  RUN(test_greater_timestamp_wins);
  RUN(test_lower_timestamp_rejected_with_correction);
  RUN(test_equal_timestamp_put_beats_delete);
  RUN(test_equal_timestamp_longer_wins);
  RUN(test_equal_timestamp_first_differing_byte_unsigned);
  RUN(test_timestamps_compare_unsigned);
  RUN(test_local_writes_use_stored_timestamp_plus_one);
  RUN(test_local_message_applies_the_same_on_a_peer);
  RUN(test_delete_entity_ignores_later_state);
  RUN(test_delete_entity_runs_after_the_batch);
  RUN(test_unknown_version_retires_the_previous);
  RUN(test_reserved_numbers_are_cleared_not_removed);
  RUN(test_local_delete_entity_bytes);
  RUN(test_malformed_truncated);
  RUN(test_malformed_short_length);
  RUN(test_malformed_past_end);
  RUN(test_malformed_too_large);
  RUN(test_malformed_bad_size);
  RUN(test_malformed_data_length);
  RUN(test_reject_names);
  RUN(test_unknown_network_and_append_are_skipped);
  RUN(test_component_limit);
  RUN(test_state_limits);
  RUN(test_totals_against_model);
  RUN(test_many_components_sorted);
  RUN(test_snapshot_bytes_and_round_trip);
  RUN(test_large_values_and_buffer_reuse);
  RUN(test_table_against_model);
  RUN(test_convergence_property);
  return check_summary();
}
