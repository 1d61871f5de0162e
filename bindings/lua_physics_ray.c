/* bindings/lua_physics_ray.c: world:raycast and world:raycastBatch, 2D (Box2D) and 3D
 * (Bullet). Distances are in game units (2D: meters times unitsPerMeter). */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

/* A ray's hit in either world, in game units. */
typedef struct ray_hit {
  uint64_t user;
  float point[3], normal[3]; /* 2D: z 0 */
  float fraction;
} ray_hit;

/* Casts the ray from o along the unit direction dir for max game units (> 0) in w: false
 * when it hits nothing. */
static bool cast_ray(lworld *w, const float *o, const float *dir, float max, uint32_t mask, ray_hit *hit) {
  memset(hit, 0, sizeof *hit);
  if (w->dims == 2) {
    float p1[2] = {o[0] / w->upm, o[1] / w->upm};
    float p2[2] = {(o[0] + dir[0] * max) / w->upm, (o[1] + dir[1] * max) / w->upm};
    ty_ray2d_hit h;
    if (!ty_phys2d_raycast(w->w2, p1, p2, mask, &h)) return false;
    hit->user = h.user, hit->fraction = h.fraction;
    hit->point[0] = h.point[0] * w->upm, hit->point[1] = h.point[1] * w->upm;
    hit->normal[0] = h.normal[0], hit->normal[1] = h.normal[1];
    return true;
  }
  float p2[3];
  for (int k = 0; k < 3; k++) p2[k] = o[k] + dir[k] * max;
  ty_ray3d_hit h;
  if (!ty_phys3d_raycast(w->w3, o, p2, mask, &h)) return false;
  hit->user = h.user, hit->fraction = h.fraction;
  memcpy(hit->point, h.point, sizeof hit->point);
  memcpy(hit->normal, h.normal, sizeof hit->normal);
  return true;
}

/* world:raycast(origin, direction [, maxDistance [, mask]]) -> {object=, point=, normal=,
 * distance=} or nil */
int lphys_raycast(lua_State *L, lworld *w) {
  float o[3] = {0, 0, 0}, d[3] = {0, 0, 0};
  lphys_check_vec(L, 2, w->dims, o);
  lphys_check_vec(L, 3, w->dims, d);
  float max = (float)luaL_optnumber(L, 4, 1e6);
  if (!(max >= 0) || !isfinite(max)) luaL_argerror(L, 4, "maxDistance must be a finite number >= 0");
  uint32_t mask = lphys_check_mask(L, 5, "raycast");
  float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(len > 0)) luaL_argerror(L, 3, "direction must not be zero");
  for (int k = 0; k < 3; k++) d[k] /= len;
  ray_hit hit;
  if (max == 0 || !cast_ray(w, o, d, max, mask, &hit) || !ty_object_alive(lphys_world_of(L), (ty_id)hit.user)) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 4);
  ty_push_gameobject(L, (ty_id)hit.user);
  lua_setfield(L, -2, "object");
  ty_push_vec3(L, hit.point[0], hit.point[1], hit.point[2]);
  lua_setfield(L, -2, "point");
  ty_push_vec3(L, hit.normal[0], hit.normal[1], hit.normal[2]);
  lua_setfield(L, -2, "normal");
  lua_pushnumber(L, (double)hit.fraction * max);
  lua_setfield(L, -2, "distance");
  return 1;
}

/* ---- many rays in one call ----
 *
 * world:raycastBatch(rays [, out [, mask]]) -> out, hits. rays is a flat array, per ray the
 * origin, the direction and the longest distance: ox, oy, dx, dy, maxDistance in 2D (5
 * numbers), ox, oy, oz, dx, dy, dz, maxDistance in 3D (7). out (made when nil, else reused
 * as it is: a game keeps one) gets per ray the object hit or false, the point, the normal and
 * the distance: 6 values in 2D (object, px, py, nx, ny, distance), 8 in 3D; a ray that hits
 * nothing sets only its object, to false. Every ray is checked before any is cast, so a bad
 * one raises and out is left as it was. */

