/* bindings/lua_audio.h: the audio binding's face to the run loop (engine/main.c).
 *
 * A state's audio opens on first use (tycho.audio.load, play, render or an AudioSource):
 * a loopback mixer that advances only in tycho.audio.render (headless runs, tycho test),
 * unless `tycho run` with a window asked for the system's default device first. */
#ifndef TY_LUA_AUDIO_H
#define TY_LUA_AUDIO_H

#include "audio/audio.h"
#include "bindings.h"

/* Before the game runs: this state's audio plays through the default device. */
void ty_lua_audio_use_device(lua_State *L);

#endif
