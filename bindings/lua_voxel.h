/* bindings/lua_voxel.h: the VoxelGrid userdata of lua_voxel.c, for the bindings that fill
 * one (lua_terrain.c writes generated chunks into grids the game then edits and meshes). */
#ifndef TY_LUA_VOXEL_H
#define TY_LUA_VOXEL_H

#include "bindings.h"

#define TY_VOXEL_GRID "VoxelGrid"

/* Pushes a new VoxelGrid of sx * sy * sz cells (each 1..TY_VOXEL_MAX_SIDE), every cell 0, and
 * returns its cells (x fastest, then z, then y), which live as long as the grid. */
uint8_t *ty_push_voxel_grid(lua_State *L, uint32_t sx, uint32_t sy, uint32_t sz);

/* The cells of the VoxelGrid at idx (raises a type error for anything else); its size into size. */
uint8_t *ty_check_voxel_grid(lua_State *L, int idx, uint32_t size[3]);

#endif
