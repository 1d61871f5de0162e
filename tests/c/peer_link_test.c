/* tests/c/peer_link_test.c: a cluster's direct links (server/peer_link.c) over real loopback
 * sockets, each process's side on a libev loop of its own: a link comes up only with the
 * peer's id and token, frames arrive whole and in order on the channel they were sent to, a
 * process sends only on the link it dialed, a peer that goes away is reported down once, and
 * a peer that stops reading is dropped once 64 MiB wait for it. */
#include "check.h"
#include "peer_link.h"

#include <ev.h>
#include <stdlib.h>
#include <time.h>

typedef struct side {
  struct ev_loop *loop;
  ty_links *links;
  char self[32];
  int frames;
  char last_peer[TY_LINK_PEER_MAX];
  char channel[64];
  bool in_order;
  int downs;
  char down_peer[TY_LINK_PEER_MAX];
} side;

static void on_frame(void *user, const char *peer, const char *channel, size_t channel_len, const char *data,
                     size_t len) {
  side *s = user;
  char want[32];
  snprintf(want, sizeof want, "m%d", s->frames);
  if (len != strlen(want) || memcmp(data, want, len) != 0) s->in_order = false;
  snprintf(s->last_peer, sizeof s->last_peer, "%s", peer);
  snprintf(s->channel, sizeof s->channel, "%.*s", (int)channel_len, channel);
  s->frames++;
}

static void on_down(void *user, const char *peer) {
  side *s = user;
  s->downs++;
  snprintf(s->down_peer, sizeof s->down_peer, "%s", peer);
}

static void side_open(side *s, const char *self) {
  memset(s, 0, sizeof *s);
  snprintf(s->self, sizeof s->self, "%s", self);
  s->loop = ev_loop_new(EVFLAG_AUTO);
  s->in_order = true;
  char err[256] = "";
  ty_links_events ev = {.frame = on_frame, .down = on_down};
  s->links = ty_links_create(s->loop, self, "127.0.0.1", 0, NULL, &ev, s, err, sizeof err);
  CHECK(s->links != NULL);
  if (!s->links) fprintf(stderr, "  %s\n", err);
}

static void side_close(side *s) {
  ty_links_destroy(s->links);
  ev_loop_destroy(s->loop);
}

