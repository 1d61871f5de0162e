/* engine/sync/crdt.h: tycho's state sync, byte-compatible with Decentraland's @dcl/ecs 7.x.
 *
 * A ty_crdt_state holds, per (component id, entity id), a Lamport timestamp and either the
 * component's bytes or a tombstone, plus the highest removed version of every entity number.
 * Messages use the @dcl/ecs wire format (../shared/notes/dcl-crdt-wire.md): a u32 length
 * (header included) and a u32 type, then the body, all little-endian.
 *
 * Conflicts follow @dcl/ecs's last-write-wins rule: the greater timestamp wins; at equal
 * timestamps the greater data wins (a tombstone is less than any bytes, longer bytes beat
 * shorter ones, then the first differing byte decides, unsigned). A stale message is
 * rejected and answered with a correction carrying the local state.
 *
 * Where @dcl/ecs itself does not converge (it keeps the data of a lower version of an
 * entity whose higher version was deleted, depending on arrival order), this state drops
 * everything stored for a removed entity, so replicas that saw the same messages in any
 * order hold the same state and write the same snapshot. */
#ifndef TY_CRDT_H
#define TY_CRDT_H

#include "common.h"

enum {
  TY_CRDT_HEADER_SIZE = 8,                  /* u32 length, u32 type */
  TY_CRDT_RESERVED_ENTITIES = 512,          /* numbers below are the renderer's: never removed */
  TY_CRDT_NAMED_ENTITIES = 3,               /* root 0, player 1, camera 2 */
  TY_CRDT_DEFAULT_MAX_MESSAGE = 1 << 20,    /* bytes per message unless ty_crdt_desc says */
  TY_CRDT_DEFAULT_MAX_COMPONENTS = 4096,    /* distinct component ids unless ty_crdt_desc says */
  TY_CRDT_TRANSFORM_ID = 1,                 /* core::Transform */
  TY_CRDT_TRANSFORM_SIZE = 44,
};

typedef enum ty_crdt_msg_type {
  TY_CRDT_MSG_RESERVED = 0,
  TY_CRDT_MSG_PUT_COMPONENT = 1,            /* entity, component, timestamp, dataLength, data */
  TY_CRDT_MSG_DELETE_COMPONENT = 2,         /* entity, component, timestamp */
  TY_CRDT_MSG_DELETE_ENTITY = 3,            /* entity */
  TY_CRDT_MSG_APPEND_VALUE = 4,             /* as PUT_COMPONENT */
  TY_CRDT_MSG_PUT_COMPONENT_NETWORK = 5,    /* entity, component, timestamp, networkId, dataLength, data */
  TY_CRDT_MSG_DELETE_COMPONENT_NETWORK = 6, /* entity, component, timestamp, networkId */
  TY_CRDT_MSG_DELETE_ENTITY_NETWORK = 7,    /* entity, networkId */
  TY_CRDT_MSG_MAX = 8,
} ty_crdt_msg_type;

/* Why the decoder refused a message. The state is never changed by a refused message. */
typedef enum ty_crdt_reject {
  TY_CRDT_REJECT_TRUNCATED,    /* "truncated": 1..7 bytes left, not a whole header */
  TY_CRDT_REJECT_SHORT_LENGTH, /* "short_length": declared length < 8; framing is lost */
  TY_CRDT_REJECT_PAST_END,     /* "past_end": declared length runs past the buffer */
  TY_CRDT_REJECT_TOO_LARGE,    /* "too_large": declared length over the per-message cap */
  TY_CRDT_REJECT_BAD_SIZE,     /* "bad_size": length does not fit the type's fixed fields */
  TY_CRDT_REJECT_DATA_LENGTH,  /* "data_length": dataLength disagrees with length */
  TY_CRDT_REJECT_COUNT
} ty_crdt_reject;

/* The stable name of a reason ("truncated", "past_end", ...). */
const char *ty_crdt_reject_name(ty_crdt_reject why);

/* ---- entity ids: number in the low 16 bits, version in the high 16 ---- */

static inline uint32_t ty_crdt_entity(uint32_t number, uint32_t version) {
  return (number & 0xFFFFu) | ((version & 0xFFFFu) << 16);
}
static inline uint32_t ty_crdt_entity_number(uint32_t entity) { return entity & 0xFFFFu; }
static inline uint32_t ty_crdt_entity_version(uint32_t entity) { return entity >> 16; }

/* ---- wire ---- */

/* One decoded message. data points into the buffer it was read from (NULL when the type
 * carries none); fields a type lacks are zero. */
