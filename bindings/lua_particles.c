/* bindings/lua_particles.c: tycho._particles, what scripts/tycho/particles.lua builds the
 * ParticleSystem component on.
 *
 * _particles.new(opts) -> Particles (a system; opts as the component takes them, checked
 * here so every message names the option), particles:configure(opts), :update(dt, x, y, z),
 * :emit(n, x, y, z), :count(), :emitted(), :maxParticles(), :position(i), :reset(),
 * :setVisible(bool), :writeInstances(), :destroy(); _particles.addPasses() declares the Particles pass over every visible system
 * of this state's renderer; _particles.drawn() counts what the last pass drew. */
#include "lua_particles.h"

#include <math.h>
#include <string.h>

#include "lua_render.h"              /* Required for: ty_lua_renderer, ty_test_texture */
#include "particles/particles.h"     /* Required for: ty_particles */
#include "render/particles_pass.h"   /* Required for: ty_render_add_particles */

#define TY_PARTICLES_TYPE "Particles"
#define DOT_SIZE 32u

typedef struct lparticles {
  ty_particles *ps; /* NULL once destroyed */
  ty_renderer *R;   /* the state's renderer: the pass draws a state's own systems only */
  uint32_t texture;
  ty_particles_blend blend;
  bool visible;
} lparticles;

/* Every live system of every state, for the pass to walk. */
static lparticles **live;
static uint32_t live_count, live_cap;

static const char *const OPTIONS[] = {"maxParticles", "rate", "lifetime", "speed", "direction", "spread",
                                      "dimensions", "gravity", "damping", "radius", "colors", "sizes",
                                      "seed", "texture", "blend", "emitting", NULL};
#define OPTION_LIST                                                                                           \
  "maxParticles, rate, lifetime, speed, direction, spread, dimensions, gravity, damping, radius, colors, " \
  "sizes, seed, texture, blend, emitting"

static lparticles *check_particles(lua_State *L, int idx) {
  lparticles *p = luaL_checkudata(L, idx, TY_PARTICLES_TYPE);
  if (!p->ps) luaL_error(L, "this particle system was destroyed");
  return p;
}

/* ---- options ------------------------------------------------------------------------- */

static float number_option(lua_State *L, const char *name, double min, const char *what) {
  double v = lua_tonumber(L, -1);
  if (!lua_isnumber(L, -1) || !isfinite(v) || v < min)
    luaL_error(L, "option '%s' must be %s, got %s", name, what,
               lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1));
  return (float)v;
}

/* A number, or {min, max} with min <= max, each at least `min`. */
static void range_option(lua_State *L, const char *name, double min, const char *what, float out[2]) {
  if (lua_type(L, -1) == LUA_TTABLE) {
    for (int i = 0; i < 2; i++) {
      lua_rawgeti(L, -1, i + 1);
      out[i] = number_option(L, name, min, what);
      lua_pop(L, 1);
    }
    if (out[1] < out[0]) luaL_error(L, "option '%s' must be {min, max} with min <= max", name);
    return;
  }
  if (!lua_isnumber(L, -1)) luaL_error(L, "option '%s' must be %s or {min, max}, got %s", name, what, luaL_typename(L, -1));
  out[0] = out[1] = number_option(L, name, min, what);
}

/* {x, y, z}, {x=, y=, z=} or a Vec3 (its fields read through the metatable). */
static void vec3_option(lua_State *L, const char *name, float out[3]) {
  int t = lua_type(L, -1);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA) luaL_error(L, "option '%s' must be {x, y, z}, got %s", name, luaL_typename(L, -1));
  static const char *const keys[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; i++) {
    /* {x, y, z} first; then {x=, y=, z=} or a Vec3's fields. */
    bool listed = t == LUA_TTABLE && lua_rawgeti(L, -1, i + 1) != LUA_TNIL;
    if (!listed) {
      if (t == LUA_TTABLE) lua_pop(L, 1);
      lua_getfield(L, -1, keys[i]);
    }
    if (!lua_isnumber(L, -1) || !isfinite(lua_tonumber(L, -1)))
      luaL_error(L, "option '%s' must be {x, y, z} of finite numbers", name);
    out[i] = (float)lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
}

static float srgb_to_linear(float c) { return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f); }

