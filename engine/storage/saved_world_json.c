/* engine/storage/saved_world_json.c: crafty's SavedWorld (saved_world_record.h) as JSON:
 * the shape crafty's first version saved a world in, which export and import write and
 * read, and the inventory column's text. Records of an older format are upgraded as they
 * are read. It knows the record, not the store it is kept in. */
#include "saved_world_json_internal.h"
#include "saved_world_record_internal.h"

#include <jansson.h>
#include <math.h>

static json_t *number_json(double v) {
  if (v == floor(v) && fabs(v) < 9007199254740992.0) return json_integer((json_int_t)v);
  return json_real(v);
}

static json_t *inventory_to_json(const ty_storage_inventory *inv) {
  json_t *stacks = json_array(), *hotbar = json_array();
  for (uint32_t i = 0; i < inv->nstacks; i++)
    json_array_append_new(stacks, json_pack("{s:I, s:I}", "blockType", (json_int_t)inv->stacks[i].block_type,
                                            "count", (json_int_t)inv->stacks[i].count));
  for (uint32_t i = 0; i < inv->nhotbar; i++) json_array_append_new(hotbar, json_integer(inv->hotbar[i]));
  return json_pack("{s:o, s:o}", "stacks", stacks, "hotbar", hotbar);
}

static bool json_int32(json_t *v, int32_t *out) {
  double d;
  if (json_is_integer(v)) d = (double)json_integer_value(v);
  else if (json_is_real(v)) d = json_real_value(v);
  else return false;
  if (d != floor(d) || d < -2147483648.0 || d > 2147483647.0) return false;
  *out = (int32_t)d;
  return true;
}

static bool json_num(json_t *v, double *out) {
  if (!json_is_number(v)) return false;
  *out = json_number_value(v);
  return isfinite(*out);
}

/* Parses {stacks = [{blockType, count}], hotbar = [types]} into *inv (owned). */
static bool inventory_from_json(json_t *j, ty_storage_inventory *inv, char *why, size_t whysz) {
  memset(inv, 0, sizeof *inv);
  json_t *stacks = json_object_get(j, "stacks"), *hotbar = json_object_get(j, "hotbar");
  if (!json_is_object(j) || (stacks && !json_is_array(stacks)) || (hotbar && !json_is_array(hotbar))) {
    snprintf(why, whysz, "inventory must be {stacks = [...], hotbar = [...]}");
    return false;
  }
  size_t ns = json_array_size(stacks), nh = json_array_size(hotbar);
  ty_storage_stack *s = ns ? TY_MALLOC(sizeof *s * ns) : NULL;
  int32_t *h = nh ? TY_MALLOC(sizeof *h * nh) : NULL;
  inv->present = true;
  inv->stacks = s, inv->nstacks = (uint32_t)ns;
  inv->hotbar = h, inv->nhotbar = (uint32_t)nh;
  for (size_t i = 0; i < ns; i++) {
    json_t *st = json_array_get(stacks, i);
    if (!json_int32(json_object_get(st, "blockType"), &s[i].block_type) ||
        !json_int32(json_object_get(st, "count"), &s[i].count)) {
      snprintf(why, whysz, "inventory.stacks[%zu] needs integer blockType and count", i + 1);
      sw_inventory_free(inv);
      return false;
    }
  }
  for (size_t i = 0; i < nh; i++) {
    json_t *v = json_array_get(hotbar, i);
    if (json_is_null(v)) h[i] = 0; /* an empty slot */
    else if (!json_int32(v, &h[i])) {
      snprintf(why, whysz, "inventory.hotbar[%zu] must be an integer block type", i + 1);
      sw_inventory_free(inv);
      return false;
    }
  }
  return true;
}

char *sw_inventory_text(const ty_storage_inventory *inv) {
  if (!inv->present) return NULL;
  json_t *j = inventory_to_json(inv);
  char *text = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  return text;
}