static const char *const RAY_PARTS[2][7] = {{"ox", "oy", "dx", "dy", "maxDistance"},
                                            {"ox", "oy", "oz", "dx", "dy", "dz", "maxDistance"}};

int lphys_raycast_batch(lua_State *L, lworld *w) {
  int dims = w->dims, in_n = 2 * dims + 1, out_n = 2 * dims + 2;
  const char *const *parts = RAY_PARTS[dims - 2];
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  uint32_t mask = lphys_check_mask(L, 4, "raycastBatch");
  lua_Integer len = luaL_len(L, 2);
  if (len % in_n) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "rays must hold %d numbers a ray (", in_n);
    luaL_addvalue(&b);
    for (int k = 0; k < in_n; k++) {
      luaL_addstring(&b, parts[k]);
      luaL_addstring(&b, k < in_n - 1 ? ", " : "), got ");
    }
    lua_pushfstring(L, "%I", len);
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    luaL_argerror(L, 2, lua_tostring(L, -1));
  }
  size_t n = (size_t)(len / in_n);
  float *rays = TY_MALLOC((n ? n : 1) * (size_t)in_n * sizeof *rays);
  if (!rays) return luaL_error(L, "out of memory");
  for (size_t i = 0; i < n; i++) {
    float *ray = rays + i * (size_t)in_n;
    for (int k = 0; k < in_n; k++) {
      lua_Integer at = (lua_Integer)(i * (size_t)in_n) + k + 1;
      int isnum;
      lua_rawgeti(L, 2, at);
      lua_Number v = lua_tonumberx(L, -1, &isnum);
      if (!isnum || !isfinite(v) || (k == in_n - 1 && v < 0)) {
        const char *got = isnum ? luaL_tolstring(L, -1, NULL) : luaL_typename(L, -1);
        const char *want = k == in_n - 1 ? "a finite number >= 0" : "a finite number";
        const char *msg = lua_pushfstring(L, "rays[%I] (ray %I's %s) must be %s, got %s", at, (lua_Integer)i + 1,
                                          parts[k], want, got);
        TY_FREE(rays);
        luaL_argerror(L, 2, msg);
      }
      lua_pop(L, 1);
      ray[k] = (float)v;
    }
    float dl = 0;
    for (int k = 0; k < dims; k++) dl += ray[dims + k] * ray[dims + k];
    if (!(dl > 0)) {
      TY_FREE(rays);
      luaL_argerror(L, 2, lua_pushfstring(L, "ray %I's direction must not be zero", (lua_Integer)i + 1));
    }
    dl = sqrtf(dl);
    for (int k = 0; k < dims; k++) ray[dims + k] /= dl;
  }
  if (lua_isnoneornil(L, 3)) {
    lua_settop(L, 2);
    lua_createtable(L, (int)(n * (size_t)out_n), 0);
  }
  lua_settop(L, 3);
  ty_world *W = lphys_world_of(L);
  lua_Integer hits = 0;
  for (size_t i = 0; i < n; i++) {
    const float *ray = rays + i * (size_t)in_n;
    float max = ray[in_n - 1];
    ray_hit h;
    bool hit = max > 0 && cast_ray(w, ray, ray + dims, max, mask, &h);
    lua_Integer at = (lua_Integer)(i * (size_t)out_n) + 1;
    if (!hit || !ty_object_alive(W, (ty_id)h.user)) {
      lua_pushboolean(L, 0);
      lua_rawseti(L, 3, at);
      continue;
    }
    hits++;
    ty_push_gameobject(L, (ty_id)h.user);
    lua_rawseti(L, 3, at++);
    for (int k = 0; k < dims; k++) {
      lua_pushnumber(L, h.point[k]);
      lua_rawseti(L, 3, at++);
    }
    for (int k = 0; k < dims; k++) {
      lua_pushnumber(L, h.normal[k]);
      lua_rawseti(L, 3, at++);
    }
    lua_pushnumber(L, (double)h.fraction * max);
    lua_rawseti(L, 3, at);
  }
  TY_FREE(rays);
  lua_pushinteger(L, hits);
  return 2;
}