typedef struct ty_crdt_msg {
  uint32_t type;
  uint32_t length; /* the whole message, header included */
  uint32_t entity;
  uint32_t component;
  uint32_t timestamp;
  uint32_t network_id;
  uint32_t data_len;
  const uint8_t *data;
} ty_crdt_msg;

typedef enum ty_crdt_decode_status {
  TY_CRDT_DECODED,     /* *msg holds the message; *consumed its length */
  TY_CRDT_DECODE_END,  /* no bytes left */
  TY_CRDT_DECODE_SKIP, /* refused (*why); *consumed bytes can be skipped and reading go on */
  TY_CRDT_DECODE_STOP, /* refused (*why); the framing is lost, nothing after can be read */
} ty_crdt_decode_status;

/* Decodes the message at the start of buf[0..len). max_message caps the declared length
 * (0: TY_CRDT_DEFAULT_MAX_MESSAGE). Unknown types decode (type set, no fields) so that a
 * reader can skip them by length, as @dcl/ecs does. */
ty_crdt_decode_status ty_crdt_decode(const uint8_t *buf, size_t len, uint32_t max_message, ty_crdt_msg *msg,
                                     uint32_t *consumed, ty_crdt_reject *why);

/* A growable byte buffer; zero-initialised is empty. Owns data: free with ty_crdt_buf_free. */
typedef struct ty_crdt_buf {
  uint8_t *data;
  uint32_t len;
  uint32_t cap;
} ty_crdt_buf;

void ty_crdt_buf_free(ty_crdt_buf *b);

/* Each appends one message to b. */
void ty_crdt_write_put(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp, const void *data,
                       uint32_t len);
void ty_crdt_write_delete_component(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp);
void ty_crdt_write_delete_entity(ty_crdt_buf *b, uint32_t entity);
void ty_crdt_write_append(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp, const void *data,
                          uint32_t len);
void ty_crdt_write_put_network(ty_crdt_buf *b, uint32_t entity, uint32_t component, uint32_t timestamp,
                               uint32_t network_id, const void *data, uint32_t len);
void ty_crdt_write_delete_component_network(ty_crdt_buf *b, uint32_t entity, uint32_t component,
                                            uint32_t timestamp, uint32_t network_id);
void ty_crdt_write_delete_entity_network(ty_crdt_buf *b, uint32_t entity, uint32_t network_id);

/* @dcl/ecs's component number for a name: the core table ("core::Transform" -> 1), else
 * crc32 of the UTF-8 name in a zeroed 128-byte buffer (longer names are cut at 128) + 2048. */
uint32_t ty_crdt_component_id(const char *name, size_t len);

/* core::Transform's 44 bytes. */
typedef struct ty_crdt_transform {
  float position[3];
  float rotation[4]; /* x y z w */
  float scale[3];
  uint32_t parent;   /* entity id */
} ty_crdt_transform;

/* Position 0, rotation identity, scale 1, parent 0. */
void ty_crdt_transform_default(ty_crdt_transform *t);
void ty_crdt_transform_encode(const ty_crdt_transform *t, uint8_t out[TY_CRDT_TRANSFORM_SIZE]);
/* Returns false (t untouched) when len is not TY_CRDT_TRANSFORM_SIZE. */
bool ty_crdt_transform_decode(const uint8_t *data, size_t len, ty_crdt_transform *t);

/* ---- the state ---- */

typedef struct ty_crdt_state ty_crdt_state;

/* Zeroed fields mean defaults. */
typedef struct ty_crdt_desc {
  uint32_t max_message;    /* cap on one message's declared length; 0: TY_CRDT_DEFAULT_MAX_MESSAGE */
  uint32_t max_components; /* distinct component ids kept, so a peer cannot make the state grow
                              a table per id it invents; 0: TY_CRDT_DEFAULT_MAX_COMPONENTS */
  /* Caps on what the state stores, so that a peer cannot make it grow without bound; 0 is
   * unlimited (the default, as in @dcl/ecs). A message or local write that would store a new
   * (entity, component) pair past max_entries, or grow the live data past max_bytes, is
   * refused; writes that shrink or keep the size always go through. A capped state refuses
   * what its peers keep, so it converges with them only while under its caps. */
  uint32_t max_entries;    /* stored (entity, component) pairs, tombstones included */
  uint64_t max_bytes;      /* total bytes of live component data */
  bool quiet;              /* no crdt_malformed log line when a peer sends bad bytes */
} ty_crdt_desc;