/* Turns each side's loop without waiting until done(ctx) or about 3 s have passed. */
static bool pump(side **sides, int n, bool (*done)(void *), void *ctx) {
  for (int i = 0; i < 3000; i++) {
    for (int k = 0; k < n; k++) ev_run(sides[k]->loop, EVRUN_NOWAIT);
    if (done(ctx)) return true;
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return false;
}

typedef struct up_wait {
  side *from;
  const char *to;
} up_wait;

static bool is_up(void *ctx) {
  up_wait *w = ctx;
  return ty_links_up(w->from->links, w->to);
}

static bool got_1000(void *ctx) { return ((side *)ctx)->frames >= 1000; }
static bool went_down(void *ctx) { return ((side *)ctx)->downs > 0; }

/* Opens a as a/1 and b as b/1, and a's link to b. */
static void open_linked(side *a, side *b) {
  side_open(a, "a/1");
  side_open(b, "b/1");
  side *both[] = {a, b};
  ty_links_dial(a->links, "b/1", ty_links_address(b->links), ty_links_token(b->links));
  CHECK(pump(both, 2, is_up, &(up_wait){a, "b/1"}));
}

static void test_frames_arrive_in_order_on_the_dialed_link(void) {
  side a, b;
  open_linked(&a, &b);
  side *both[] = {&a, &b};
  char text[32];
  for (int i = 0; i < 1000; i++) {
    snprintf(text, sizeof text, "m%d", i);
    CHECK(ty_links_send(a.links, "b/1", "tycho:crafty:to:b/1", text, strlen(text)));
  }
  CHECK(pump(both, 2, got_1000, &b));
  CHECK_EQ_INT(b.frames, 1000);
  CHECK(b.in_order);
  CHECK(strcmp(b.last_peer, "a/1") == 0);
  CHECK(strcmp(b.channel, "tycho:crafty:to:b/1") == 0);
  /* b sends only on a link it dialed: until it dials a, it has none */
  CHECK(!ty_links_up(b.links, "a/1"));
  CHECK(!ty_links_send(b.links, "a/1", "ch", "m0", 2));
  ty_links_dial(b.links, "a/1", ty_links_address(a.links), ty_links_token(a.links));
  CHECK(pump(both, 2, is_up, &(up_wait){&b, "a/1"}));
  for (int i = 0; i < 1000; i++) {
    snprintf(text, sizeof text, "m%d", i);
    CHECK(ty_links_send(b.links, "a/1", "back", text, strlen(text)));
  }
  CHECK(pump(both, 2, got_1000, &a));
  CHECK(a.in_order && strcmp(a.last_peer, "b/1") == 0 && strcmp(a.channel, "back") == 0);
  CHECK_EQ_INT(a.downs + b.downs, 0);
  side_close(&a);
  side_close(&b);
}

static bool never(void *ctx) {
  (void)ctx;
  return false;
}

static void test_a_wrong_token_or_id_never_comes_up(void) {
  side a, b;
  side_open(&a, "a/1");
  side_open(&b, "b/1");
  side *both[] = {&a, &b};
  ty_links_dial(a.links, "b/1", ty_links_address(b.links), "00000000000000000000000000000000");
  ty_links_dial(a.links, "b/2", ty_links_address(b.links), ty_links_token(b.links)); /* b is not b/2 */
  pump(both, 2, never, NULL) /* about 3 s: both are refused at once, nothing comes up later */;
  CHECK(!ty_links_up(a.links, "b/1") && !ty_links_up(a.links, "b/2"));
  CHECK_EQ_INT(a.downs, 0); /* never up, so never down */
  CHECK_EQ_INT(b.frames, 0);
  /* a dial refused stays refused for a while: a right token now is not dialed before then */
  ty_links_dial(a.links, "b/1", ty_links_address(b.links), ty_links_token(b.links));
  pump(both, 2, never, NULL);
  CHECK(!ty_links_up(a.links, "b/1"));
  side_close(&a);
  side_close(&b);
}

static void test_a_peer_that_goes_away_is_reported_down_once(void) {
  side a, b;
  open_linked(&a, &b);
  side *only_a[] = {&a};
  side_close(&b);
  CHECK(pump(only_a, 1, went_down, &a));
  CHECK_EQ_INT(a.downs, 1);
  CHECK(strcmp(a.down_peer, "b/1") == 0);
  CHECK(!ty_links_up(a.links, "b/1"));
  CHECK(!ty_links_send(a.links, "b/1", "ch", "m0", 2));
  side_close(&a);
}

static void test_a_peer_that_stops_reading_is_dropped_past_64_mib(void) {
  side a, b;
  open_linked(&a, &b);
  side *only_a[] = {&a};
  size_t len = 1024 * 1024;
  char *big = calloc(1, len);
  int queued = 0;
  bool refused = false;
  for (int i = 0; i < 200 && !refused; i++) { /* b's loop no longer turns: nothing reads */
    refused = !ty_links_send(a.links, "b/1", "ch", big, len);
    if (!refused) queued++;
    ev_run(a.loop, EVRUN_NOWAIT);
  }
  CHECK(refused);
  CHECK(queued >= 64 && queued < 200); /* the kernel's buffers take a little more than the bound */
  CHECK(pump(only_a, 1, went_down, &a));
  CHECK_EQ_INT(a.downs, 1);
  CHECK(!ty_links_up(a.links, "b/1"));
  free(big);
  side_close(&a);
  side_close(&b);
}

static void test_bad_addresses_dial_nothing(void) {
  side a;
  side_open(&a, "a/1");
  ty_links_dial(a.links, "b/1", "not an address", "t");
  ty_links_dial(a.links, "b/1", "127.0.0.1:99999", "t");
  ty_links_dial(a.links, "a/1", ty_links_address(a.links), ty_links_token(a.links)); /* itself */
  CHECK(!ty_links_up(a.links, "b/1") && !ty_links_up(a.links, "a/1"));
  CHECK(!ty_links_send(a.links, "b/1", "ch", "m0", 2)); /* no link: nothing is queued */
  char addr[64];
  CHECK(ty_links_address_toward("127.0.0.1", 6379, addr, sizeof addr) && strcmp(addr, "127.0.0.1") == 0);
  CHECK(!ty_links_address_toward("no.such.host.invalid", 6379, addr, sizeof addr));
  side_close(&a);
}

int main(void) {
  RUN(test_frames_arrive_in_order_on_the_dialed_link);
  RUN(test_a_wrong_token_or_id_never_comes_up);
  RUN(test_a_peer_that_goes_away_is_reported_down_once);
  RUN(test_a_peer_that_stops_reading_is_dropped_past_64_mib);
  RUN(test_bad_addresses_dial_nothing);
  return check_summary();
}