/* {r, g, b[, a]} or {r=, g=, b=[, a=]} in 0..1, sRGB as sprites take them, into linear rgba. */
static void color_option(lua_State *L, const char *name, float out[4]) {
  static const char *const keys[4] = {"r", "g", "b", "a"};
  if (lua_type(L, -1) != LUA_TTABLE) luaL_error(L, "option '%s' must hold colours {r, g, b[, a]}, got %s", name, luaL_typename(L, -1));
  for (int i = 0; i < 4; i++) {
    int t = lua_rawgeti(L, -1, i + 1);
    if (t == LUA_TNIL) {
      lua_pop(L, 1);
      t = lua_getfield(L, -1, keys[i]);
    }
    double v = i == 3 && t == LUA_TNIL ? 1.0 : lua_tonumber(L, -1);
    if ((t != LUA_TNIL || i < 3) && (!lua_isnumber(L, -1) || !isfinite(v)))
      luaL_error(L, "option '%s' must hold colours {r, g, b[, a]} of numbers", name);
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    out[i] = i < 3 ? srgb_to_linear((float)v) : (float)v;
    lua_pop(L, 1);
  }
}

/* A list of 1..TY_PARTICLES_MAX_KEYS entries; returns its length. */
static uint32_t key_count(lua_State *L, const char *name) {
  if (lua_type(L, -1) != LUA_TTABLE) luaL_error(L, "option '%s' must be a list, got %s", name, luaL_typename(L, -1));
  lua_Integer n = luaL_len(L, -1);
  if (n < 1 || n > TY_PARTICLES_MAX_KEYS)
    luaL_error(L, "option '%s' must list 1 to %d values, got %d", name, TY_PARTICLES_MAX_KEYS, (int)n);
  return (uint32_t)n;
}

/* Reads opts (the table at idx, or nil) over d and p's texture, blend and emission. */
static void parse_options(lua_State *L, int idx, ty_particles_desc *d, lparticles *p) {
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx)) luaL_error(L, "options must be a table, got %s", luaL_typename(L, idx));
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int which = -1;
    for (int i = 0; name && OPTIONS[i]; i++)
      if (!strcmp(name, OPTIONS[i])) which = i;
    if (which < 0) {
      lua_pushvalue(L, -2);
      luaL_error(L, "unknown option '%s' (the options are " OPTION_LIST ")", luaL_tolstring(L, -1, NULL));
    }
    switch (which) {
    case 0: { /* maxParticles */
      lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
      if (!lua_isinteger(L, -1) || n < 1)
        luaL_error(L, "option 'maxParticles' must be a positive integer, got %s",
                   lua_isnumber(L, -1) ? lua_tostring(L, -1) : luaL_typename(L, -1));
      d->max_particles = n > (lua_Integer)UINT32_MAX ? UINT32_MAX : (uint32_t)n;
      break;
    }
    case 1: d->rate = number_option(L, name, 0, "a number >= 0 (particles per second)"); break;
    case 2:
      range_option(L, name, 0, "a number > 0 (seconds)", d->lifetime);
      if (!(d->lifetime[0] > 0)) luaL_error(L, "option 'lifetime' must be a number > 0 (seconds), got 0");
      break;
    case 3: range_option(L, name, -HUGE_VAL, "a number (units per second)", d->speed); break;
    case 4: vec3_option(L, name, d->direction); break;
    case 5: d->spread = number_option(L, name, 0, "a number >= 0 (radians)"); break;
    case 6: {
      lua_Integer n = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
      if (n != 2 && n != 3) luaL_error(L, "option 'dimensions' must be 2 or 3, got %s", luaL_tolstring(L, -1, NULL));
      d->planar = n == 2;
      break;
    }
    case 7: vec3_option(L, name, d->gravity); break;
    case 8: d->damping = number_option(L, name, 0, "a number >= 0 (fraction of velocity lost per second)"); break;
    case 9: d->radius = number_option(L, name, 0, "a number >= 0"); break;
    case 10:
      d->color_count = key_count(L, name);
      for (uint32_t i = 0; i < d->color_count; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        color_option(L, name, d->colors[i]);
        lua_pop(L, 1);
      }
      break;
    case 11:
      d->size_count = key_count(L, name);
      for (uint32_t i = 0; i < d->size_count; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        d->sizes[i] = number_option(L, name, 0, "a list of numbers >= 0");
        lua_pop(L, 1);
      }
      break;
    case 12:
      if (!lua_isinteger(L, -1)) luaL_error(L, "option 'seed' must be an integer, got %s", luaL_typename(L, -1));
      d->seed = (uint64_t)lua_tointeger(L, -1);
      break;
    case 13:
      if (lua_toboolean(L, -1)) {
        uint32_t *tex = ty_test_texture(L, -1);
        if (!tex) luaL_error(L, "option 'texture' must be a Texture, got %s", luaL_typename(L, -1));
        p->texture = *tex;
      }
      break;
    case 14: {
      const char *b = lua_tostring(L, -1);
      if (b && !strcmp(b, "alpha")) p->blend = TY_PARTICLES_BLEND_ALPHA;
      else if (b && !strcmp(b, "additive")) p->blend = TY_PARTICLES_BLEND_ADDITIVE;
      else luaL_error(L, "option 'blend' must be \"alpha\" or \"additive\", got %s", luaL_tolstring(L, -1, NULL));
      break;
    }
    case 15:
      if (!lua_isboolean(L, -1)) luaL_error(L, "option 'emitting' must be a boolean, got %s", luaL_typename(L, -1));
      d->stopped = !lua_toboolean(L, -1);
      break;
    }
    lua_pop(L, 1);
  }
}

