/* bindings/lua_audio.c: tycho.audio (clips, one-shot voices, master volume, headless
 * render) and tycho._audio, the sources scripts/tycho/audio.lua builds the AudioSource and
 * AudioListener components on. */
#include "lua_audio.h"
#include "lua_scene.h" /* Required for: ty_lctx_get, ty_check_gameobject */

#include <math.h>
#include <string.h>

#define TY_CLIP "AudioClip"
#define TY_VOICE "Voice"
#define TY_SOURCE_HANDLE "tycho.AudioSourceHandle"

typedef struct audio_box {
  ty_audio *A;             /* NULL until first use, and after the state closes */
  ty_audio_output output;  /* what first use opens */
} audio_box;

typedef struct clip_box {
  ty_clip clip;
} clip_box;

typedef struct source_box {
  ty_source src;
} source_box;

static audio_box *box_of(lua_State *L) { return ty_ctx_get(L)->audio; }

/* The state's audio, opened on first use. */
static ty_audio *audio_of(lua_State *L) {
  audio_box *b = box_of(L);
  TY_ASSERT(b);
  if (!b->A) b->A = ty_audio_create(&(ty_audio_desc){.output = b->output});
  return b->A;
}

void ty_lua_audio_use_device(lua_State *L) {
  audio_box *b = box_of(L);
  if (b && !b->A) b->output = TY_AUDIO_DEVICE;
}

static int box_gc(lua_State *L) {
  audio_box *b = lua_touserdata(L, 1);
  ty_audio_destroy(b->A);
  b->A = NULL;
  return 0;
}

/* ---- option tables ---- */

/* opts[key] as a number (def when absent); raises naming argument arg and the key. */
static float opt_number(lua_State *L, int arg, const char *key, float def, float lo, bool lo_open) {
  int t = lua_getfield(L, arg, key);
  float v = def;
  if (t != LUA_TNIL) {
    if (t != LUA_TNUMBER) {
      lua_pushfstring(L, "%s must be a number, got %s", key, luaL_typename(L, -1));
      luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    double d = lua_tonumber(L, -1);
    if (!(lo_open ? d > lo : d >= lo) || !isfinite(d)) {
      lua_pushfstring(L, "%s must be %s %f, got %f", key, lo_open ? ">" : ">=", (double)lo, d);
      luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    v = (float)d;
  }
  lua_pop(L, 1);
  return v;
}

static bool opt_bool(lua_State *L, int arg, const char *key, bool def) {
  int t = lua_getfield(L, arg, key);
  bool v = t == LUA_TNIL ? def : lua_toboolean(L, -1);
  if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
    lua_pushfstring(L, "%s must be a boolean, got %s", key, luaL_typename(L, -1));
    luaL_argerror(L, arg, lua_tostring(L, -1));
  }
  lua_pop(L, 1);
  return v;
}

/* Reads the source options of the table at arg into p (absent keys: the defaults). */
static void read_params(lua_State *L, int arg, ty_source_params *p, bool spatial_default) {
  p->volume = opt_number(L, arg, "volume", 1, 0, false);
  p->pitch = opt_number(L, arg, "pitch", 1, 0, true);
  p->loop = opt_bool(L, arg, "loop", false);
  p->spatial = opt_bool(L, arg, "spatial", spatial_default);
  p->min_distance = opt_number(L, arg, "minDistance", 1, 0, true);
  p->max_distance = opt_number(L, arg, "maxDistance", 100, 0, true);
  p->rolloff = opt_number(L, arg, "rolloff", 1, 0, false);
  if (p->max_distance < p->min_distance) luaL_argerror(L, arg, "maxDistance must be >= minDistance");
}

/* ---- clips ---- */

static clip_box *check_clip(lua_State *L, int idx) { return luaL_checkudata(L, idx, TY_CLIP); }

/* tycho.audio.load(path [, {stream=false}]) -> AudioClip, or nil, message */
static int a_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  bool stream = false;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    stream = opt_bool(L, 2, "stream", false);
  }
  char err[512];
  ty_clip c = ty_audio_clip_load(audio_of(L), path, stream, err, sizeof err);
  if (!c.id) {
    return ty_fail(L, "%s", err);
  }
  clip_box *b = lua_newuserdatauv(L, sizeof *b, 1);
  b->clip = c;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, TY_CLIP);
  return 1;
}