bool sw_inventory_parse(const char *text, size_t len, ty_storage_inventory *inv) {
  memset(inv, 0, sizeof *inv);
  json_t *j = json_loadb(text, len, 0, NULL);
  char why[160];
  bool ok = j && inventory_from_json(j, inv, why, sizeof why);
  json_decref(j);
  return ok;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_encode(const unsigned char *src, size_t n, const char *prefix) {
  size_t pl = strlen(prefix), len = pl + (n + 2) / 3 * 4;
  char *out = TY_MALLOC(len + 1), *o = out + pl;
  TY_ASSERT(out);
  memcpy(out, prefix, pl);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)src[i] << 16 | (i + 1 < n ? (uint32_t)src[i + 1] << 8 : 0) | (i + 2 < n ? src[i + 2] : 0);
    *o++ = b64[v >> 18 & 63];
    *o++ = b64[v >> 12 & 63];
    *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
    *o++ = i + 2 < n ? b64[v & 63] : '=';
  }
  *o = 0;
  return out;
}

/* Decodes base64 (padding optional); NULL on a bad character. */
static unsigned char *base64_decode(const char *s, size_t *n) {
  size_t len = strlen(s);
  unsigned char *out = TY_MALLOC(len / 4 * 3 + 3);
  TY_ASSERT(out);
  uint32_t acc = 0;
  int bits = 0;
  size_t k = 0;
  for (size_t i = 0; i < len && s[i] != '='; i++) {
    const char *p = s[i] ? strchr(b64, s[i]) : NULL;
    if (!p) {
      TY_FREE(out);
      return NULL;
    }
    acc = acc << 6 | (uint32_t)(p - b64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (unsigned char)(acc >> bits);
    }
  }
  *n = k;
  return out;
}

#define PNG_DATA_URL "data:image/png;base64,"

char *ty_storage_world_to_json(const ty_storage_world *w) {
  json_t *edits = json_array();
  for (uint32_t i = 0; i < w->nedits; i++)
    json_array_append_new(edits, json_pack("{s:i, s:i, s:i, s:i}", "x", w->edits[i].x, "y", w->edits[i].y, "z",
                                           w->edits[i].z, "type", w->edits[i].type));
  json_t *seed = w->seed.kind == TY_STORAGE_SEED_TEXT      ? json_string(w->seed.text ? w->seed.text : "")
                 : w->seed.kind == TY_STORAGE_SEED_INTEGER ? json_integer((json_int_t)w->seed.integer)
                                                           : json_real(w->seed.number);
  json_t *j = json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o}, s:o, s:I}", "id", w->id,
                        "name", w->name, "seed", seed, "gameMode", w->game_mode, "createdAt",
                        number_json(w->created_at), "lastPlayedAt", number_json(w->last_played_at), "edits", edits,
                        "player", "x", number_json(w->player.x), "y", number_json(w->player.y), "z",
                        number_json(w->player.z), "yaw", number_json(w->player.yaw), "pitch",
                        number_json(w->player.pitch), "sunAngle", number_json(w->sun_angle), "version",
                        (json_int_t)w->version);
  if (!j) return NULL;
  if (w->has_moon_phase) json_object_set_new(j, "moonPhase", number_json(w->moon_phase));
  if (w->inventory.present) json_object_set_new(j, "inventory", inventory_to_json(&w->inventory));
  if (w->screenshot) {
    char *url = base64_encode(w->screenshot, w->screenshot_len, PNG_DATA_URL);
    json_object_set_new(j, "screenshot", json_string(url));
    TY_FREE(url);
  }
  char *text = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  return text;
}

/* Older records lacked fields that format 2 has: format 1 had no gameMode, sunAngle or
 * moonPhase. Upgrading fills the seed's defaults. */