/* The soft round dot a system without a texture draws: made once per renderer. */
static uint32_t dot_texture(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, "tycho.particles.dot") == LUA_TNUMBER) {
    uint32_t id = (uint32_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return id;
  }
  lua_pop(L, 1);
  uint8_t px[DOT_SIZE * DOT_SIZE * 4];
  for (uint32_t y = 0; y < DOT_SIZE; y++)
    for (uint32_t x = 0; x < DOT_SIZE; x++) {
      float dx = ((float)x + 0.5f) / DOT_SIZE * 2 - 1, dy = ((float)y + 0.5f) / DOT_SIZE * 2 - 1;
      float r = sqrtf(dx * dx + dy * dy), a = r >= 1 ? 0 : 1 - r * r;
      uint8_t *o = px + (y * DOT_SIZE + x) * 4;
      o[0] = o[1] = o[2] = 255;
      o[3] = (uint8_t)(a * a * 255.0f + 0.5f);
    }
  uint32_t id = ty_render_add_texture(ty_lua_renderer(L), DOT_SIZE, DOT_SIZE, px, "particles.dot");
  lua_pushinteger(L, id);
  lua_setfield(L, LUA_REGISTRYINDEX, "tycho.particles.dot");
  return id;
}

/* ---- the system ---------------------------------------------------------------------- */

/* _particles.new(opts) -> Particles */
static int p_new(lua_State *L) {
  ty_particles_desc d = {.lifetime = {1, 1}, .direction = {0, 1, 0}};
  lparticles tmp = {.texture = UINT32_MAX};
  parse_options(L, 1, &d, &tmp);
  if (tmp.texture == UINT32_MAX) tmp.texture = dot_texture(L);
  lparticles *p = lua_newuserdatauv(L, sizeof *p, 0);
  *p = tmp;
  p->R = ty_lua_renderer(L);
  p->visible = true;
  p->ps = ty_particles_create(&d);
  TY_GROW(live, live_cap, live_count + 1);
  live[live_count++] = p;
  luaL_setmetatable(L, TY_PARTICLES_TYPE);
  return 1;
}

/* particles:configure(opts): the given options replace theirs; the others stay. */
static int p_configure(lua_State *L) {
  lparticles *p = check_particles(L, 1);
  ty_particles_desc d = *ty_particles_get_desc(p->ps);
  lparticles tmp = *p;
  parse_options(L, 2, &d, &tmp);
  p->texture = tmp.texture, p->blend = tmp.blend;
  ty_particles_configure(p->ps, &d);
  return 0;
}

static void check_origin(lua_State *L, int idx, float out[3]) {
  for (int i = 0; i < 3; i++) out[i] = (float)luaL_optnumber(L, idx + i, 0);
}

/* particles:update(dt, x, y, z) */
static int p_update(lua_State *L) {
  lparticles *p = check_particles(L, 1);
  lua_Number dt = luaL_checknumber(L, 2);
  float o[3];
  check_origin(L, 3, o);
  ty_particles_update(p->ps, (float)dt, o);
  return 0;
}

/* particles:emit(n, x, y, z) -> how many fit */
static int p_emit(lua_State *L) {
  lparticles *p = check_particles(L, 1);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 0, 2, "count must be >= 0");
  float o[3];
  check_origin(L, 3, o);
  lua_pushinteger(L, ty_particles_emit(p->ps, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, o));
  return 1;
}

