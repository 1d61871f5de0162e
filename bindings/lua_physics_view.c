/* bindings/lua_physics_view.c: live velocity views. body.velocity (2D and 3D) and
 * body.angularVelocity (3D) are Vec3 views (bindings.h's ty_vec) over the body: read, the
 * view asks the body; written, the view keeps the value, which reaches the body at the next
 * commit: before the tick's step, and before a physics call that reads or changes a body. */
#include "lua_physics_world.h"

static const char pending_views_key = 0; /* registry: velocity views written since the last commit */

static body_rec *view_body(lua_State *L, const ty_vec *u, lworld **w) {
  return lphys_rec_of(L, u->view == TY_VIEW_VELOCITY_2D ? 2 : 3, u->owner, w);
}

void lphys_commit_views(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &pending_views_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  int t = lua_gettop(L);
  lua_Integer n = (lua_Integer)lua_rawlen(L, t);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, t, i);
    ty_vec *u = lua_touserdata(L, -1);
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawseti(L, t, i);
    lworld *w = NULL;
    body_rec *r = u ? view_body(L, u, &w) : NULL;
    if (!r) continue; /* the body went away meanwhile: nothing to write to */
    if (u->view == TY_VIEW_VELOCITY_2D) {
      ty_body2d_set_velocity(w->w2, r->body, u->v[0] / w->upm, u->v[1] / w->upm);
      ty_body2d_set_awake(w->w2, r->body, true);
    } else if (u->view == TY_VIEW_VELOCITY_3D) {
      ty_body3d_set_velocity(w->w3, r->body, u->v);
    } else {
      ty_body3d_set_angular_velocity(w->w3, r->body, u->v);
    }
  }
  lua_pop(L, 1);
}

float *ty_lua_physics_view(lua_State *L, ty_vec *u, bool write) {
  lphys_commit_views(L);
  lworld *w = NULL;
  body_rec *r = view_body(L, u, &w);
  if (!r) luaL_error(L, "this velocity's body is gone (its object was destroyed or lost its body)");
  if (u->view == TY_VIEW_VELOCITY_2D) {
    float v[2];
    ty_body2d_velocity(w->w2, r->body, v);
    u->v[0] = v[0] * w->upm, u->v[1] = v[1] * w->upm, u->v[2] = 0;
  } else if (u->view == TY_VIEW_VELOCITY_3D) {
    ty_body3d_velocity(w->w3, r->body, u->v);
  } else {
    ty_body3d_angular_velocity(w->w3, r->body, u->v);
  }
  if (write) {
    /* The view is an argument of the running C function: find it to keep it till commit. */
    for (int i = 1; i <= lua_gettop(L); i++) {
      if (lua_touserdata(L, i) != u) continue;
      if (lua_rawgetp(L, LUA_REGISTRYINDEX, &pending_views_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &pending_views_key);
      }
      lua_pushvalue(L, i);
      lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
      lua_pop(L, 1);
      break;
    }
  }
  return u->v;
}
