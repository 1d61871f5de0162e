/* server/peer_link.h: direct TCP links between the processes of a cluster, on the host's libev
 * loop: the relay's messages go over them instead of through Redis pub/sub when both ends
 * have one up (scripts/docs/server.md "Past one process"). Each process listens on a port of
 * its own and publishes its address and a random token in its Redis record; the process that
 * dials sends HELLO with the other's id and token, and a link is up once the other answers
 * OK, so only a process that can read the cluster's Redis can open one. Frames are
 * server/link_frames.h's; what a frame says is the caller's. A link that breaks, sends
 * something that is not a frame, or falls behind by more than a bound is dropped, and what was
 * queued on it is lost, as a pub/sub message to a dead process would be. Each process dials
 * each peer and sends only on the links it dialed (it reads on the ones it accepted), so that
 * its frames to one peer keep their order. */
#ifndef TY_PEER_LINK_H
#define TY_PEER_LINK_H

#include <stdbool.h>
#include <stddef.h>

struct ev_loop;
typedef struct ty_links ty_links;

#define TY_LINK_PEER_MAX 96 /* bytes of a process id, with its NUL */

typedef struct ty_links_events {
  /* A frame from peer (its process id), on channel. */
  void (*frame)(void *user, const char *peer, const char *channel, size_t channel_len, const char *data, size_t len);
  /* This process's link to peer went down (it was up). */
  void (*down)(void *user, const char *peer);
} ty_links_events;

/* Listens on iface:port (port 0: any free one) as the process self_id; advertise is the
 * host peers dial (NULL: iface). NULL with a message in err when it cannot listen. */
ty_links *ty_links_create(struct ev_loop *loop, const char *self_id, const char *iface, int port,
                          const char *advertise, const ty_links_events *ev, void *user, char *err, size_t errsz);
/* Closes every link (no down event) and the listener. */
void ty_links_destroy(ty_links *l);
/* "HOST:PORT" (IPv6 in brackets) that peers dial, and the token they must present. */
const char *ty_links_address(const ty_links *l);
const char *ty_links_token(const ty_links *l);

/* Opens a link to peer at addr with its token, unless one is up or being made, or a dial to
 * it failed in the last few seconds. */
void ty_links_dial(ty_links *l, const char *peer, const char *addr, const char *token);
/* Whether this process's link to peer is up. */
bool ty_links_up(const ty_links *l, const char *peer);
/* Queues one frame to peer, written when the loop next waits. False when no link to peer is
 * up, or it is too far behind (it is dropped: a down event follows). */
bool ty_links_send(ty_links *l, const char *peer, const char *channel, const char *data, size_t len);

/* The local address a socket toward host:port would use (no packet is sent): what a process
 * listening on every interface tells its peers. False when host does not resolve. */
bool ty_links_address_toward(const char *host, int port, char *out, size_t outsz);

#endif
