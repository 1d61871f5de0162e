-- tests/layering/layering.lua: the include layering of the C tree, read from every #include
-- in engine/, bindings/ and server/. The floors, bottom to top:
--
--   engine/      the engine library: one folder per module (engine/<module>/) plus the
--                shared engine/*.h; no Lua, no server
--   bindings/    the Lua face of the engine
--   server/      the game host behind `tycho serve`
--   engine/app/  the executable's entry: main.c and the command lines (run, test, serve),
--                the top floor, the one folder that may include anything
--
-- The rules, each reported as file:line:
--   1. A file of engine/ outside engine/app/ includes no header of bindings/, server/ or
--      engine/app/.
--   2. A file of bindings/ or server/ includes only public engine headers, and no header of
--      engine/app/; a file of bindings/ includes no header of server/ either. An engine
--      header is public unless it is a module's private header: its name ends in
--      _internal.h or _private.h (render_internal.h is the render module's own, for its
--      files alone). A module's interface is then every other header in its folder.
--   3. No two files include each other.
--   4. No two modules need each other. A module is a .c file and the .h of the same name
--      beside it (bindings/lua_scene.c and lua_scene.h, engine/render/renderer.c and
--      renderer.h); module A needs module B when A.c includes B.h, directly or through the
--      headers it includes (its own among them). A.c needing B while B.c needs A is refused,
--      reported at each .c file's include that leads to the other's header: one of the two
--      must reach the other through a hook it is handed instead (a table of functions in a
--      context, a callback), as the scene reaches physics through ty_ctx.physics.
--
-- A quoted include is resolved as the compiler does: the including file's folder first, then
-- the include folders engine/, bindings/, server/ (CMakeLists.txt gives each library its
-- own), then the one file of the tree whose path ends in the name, if only one does (a
-- subfolder a library adds to its include folders); an include found nowhere (<stdio.h>,
-- <lua.h>, a system "sqlite3.h") is not the tree's and is counted, not checked. The rules name folders and name patterns, never
-- today's files, so modules may be added, split and renamed under them.

local M = {}

local ROOTS = {"engine", "bindings", "server"}
local SOURCE = {c = true, h = true, cpp = true, hpp = true}

local function readable(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- "a/b/../c.h" -> "a/c.h"; "./x" -> "x"
local function normalize(path)
  local out = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." and #out > 0 and out[#out] ~= ".." then out[#out] = nil
    elseif part ~= "." then out[#out + 1] = part end
  end
  return table.concat(out, "/")
end

local function dirname(rel)
  return rel:match("^(.*)/[^/]*$") or "."
end

-- Which floor a path of the tree (relative to the root) is on.
local function floor(rel)
  if rel:match("^engine/app/") then return "app" end
  return rel:match("^(%a+)/")
end

-- A header of engine/ that a module keeps for its own files.
function M.isPrivate(rel)
  local name = rel:match("([^/]+)$")
  return name:match("_internal%.h$") ~= nil or name:match("_private%.h$") ~= nil
end

function M.isPublicEngineHeader(rel)
  return floor(rel) == "engine" and rel:match("%.h$") ~= nil and not M.isPrivate(rel)
end

-- The tree's path (relative to root) that `#include "name"` in file rel reaches, or nil.
-- files: every file read, for an include folder this script does not know (a floor's
-- subfolder given to the compiler): the one file whose path ends in /name, if only one does.
local function resolve(root, rel, name, files)
  local tries = {normalize(dirname(rel) .. "/" .. name)}
  for _, r in ipairs(ROOTS) do tries[#tries + 1] = normalize(r .. "/" .. name) end
  for _, t in ipairs(tries) do
    if not t:match("^%.%.") and readable(root .. "/" .. t) then return t end
  end
  local found
  local tail = "/" .. normalize(name)
  for _, f in ipairs(files) do
    if f:sub(-#tail) == tail then
      if found then return nil end -- ambiguous: the compiler's folders decide, not a guess
      found = f
    end
  end
  return found
end

-- Why file `from` may not include `to` (both relative to the root), or nil when it may.
local function refusal(from, to)
  local f, t = floor(from), floor(to)
  if f == "engine" and (t == "bindings" or t == "server" or t == "app") then
    return "only engine/app/ may include a binding, server or entry header"
  end
  if (f == "bindings" or f == "server") and t == "app" then
    return "only engine/app/ may include an entry header"
  end
  if f == "bindings" and t == "server" then
    return "bindings/ sit below server/ and include none of its headers"
  end
  if (f == "bindings" or f == "server") and t == "engine" and not M.isPublicEngineHeader(to) then
    return "bindings/ and server/ include only public engine headers (not *_internal.h, *_private.h or sources)"
  end
  return nil
end

-- The headers a file reaches through its includes, directly or through headers: header ->
-- the line of the file's own include that leads there.
local function reached(edges, rel)
  local firsts = {}
  for first, line in pairs(edges[rel] or {}) do firsts[#firsts + 1] = {first, line} end
  table.sort(firsts, function(x, y) return x[2] < y[2] end) -- the earliest include names the way
  local out = {}
  for _, f in ipairs(firsts) do
    local line, stack = f[2], {f[1]}
    while #stack > 0 do
      local h = table.remove(stack)
      if h:match("%.h$") and not out[h] then
        out[h] = line
        for next in pairs(edges[h] or {}) do stack[#stack + 1] = next end
      end
    end
  end
  return out
end

-- Rule 4: the .c files of two modules (a .c and the .h of its name) that each reach the
-- other's header, as violations at each file's include.
local function moduleCycles(files, edges)
  local isFile, modules = {}, {}
  for _, rel in ipairs(files) do isFile[rel] = true end
  for _, rel in ipairs(files) do
    local base = rel:match("^(.*)%.c$")
    if base and isFile[base .. ".h"] then modules[#modules + 1] = {base = base, reach = reached(edges, rel)} end
  end
  local out = {}
  for _, a in ipairs(modules) do
    for _, b in ipairs(modules) do
      local line, back = a.reach[b.base .. ".h"], b.reach[a.base .. ".h"]
      if a ~= b and line and back then
        out[#out + 1] = {file = a.base .. ".c", line = line,
          text = ("module %s needs %s.h, and %s.c needs %s.h back (%s.c:%d)"):format(
            a.base, b.base, b.base, a.base, b.base, back)}
      end
    end
  end
  return out
end

-- Reads the tree under root. Returns a report: files (count per floor and total), includes
-- (total, resolved in the tree), violations (array of {file, line, text}, in file order) and
-- summary (one line saying what was checked).
function M.check(root)
  local files, perFloor = {}, {}
  for _, r in ipairs(ROOTS) do
    local list = tycho.fs.walk(root .. "/" .. r) or {}
    for _, path in ipairs(list) do
      local rel = path:sub(#root + 2)
      local ext = rel:match("%.(%w+)$")
      if ext and SOURCE[ext] then
        files[#files + 1] = rel
        local fl = floor(rel)
        perFloor[fl] = (perFloor[fl] or 0) + 1
      end
    end
  end
  table.sort(files)

  local violations, edges = {}, {}
  local nIncludes, nResolved = 0, 0
  for _, rel in ipairs(files) do
    local n = 0
    for text in io.lines(root .. "/" .. rel) do
      n = n + 1
      local quote, name = text:match('^%s*#%s*include%s*([<"])([^>"]+)[>"]')
      if name then
        nIncludes = nIncludes + 1
        local to = quote == '"' and resolve(root, rel, name, files) or nil
        if to then
          nResolved = nResolved + 1
          edges[rel] = edges[rel] or {}
          edges[rel][to] = edges[rel][to] or n
          local why = refusal(rel, to)
          if why then
            violations[#violations + 1] = {file = rel, line = n, text = ("includes %s: %s"):format(to, why)}
          end
        end
      end
    end
  end
  for from, tos in pairs(edges) do
    for to, line in pairs(tos) do
      local back = edges[to] and edges[to][from]
      if back and from ~= to then
        violations[#violations + 1] = {file = from, line = line,
          text = ("includes %s, which includes it back (%s:%d)"):format(to, to, back)}
      end
    end
  end
  for _, v in ipairs(moduleCycles(files, edges)) do violations[#violations + 1] = v end
  table.sort(violations, function(a, b)
    if a.file ~= b.file then return a.file < b.file end
    return a.line < b.line
  end)

  local counts = {}
  for _, fl in ipairs({"engine", "app", "bindings", "server"}) do
    counts[#counts + 1] = ("%s %d"):format(fl == "app" and "engine/app" or fl .. "/", perFloor[fl] or 0)
  end
  local summary = ("layering: %d files (%s), %d includes, %d of them the tree's: checked that engine/ "
    .. "includes no binding, server or entry header, that bindings/ and server/ include only public "
    .. "engine headers, that no two files include each other and that no two modules need each other; %d violation%s")
    :format(#files, table.concat(counts, ", "), nIncludes, nResolved, #violations, #violations == 1 and "" or "s")
  return {files = #files, perFloor = perFloor, includes = nIncludes, resolved = nResolved,
          violations = violations, summary = summary}
end

-- The violations as "file:line: text" lines.
function M.format(report)
  local lines = {}
  for _, v in ipairs(report.violations) do lines[#lines + 1] = ("%s:%d: %s"):format(v.file, v.line, v.text) end
  return table.concat(lines, "\n")
end

return M
