/* tests/fuzz/crdt_fuzz.c: fuzzes ty_crdt_apply with arbitrary bytes and checks what must
 * hold for any input: the corrections and snapshot it writes are well formed, applying the
 * same bytes twice changes nothing the second time, a snapshot rebuilds an equal state, the
 * entry and byte totals match what the snapshot holds, and a state with small max_entries
 * and max_bytes never passes them.
 *
 * Built two ways. With TYCHO_LIBFUZZER (cmake -DTYCHO_FUZZ=ON, clang) libFuzzer drives it,
 * writing what it finds to the first folder and reading the seeds from the second:
 *   build-fuzz/crdt_fuzz -max_total_time=300 /tmp/crdt-corpus tests/fuzz/corpus/crdt
 * Without, main() below replays files and folders given on the command line, so every
 * build (ASan included) runs the seed corpus as the ctest fuzz.crdt_fuzz. */
#include "sync/crdt.h"

#include <string.h>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "crdt_fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                           \
    }                                                                                    \
  } while (0)

static bool same(const ty_crdt_buf *a, const ty_crdt_buf *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Whether a snapshot holds a tombstone with timestamp UINT32_MAX. */
static bool tombstone_at_top(const ty_crdt_buf *snap) {
  size_t off = 0;
  ty_crdt_msg m;
  uint32_t used;
  ty_crdt_reject why;
  while (off < snap->len && ty_crdt_decode(snap->data + off, snap->len - off, 0, &m, &used, &why) == TY_CRDT_DECODED) {
    if (m.type == TY_CRDT_MSG_DELETE_COMPONENT && m.timestamp == UINT32_MAX) return true;
    off += used;
  }
  return false;
}

/* Checks ty_crdt_count and ty_crdt_bytes against the entries a snapshot writes. */
static void check_totals(ty_crdt_state *s, ty_crdt_buf *scratch) {
  scratch->len = 0;
  ty_crdt_snapshot(s, scratch, TY_CRDT_SNAPSHOT_DUMP);
  size_t off = 0;
  uint64_t entries = 0, bytes = 0;
  ty_crdt_msg m;
  uint32_t used;
  ty_crdt_reject why;
  while (off < scratch->len &&
         ty_crdt_decode(scratch->data + off, scratch->len - off, UINT32_MAX, &m, &used, &why) == TY_CRDT_DECODED) {
    entries++;
    if (m.type == TY_CRDT_MSG_PUT_COMPONENT) bytes += m.data_len;
    off += used;
  }
  FUZZ_CHECK(off == scratch->len);
  FUZZ_CHECK(entries == ty_crdt_count(s));
  FUZZ_CHECK(bytes == ty_crdt_bytes(s));
}

/* Every well-formed message is counted under exactly one outcome. */
static bool outcomes_add_up(const ty_crdt_stats *st) {
  return st->accepted + st->unchanged + st->stale + st->removed_entity + st->append_ignored + st->network_ignored +
             st->unknown_type + st->component_limit + st->state_limit ==
         st->messages;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Small caps so that too_large and the component limit are reachable with small inputs. */
  const ty_crdt_desc desc = {.max_message = 1024, .max_components = 8, .quiet = true};
  ty_crdt_state *a = ty_crdt_create(&desc);
  ty_crdt_buf corrections = {0}, snap = {0}, again = {0};

  uint32_t applied = ty_crdt_apply(a, data, size, &corrections);
  const ty_crdt_stats *st = ty_crdt_get_stats(a);
  FUZZ_CHECK(applied == st->accepted);
  FUZZ_CHECK(outcomes_add_up(st));
  FUZZ_CHECK(st->state_limit == 0);

  /* Corrections are well-formed messages that a peer can take. */
  ty_crdt_state *c = ty_crdt_create(&desc);
  ty_crdt_apply(c, corrections.data, corrections.len, NULL);
  FUZZ_CHECK(ty_crdt_get_stats(c)->malformed == 0);
  ty_crdt_destroy(c);

  /* The same bytes again are all dominated by the state they produced, except after a
   * reserved entity's DELETE_ENTITY left a tombstone at the top of the clock, where a put
   * at the same timestamp wins again (crdt.c apply_delete_entity). */
  ty_crdt_snapshot(a, &snap, 0);
  if (!tombstone_at_top(&snap)) {
    FUZZ_CHECK(ty_crdt_apply(a, data, size, NULL) == 0);
    ty_crdt_snapshot(a, &again, 0);
    FUZZ_CHECK(same(&snap, &again));
  }

  /* A snapshot rebuilds the same state on a fresh one, and is a fixed point there too. */
  ty_crdt_state *b = ty_crdt_create(&(ty_crdt_desc){.quiet = true});
  ty_crdt_apply(b, snap.data, snap.len, NULL);
  const ty_crdt_stats *bst = ty_crdt_get_stats(b);
  FUZZ_CHECK(bst->malformed == 0 && bst->stale == 0 && bst->removed_entity == 0);
  again.len = 0;
  ty_crdt_snapshot(b, &again, 0);
  FUZZ_CHECK(same(&snap, &again));
  FUZZ_CHECK(ty_crdt_count(a) == ty_crdt_count(b));
  FUZZ_CHECK(ty_crdt_bytes(a) == ty_crdt_bytes(b));
  check_totals(a, &again);

  /* The dump form is a prefix of the full snapshot. */
  again.len = 0;
  ty_crdt_snapshot(a, &again, TY_CRDT_SNAPSHOT_DUMP);
  FUZZ_CHECK(again.len <= snap.len && (again.len == 0 || memcmp(again.data, snap.data, again.len) == 0));

  /* Caps small enough that seeds reach them: the same bytes twice (the second time, space
   * that deletes freed may take what the first refused), never past the caps. */
  const ty_crdt_desc capped = {.max_message = 1024, .max_components = 8, .max_entries = 4, .max_bytes = 24, .quiet = true};
  ty_crdt_state *l = ty_crdt_create(&capped);
  for (int round = 0; round < 2; round++) {
    corrections.len = 0;
    uint32_t n = ty_crdt_apply(l, data, size, &corrections);
    FUZZ_CHECK(round || n == ty_crdt_get_stats(l)->accepted);
    FUZZ_CHECK(outcomes_add_up(ty_crdt_get_stats(l)));
    FUZZ_CHECK(ty_crdt_count(l) <= capped.max_entries && ty_crdt_bytes(l) <= capped.max_bytes);
    check_totals(l, &again);
  }
  ty_crdt_destroy(l);

  ty_crdt_destroy(b);
  ty_crdt_destroy(a);
  ty_crdt_buf_free(&corrections);
  ty_crdt_buf_free(&snap);
  ty_crdt_buf_free(&again);
  return 0;
}

#ifndef TYCHO_LIBFUZZER
#include "replay.h"

static int replay_file(const char *path) {
  size_t len = 0;
  uint8_t *buf = fuzz_read_file("crdt_fuzz", path, 0, &len);
  if (!buf) return -1;
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 1;
}

int main(int argc, char **argv) { return fuzz_replay_main("crdt_fuzz", argc, argv, replay_file); }
#endif
