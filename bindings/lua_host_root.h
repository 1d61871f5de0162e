/* bindings/lua_host_root.h: where the engine's own files are (scripts/, content/), which the
 * host, the shipped font, the game host's bundled modules and its monitor page all read
 * from. */
#ifndef TY_LUA_HOST_ROOT_H
#define TY_LUA_HOST_ROOT_H

/* The folder holding the engine's scripts/ (TYCHO_HOME, beside the binary, or the source
 * tree it was built from); NULL when none is found. Found once, then kept. */
const char *ty_host_root(void);

#endif