ty_storage_status ty_storage_world_from_json(const char *text, size_t len, ty_storage_world *out, char *err,
                                             size_t errsz) {
  memset(out, 0, sizeof *out);
  json_error_t je;
  json_t *j = json_loadb(text, len, 0, &je);
  if (!j) return ty_store_fail(err, errsz, "storage_bad_json", "not JSON: %s (line %d)", je.text, je.line);
  char why[200] = "";
  json_t *v;
  json_t *ver = json_object_get(j, "version");
  int64_t version = 1;
  if (!json_is_object(j)) snprintf(why, sizeof why, "a world must be a JSON object");
  else if (ver && !json_is_integer(ver)) snprintf(why, sizeof why, "version must be an integer");
  if (ver && json_is_integer(ver)) version = json_integer_value(ver);
  if (!why[0] && version > TY_STORAGE_FORMAT_VERSION) {
    json_decref(j);
    return ty_store_fail(err, errsz, "storage_newer_format",
                         "world has format version %lld, newer than this tycho's %d: refused", (long long)version,
                         TY_STORAGE_FORMAT_VERSION);
  }
  if (!why[0] && (!json_is_string(json_object_get(j, "id")) || !json_is_string(json_object_get(j, "name"))))
    snprintf(why, sizeof why, "id and name must be strings");
  if (!why[0]) {
    out->id = sw_dup_str(json_string_value(json_object_get(j, "id")));
    out->name = sw_dup_str(json_string_value(json_object_get(j, "name")));
    v = json_object_get(j, "gameMode");
    if (v && !json_is_string(v)) snprintf(why, sizeof why, "gameMode must be a string");
    out->game_mode = sw_dup_str(v ? json_string_value(v) : "creative");
    v = json_object_get(j, "seed");
    if (json_is_string(v)) out->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_TEXT, .text = sw_dup_str(json_string_value(v))};
    else if (json_is_integer(v)) out->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_INTEGER, .integer = json_integer_value(v)};
    else if (json_is_real(v)) out->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_NUMBER, .number = json_real_value(v)};
    else snprintf(why, sizeof why, "seed must be a number or a string");
  }
  if (!why[0] && (!json_num(json_object_get(j, "createdAt"), &out->created_at) ||
                  !json_num(json_object_get(j, "lastPlayedAt"), &out->last_played_at)))
    snprintf(why, sizeof why, "createdAt and lastPlayedAt must be numbers");
  json_t *p = json_object_get(j, "player");
  if (!why[0] && (!json_num(json_object_get(p, "x"), &out->player.x) || !json_num(json_object_get(p, "y"), &out->player.y) ||
                  !json_num(json_object_get(p, "z"), &out->player.z) ||
                  !json_num(json_object_get(p, "yaw"), &out->player.yaw) ||
                  !json_num(json_object_get(p, "pitch"), &out->player.pitch)))
    snprintf(why, sizeof why, "player must be {x, y, z, yaw, pitch} numbers");
  out->sun_angle = 3.14159265358979323846 * 0.3;
  if (!why[0] && (v = json_object_get(j, "sunAngle")) && !json_num(v, &out->sun_angle))
    snprintf(why, sizeof why, "sunAngle must be a number");
  if (!why[0] && (v = json_object_get(j, "moonPhase")) && !json_is_null(v)) {
    out->has_moon_phase = json_num(v, &out->moon_phase);
    if (!out->has_moon_phase) snprintf(why, sizeof why, "moonPhase must be a number");
  }
  if (!why[0] && (v = json_object_get(j, "inventory")) && !json_is_null(v))
    inventory_from_json(v, &out->inventory, why, sizeof why);
  if (!why[0] && (v = json_object_get(j, "screenshot")) && !json_is_null(v)) {
    const char *s = json_string_value(v);
    const char *comma = s ? strchr(s, ',') : NULL;
    if (s && strncmp(s, "data:", 5) == 0 && comma) s = comma + 1; /* a data: URL, as the seed kept it */
    size_t n = 0;
    out->screenshot = s ? base64_decode(s, &n) : NULL;
    out->screenshot_len = n;
    if (!out->screenshot) snprintf(why, sizeof why, "screenshot must be base64 PNG bytes or a data: URL");
  }
  json_t *edits = json_object_get(j, "edits");
  if (!why[0] && edits && !json_is_array(edits)) snprintf(why, sizeof why, "edits must be an array");
  if (!why[0] && json_array_size(edits) > 0) {
    size_t n = json_array_size(edits);
    ty_storage_edit *e = TY_MALLOC(sizeof *e * n);
    TY_ASSERT(e);
    out->edits = e;
    out->nedits = (uint32_t)n;
    for (size_t i = 0; i < n && !why[0]; i++) {
      json_t *ed = json_array_get(edits, i);
      if (!json_int32(json_object_get(ed, "x"), &e[i].x) || !json_int32(json_object_get(ed, "y"), &e[i].y) ||
          !json_int32(json_object_get(ed, "z"), &e[i].z) || !json_int32(json_object_get(ed, "type"), &e[i].type))
        snprintf(why, sizeof why, "edits[%zu] must be {x, y, z, type} integers", i + 1);
    }
  }
  out->version = TY_STORAGE_FORMAT_VERSION;
  json_decref(j);
  if (why[0]) {
    ty_storage_world_free(out);
    return ty_store_fail(err, errsz, "storage_bad_record", "not a saved world: %s", why);
  }
  return TY_STORAGE_OK;
}