static int clip_index(lua_State *L) {
  clip_box *b = check_clip(L, 1);
  const char *k = luaL_checkstring(L, 2);
  ty_clip_info info = {0};
  audio_box *ab = box_of(L);
  if (ab && ab->A) ty_audio_clip_info(ab->A, b->clip, &info);
  if (!strcmp(k, "duration")) lua_pushnumber(L, info.duration);
  else if (!strcmp(k, "channels")) lua_pushinteger(L, info.channels);
  else if (!strcmp(k, "sampleRate")) lua_pushinteger(L, info.sample_rate);
  else if (!strcmp(k, "stream")) lua_pushboolean(L, info.stream);
  else if (!strcmp(k, "path")) lua_getiuservalue(L, 1, 1);
  else lua_pushnil(L);
  return 1;
}

static int clip_gc(lua_State *L) {
  clip_box *b = lua_touserdata(L, 1);
  audio_box *ab = box_of(L);
  if (ab && ab->A) ty_audio_clip_unload(ab->A, b->clip);
  b->clip.id = 0;
  return 0;
}

static int clip_tostring(lua_State *L) {
  lua_getiuservalue(L, 1, 1);
  lua_pushfstring(L, "AudioClip(%s)", lua_tostring(L, -1));
  return 1;
}

/* ---- one-shot voices ---- */

/* tycho.audio.play(clip [, {volume=, pitch=, position=}]) -> Voice */
static int a_play(lua_State *L) {
  clip_box *c = check_clip(L, 1);
  ty_source_params p;
  float pos[3] = {0, 0, 0};
  bool spatial = false;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    read_params(L, 2, &p, false);
    if (lua_getfield(L, 2, "position") != LUA_TNIL) {
      int t = lua_gettop(L);
      if (lua_istable(L, t) && !ty_is_vec3(L, t)) {
        for (int k = 0; k < 3; k++) {
          if (lua_rawgeti(L, t, k + 1) != LUA_TNUMBER) {
            lua_pop(L, 1);
            lua_getfield(L, t, (const char *[]){"x", "y", "z"}[k]);
          }
          if (!lua_isnumber(L, -1)) luaL_argerror(L, 2, "position must be a Vec3 or {x, y, z}");
          pos[k] = (float)lua_tonumber(L, -1);
          lua_pop(L, 1);
        }
      } else if (ty_is_vec3(L, t)) {
        ty_read_vec3(L, t, pos);
      } else {
        luaL_argerror(L, 2, "position must be a Vec3 or {x, y, z}");
      }
      spatial = true;
    }
    lua_pop(L, 1);
  } else {
    p = (ty_source_params){1, 1, false, false, 1, 100, 1};
  }
  p.spatial = spatial;
  p.loop = false;
  ty_audio *A = audio_of(L);
  ty_source s = ty_audio_source_create(A, c->clip, 0, &p);
  if (s.id) {
    ty_audio_source_set_position(A, s, pos);
    ty_audio_source_set_oneshot(A, s);
    ty_audio_source_play(A, s);
  }
  source_box *v = lua_newuserdatauv(L, sizeof *v, 0);
  v->src = s;
  luaL_setmetatable(L, TY_VOICE);
  return 1;
}

static int voice_stop(lua_State *L) {
  source_box *v = luaL_checkudata(L, 1, TY_VOICE);
  ty_audio_source_stop(audio_of(L), v->src);
  return 0;
}

static int voice_index(lua_State *L) {
  source_box *v = luaL_checkudata(L, 1, TY_VOICE);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "isPlaying")) lua_pushboolean(L, ty_audio_source_playing(audio_of(L), v->src));
  else if (!strcmp(k, "stop")) lua_pushcfunction(L, voice_stop);
  else lua_pushnil(L);
  return 1;
}

/* ---- master volume, render, stats ---- */

/* tycho.audio.volume([v]) -> the master gain (set first when v is given) */
static int a_volume(lua_State *L) {
  ty_audio *A = audio_of(L);
  if (!lua_isnoneornil(L, 1)) {
    lua_Number v = luaL_checknumber(L, 1);
    luaL_argcheck(L, v >= 0 && v <= 1, 1, "volume must be in 0..1");
    ty_audio_set_master(A, (float)v);
  }
  lua_pushnumber(L, ty_audio_master(A));
  return 1;
}

/* tycho.audio.__newindex: `tycho.audio.volume = v` sets the master gain too. */
static int a_newindex(lua_State *L) {
  if (lua_type(L, 2) == LUA_TSTRING && !strcmp(lua_tostring(L, 2), "volume") && lua_type(L, 3) == LUA_TNUMBER) {
    lua_Number v = lua_tonumber(L, 3);
    if (!(v >= 0 && v <= 1)) return luaL_error(L, "tycho.audio.volume must be in 0..1, got %f", v);
    ty_audio_set_master(audio_of(L), (float)v);
    return 0;
  }
  lua_rawset(L, 1);
  return 0;
}