/* What apply has seen since the state was created. */
typedef struct ty_crdt_stats {
  uint64_t messages;        /* well-formed messages read */
  uint64_t accepted;        /* changed the state */
  uint64_t unchanged;       /* same timestamp and data, or a delete of nothing */
  uint64_t stale;           /* lost the conflict rule; a correction was produced */
  uint64_t removed_entity;  /* for an entity already deleted: ignored */
  uint64_t append_ignored;  /* APPEND_VALUE: this state holds last-write-wins components only */
  uint64_t network_ignored; /* types 5-7: need @dcl/ecs's NetworkEntity mapping */
  uint64_t unknown_type;    /* skipped by their declared length */
  uint64_t component_limit; /* for a new component id past desc.max_components: ignored */
  uint64_t state_limit;     /* would pass desc.max_entries or desc.max_bytes: ignored */
  uint64_t malformed;       /* sum of rejected[] */
  uint64_t rejected[TY_CRDT_REJECT_COUNT];
} ty_crdt_stats;

/* desc may be NULL. The caller owns the state: ty_crdt_destroy frees it. */
ty_crdt_state *ty_crdt_create(const ty_crdt_desc *desc);
void ty_crdt_destroy(ty_crdt_state *s);

const ty_crdt_stats *ty_crdt_get_stats(const ty_crdt_state *s);

/* Applies every message in buf as one batch (DELETE_ENTITY messages last, as @dcl/ecs does)
 * and returns how many changed the state. For each stale message, a correction (a PUT of
 * the local data or a DELETE_COMPONENT, with the local timestamp) is appended to corrections
 * when it is not NULL. Malformed messages are counted in the stats and change nothing. */
uint32_t ty_crdt_apply(ty_crdt_state *s, const void *buf, size_t len, ty_crdt_buf *corrections);

typedef enum ty_crdt_status {
  TY_CRDT_OK,              /* the state changed; the message was appended to out */
  TY_CRDT_UNCHANGED,       /* nothing to send: same bytes, nothing to delete, reserved range */
  TY_CRDT_REMOVED,         /* the entity is deleted; nothing changed */
  TY_CRDT_CLOCK_EXHAUSTED, /* the stored timestamp is UINT32_MAX: no later write can win */
  TY_CRDT_COMPONENT_LIMIT, /* a new component id past desc.max_components */
  TY_CRDT_STATE_LIMIT,     /* would pass desc.max_entries or desc.max_bytes; nothing changed */
} ty_crdt_status;

/* Local writes. Each uses the stored timestamp + 1 for (component, entity), changes the
 * state as a peer receiving the message would, and appends the message to out. */
ty_crdt_status ty_crdt_put(ty_crdt_state *s, uint32_t entity, uint32_t component, const void *data, uint32_t len,
                           ty_crdt_buf *out);
ty_crdt_status ty_crdt_delete_component(ty_crdt_state *s, uint32_t entity, uint32_t component, ty_crdt_buf *out);
/* A DELETE_COMPONENT per live component, then DELETE_ENTITY. Numbers 0-2 get the
 * DELETE_COMPONENTs only and 3-511 (the renderer's avatars) nothing, as in @dcl/ecs. */
ty_crdt_status ty_crdt_delete_entity(ty_crdt_state *s, uint32_t entity, ty_crdt_buf *out);

/* Returns false when nothing is stored for (entity, component). Otherwise *timestamp is set
 * and *data is the stored bytes (valid until the state next changes), or NULL for a
 * tombstone. data, len and timestamp may each be NULL. */
bool ty_crdt_get(const ty_crdt_state *s, uint32_t entity, uint32_t component, const uint8_t **data, uint32_t *len,
                 uint32_t *timestamp);

/* True when a DELETE_ENTITY (or a message for a later version) removed this entity. */
bool ty_crdt_removed(const ty_crdt_state *s, uint32_t entity);

/* How many (component, entity) pairs are stored, tombstones included. */
uint32_t ty_crdt_count(const ty_crdt_state *s);

/* The total length of the live component data stored (tombstones hold none). */
uint64_t ty_crdt_bytes(const ty_crdt_state *s);

enum {
  /* Write only what @dcl/ecs's dump writes (no DELETE_ENTITY for removed entities). */
  TY_CRDT_SNAPSHOT_DUMP = 1 << 0,
};

/* Appends messages that rebuild the state on a fresh one: a PUT per live component and a
 * DELETE_COMPONENT per tombstone, sorted by component id then entity, then a DELETE_ENTITY
 * per removed entity number (its highest removed version). Equal states write equal bytes. */
void ty_crdt_snapshot(ty_crdt_state *s, ty_crdt_buf *out, unsigned flags);

#endif