static int p_count(lua_State *L) {
  lua_pushinteger(L, ty_particles_count(check_particles(L, 1)->ps));
  return 1;
}

static int p_emitted(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)ty_particles_emitted(check_particles(L, 1)->ps));
  return 1;
}

static int p_max(lua_State *L) {
  lua_pushinteger(L, ty_particles_get_desc(check_particles(L, 1)->ps)->max_particles);
  return 1;
}

/* particles:position(i) -> x, y, z of the i-th live particle (1-based), or nil */
static int p_position(lua_State *L) {
  lparticles *p = check_particles(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  float v[3];
  if (i < 1 || i > UINT32_MAX || !ty_particles_position(p->ps, (uint32_t)(i - 1), v)) return 0;
  for (int k = 0; k < 3; k++) lua_pushnumber(L, v[k]);
  return 3;
}

/* particles:writeInstances() -> count: writes the draw instances into a scratch buffer,
 * as the pass does when it is declared (benchmarks time the CPU side of drawing). */
static int p_write_instances(lua_State *L) {
  static ty_particle_instance *scratch;
  static uint32_t scratch_cap;
  lparticles *p = check_particles(L, 1);
  uint32_t n = ty_particles_count(p->ps);
  if (n) TY_GROW(scratch, scratch_cap, n);
  lua_pushinteger(L, n ? ty_particles_write_instances(p->ps, scratch) : 0);
  return 1;
}

static int p_reset(lua_State *L) {
  ty_particles_reset(check_particles(L, 1)->ps);
  return 0;
}

static int p_set_visible(lua_State *L) {
  check_particles(L, 1)->visible = lua_toboolean(L, 2);
  return 0;
}

/* Frees the pool now (the component's onDestroy); __gc does it otherwise. */
static int p_destroy(lua_State *L) {
  lparticles *p = luaL_checkudata(L, 1, TY_PARTICLES_TYPE);
  if (!p->ps) return 0;
  for (uint32_t i = 0; i < live_count; i++)
    if (live[i] == p) {
      live[i] = live[--live_count];
      break;
    }
  ty_particles_destroy(p->ps);
  p->ps = NULL;
  return 0;
}

static int p_tostring(lua_State *L) {
  lparticles *p = luaL_checkudata(L, 1, TY_PARTICLES_TYPE);
  if (p->ps) lua_pushfstring(L, "Particles (%d live)", (int)ty_particles_count(p->ps));
  else lua_pushliteral(L, "Particles (destroyed)");
  return 1;
}

/* ---- the pass -------------------------------------------------------------------------- */

/* _particles.addPasses(): the Particles feature's addPasses. */
static int p_add_passes(lua_State *L) {
  ty_renderer *R = ty_lua_renderer(L);
  ty_frame *F = ty_render_frame_current(R);
  if (!F) return luaL_error(L, "Particles: addPasses outside a frame");
  static ty_particles_batch *batches; /* grown, never shrunk: no allocation a frame */
  static uint32_t batch_cap;
  if (live_count) TY_GROW(batches, batch_cap, live_count);
  uint32_t n = 0;
  for (uint32_t i = 0; i < live_count; i++) {
    const lparticles *p = live[i];
    if (p->R != R || !p->visible || !ty_particles_count(p->ps)) continue;
    batches[n++] = (ty_particles_batch){p->ps, p->texture, p->blend};
  }
  if (!ty_render_add_particles(R, F, batches, n)) return luaL_error(L, "%s", ty_render_error(R));
  return 0;
}

/* _particles.drawn() -> particles the last pass drew */
static int p_drawn(lua_State *L) {
  lua_pushinteger(L, ty_render_particles_drawn(ty_lua_renderer(L)));
  return 1;
}

void ty_open_particles(lua_State *L) {
  static const luaL_Reg methods[] = {{"configure", p_configure}, {"update", p_update},   {"emit", p_emit},
                                     {"count", p_count},         {"emitted", p_emitted}, {"maxParticles", p_max},
                                     {"position", p_position},   {"reset", p_reset},     {"setVisible", p_set_visible},
                                     {"destroy", p_destroy},     {"writeInstances", p_write_instances},
                                     {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__gc", p_destroy}, {"__tostring", p_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_PARTICLES_TYPE, meta, methods);
  static const luaL_Reg fns[] = {{"new", p_new}, {"addPasses", p_add_passes}, {"drawn", p_drawn}, {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "_particles");
}