static void sync_world(lua_State *L) {
  ty_world *W = ty_lctx_get(L)->world;
  ty_transforms_sync(ty_world_transforms(W));
}

/* _audio.render(seconds) -> pcm, sampleRate: the spatial sources and the listener placed,
 * then exactly that long mixed (interleaved stereo float32, little-endian). */
static int a_render(lua_State *L) {
  lua_Number secs = luaL_checknumber(L, 1);
  luaL_argcheck(L, secs >= 0 && secs <= 3600, 1, "seconds must be in 0..3600");
  ty_audio *A = audio_of(L);
  if (ty_audio_output_kind(A) != TY_AUDIO_LOOPBACK) {
    return ty_fail(L, "%s", ty_audio_output_kind(A) == TY_AUDIO_DEVICE
                          ? "tycho.audio.render mixes only headless (this run plays through the audio device)"
                          : "no audio mixer here (see the audio_unavailable line)");
  }
  sync_world(L);
  ty_audio_update(A, ty_lctx_get(L)->world, 0);
  uint32_t rate = ty_audio_sample_rate(A);
  uint32_t frames = (uint32_t)llround(secs * rate);
  luaL_Buffer b;
  /* x86 and ARM Linux are little-endian: the floats go out as they lie in memory. */
  float *out = (float *)luaL_buffinitsize(L, &b, (size_t)frames * 2 * sizeof(float) + 1);
  ty_audio_render(A, out, frames);
  luaL_pushresultsize(&b, (size_t)frames * 2 * sizeof(float));
  lua_pushinteger(L, rate);
  return 2;
}

/* _audio.update(dt): the once-a-frame placement (engine:step calls it) */
static int a_update(lua_State *L) {
  lua_Number dt = luaL_checknumber(L, 1);
  audio_box *b = box_of(L);
  if (!b->A) return 0; /* nothing opened the audio: nothing to place */
  sync_world(L);
  ty_audio_update(b->A, ty_lctx_get(L)->world, dt > 0 ? dt : 0);
  return 0;
}

static int a_opened(lua_State *L) {
  audio_box *b = box_of(L);
  lua_pushboolean(L, b->A != NULL);
  return 1;
}

/* _audio.setListener(gameObject or nil) */
static int a_set_listener(lua_State *L) {
  ty_id id = lua_isnoneornil(L, 1) ? 0 : ty_check_gameobject(L, 1);
  ty_audio_set_listener(audio_of(L), id);
  return 0;
}

/* tycho.audio.stats() -> {sources=, playing=, voices=, maxVoices=, clips=, steals=, waits=, output=} */
static int a_stats(lua_State *L) {
  ty_audio *A = audio_of(L);
  ty_audio_stats s = ty_audio_get_stats(A);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, s.sources);
  lua_setfield(L, -2, "sources");
  lua_pushinteger(L, s.playing);
  lua_setfield(L, -2, "playing");
  lua_pushinteger(L, s.voices_busy);
  lua_setfield(L, -2, "voices");
  lua_pushinteger(L, s.max_voices);
  lua_setfield(L, -2, "maxVoices");
  lua_pushinteger(L, s.clips);
  lua_setfield(L, -2, "clips");
  lua_pushinteger(L, (lua_Integer)s.steals);
  lua_setfield(L, -2, "steals");
  lua_pushinteger(L, (lua_Integer)s.waits);
  lua_setfield(L, -2, "waits");
  const char *kinds[] = {"loopback", "device", "none"};
  lua_pushstring(L, kinds[ty_audio_output_kind(A)]);
  lua_setfield(L, -2, "output");
  return 1;
}

/* _audio.reloadFile(path) -> count reloaded (false: no clip from path), or nil, message */
static int a_reload_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  audio_box *b = box_of(L);
  if (!b->A) {
    lua_pushboolean(L, 0);
    return 1;
  }
  char err[512];
  int n = ty_audio_reload_file(b->A, path, err, sizeof err);
  if (n < 0) {
    return ty_fail(L, "%s", err);
  }
  if (n == 0) lua_pushboolean(L, 0);
  else lua_pushinteger(L, n);
  return 1;
}

/* ---- sources for the AudioSource component ---- */

static source_box *check_source(lua_State *L, int idx) { return luaL_checkudata(L, idx, TY_SOURCE_HANDLE); }

/* _audio.source(opts) -> handle: a source with no clip and no object */
static int a_source(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  ty_source_params p;
  read_params(L, 1, &p, true);
  source_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->src = ty_audio_source_create(audio_of(L), (ty_clip){0}, 0, &p);
  luaL_setmetatable(L, TY_SOURCE_HANDLE);
  return 1;
}

