/* bindings/lua_json.h: JSON <-> Lua values (jansson), shared by tycho.json and the game
 * host (server/), which decodes client frames with caps on depth and size. */
#ifndef TY_LUA_JSON_H
#define TY_LUA_JSON_H

#include "bindings.h"

typedef struct ty_json_limits {
  int max_depth;     /* nesting of arrays/objects; deeper is TY_JSON_TOO_DEEP */
  long max_items;    /* values in the whole document; more is TY_JSON_TOO_LARGE */
} ty_json_limits;

#define TY_JSON_DEFAULT_DEPTH 64
#define TY_JSON_DEFAULT_ITEMS 10000

typedef enum ty_json_status { TY_JSON_OK = 0, TY_JSON_BAD, TY_JSON_TOO_DEEP, TY_JSON_TOO_LARGE } ty_json_status;

/* "bad_json", "too_deep", "too_large" (the error codes a client sees). */
const char *ty_json_status_code(ty_json_status s);

/* Parses s[0..len) and, on TY_JSON_OK, pushes the value (null is tycho.json.null, a NULL
 * light userdata). On failure pushes nothing and writes a message into err. lim may be NULL. */
ty_json_status ty_json_push_decoded(lua_State *L, const char *s, size_t len, const ty_json_limits *lim,
                                    char *err, size_t errsz);

/* Pushes the compact JSON text of the value at idx. Raises a Lua error for what JSON cannot
 * hold: functions, userdata (but tycho.json.null), cycles, NaN/inf, non-UTF-8 strings. */
void ty_json_push_encoded(lua_State *L, int idx);
/* The encoder's long way alone (a jansson tree, then json_dumps), which ty_json_push_encoded
 * takes where lua_json_write.c's short way cannot: what the short way is held to. */
void ty_json_push_long(lua_State *L, int idx);

#endif