static int s_gc(lua_State *L) {
  source_box *b = lua_touserdata(L, 1);
  audio_box *ab = box_of(L);
  if (ab && ab->A) ty_audio_source_destroy(ab->A, b->src);
  b->src.id = 0;
  return 0;
}

/* handle:setParams(opts): raises naming argument 1 of `name` (the caller's function). */
static int s_set_params(lua_State *L) {
  source_box *b = check_source(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  ty_source_params p;
  read_params(L, 2, &p, true);
  ty_audio_source_set_params(audio_of(L), b->src, &p);
  return 0;
}

static int s_set_clip(lua_State *L) {
  source_box *b = check_source(L, 1);
  ty_clip c = {0};
  if (!lua_isnoneornil(L, 2)) c = check_clip(L, 2)->clip;
  ty_audio_source_set_clip(audio_of(L), b->src, c);
  return 0;
}

/* handle:attach(gameObject or nil): the object whose world position it sounds from. */
static int s_attach(lua_State *L) {
  source_box *b = check_source(L, 1);
  ty_audio *A = audio_of(L);
  ty_id id = lua_isnoneornil(L, 2) ? 0 : ty_check_gameobject(L, 2);
  ty_audio_source_attach(A, b->src, id);
  if (id) {
    /* Where it is now (its own chain read back), so a play before the next frame is
     * ranked for a voice by its real distance. */
    const float *m = ty_lua_world_matrix(L, id);
    ty_audio_source_set_position(A, b->src, (const float[3]){m[12], m[13], m[14]});
  }
  return 0;
}

static int s_play(lua_State *L) {
  ty_audio_source_play(audio_of(L), check_source(L, 1)->src);
  return 0;
}
static int s_stop(lua_State *L) {
  ty_audio_source_stop(audio_of(L), check_source(L, 1)->src);
  return 0;
}
static int s_pause(lua_State *L) {
  ty_audio_source_pause(audio_of(L), check_source(L, 1)->src);
  return 0;
}
static int s_resume(lua_State *L) {
  ty_audio_source_resume(audio_of(L), check_source(L, 1)->src);
  return 0;
}
static int s_playing(lua_State *L) {
  lua_pushboolean(L, ty_audio_source_playing(audio_of(L), check_source(L, 1)->src));
  return 1;
}
static int s_paused(lua_State *L) {
  lua_pushboolean(L, ty_audio_source_paused(audio_of(L), check_source(L, 1)->src));
  return 1;
}
static int s_time(lua_State *L) {
  lua_pushnumber(L, ty_audio_source_time(audio_of(L), check_source(L, 1)->src));
  return 1;
}

/* ---- opening ---- */

void ty_open_audio(lua_State *L) {
  audio_box *b = ty_ctx_part(L, sizeof *b, box_gc);
  b->output = TY_AUDIO_LOOPBACK;
  ty_ctx_get(L)->audio = b;

  static const luaL_Reg clip_meta[] = {
      {"__index", clip_index}, {"__gc", clip_gc}, {"__tostring", clip_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_CLIP, clip_meta, NULL);
  static const luaL_Reg voice_meta[] = {{"__index", voice_index}, {NULL, NULL}};
  ty_type_register(L, TY_VOICE, voice_meta, NULL);
  static const luaL_Reg source_meta[] = {{"__gc", s_gc}, {NULL, NULL}};
  static const luaL_Reg source_methods[] = {
      {"setParams", s_set_params}, {"setClip", s_set_clip}, {"attach", s_attach}, {"play", s_play},
      {"stop", s_stop},           {"pause", s_pause},      {"resume", s_resume}, {"playing", s_playing},
      {"paused", s_paused},       {"time", s_time},        {NULL, NULL}};
  ty_type_register(L, TY_SOURCE_HANDLE, source_meta, source_methods);

  static const luaL_Reg pub[] = {{"load", a_load},   {"play", a_play},   {"volume", a_volume},
                                 {"render", a_render}, {"stats", a_stats}, {NULL, NULL}};
  /* tycho.audio is a proxy over its functions, so `tycho.audio.volume = v` reaches
   * __newindex (the key is never stored in it) while tycho.audio.volume() still calls. */
  lua_newtable(L);
  lua_createtable(L, 0, 2);
  luaL_newlib(L, pub);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, a_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "audio");

  static const luaL_Reg priv[] = {{"render", a_render},         {"update", a_update},
                                  {"opened", a_opened},         {"setListener", a_set_listener},
                                  {"source", a_source},         {"reloadFile", a_reload_file},
                                  {NULL, NULL}};
  luaL_newlib(L, priv);
  lua_setfield(L, -2, "_audio");
}
