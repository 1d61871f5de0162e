-- The include layering (tests/layering/layering.lua says the rules): the tree holds to it,
-- and a copy of the tree with one bad include of each kind (and one pair of modules that
-- need each other) fails, naming its file:line.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$")
-- the repository: three folders up from this spec's (tests/layering/spec)
local root = here:match("^(.*)/[^/]+/[^/]+/[^/]+$") or (here:match("^[^/]+/[^/]+/[^/]+$") and ".")
local layering = dofile(here .. "/../layering.lua")

local function sh(cmd)
  assert(os.execute(cmd), "failed: " .. cmd)
end

local function lineCount(path)
  local n = 0
  for _ in io.lines(path) do n = n + 1 end
  return n
end

local function append(path, text)
  local f = assert(io.open(path, "a"))
  f:write(text, "\n")
  f:close()
  return lineCount(path)
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- The first file of a floor (engine excludes engine/app/) with the given extension.
local function first(report, files, floorPrefix, ext)
  for _, rel in ipairs(files) do
    if rel:sub(1, #floorPrefix) == floorPrefix and rel:match("%." .. ext .. "$")
      and not (floorPrefix == "engine/" and rel:match("^engine/app/")) then
      return rel
    end
  end
  error(("no %s file under %s (%d files read)"):format(ext, floorPrefix, report.files))
end

local function listFiles(dir)
  local out = {}
  for _, r in ipairs({"engine", "bindings", "server"}) do
    for _, path in ipairs(tycho.fs.walk(dir .. "/" .. r) or {}) do out[#out + 1] = path:sub(#dir + 2) end
  end
  table.sort(out)
  return out
end

local function has(report, file, line, pattern)
  for _, v in ipairs(report.violations) do
    if v.file == file and v.line == line and v.text:find(pattern) then return true end
  end
  return false
end

describe("include layering", function()
  it("holds in this tree: the entry alone includes the bindings and the server", function()
    local report = layering.check(root)
    print(report.summary)
    local n = report.perFloor
    assert.is_true((n.engine or 0) > 0 and (n.bindings or 0) > 0 and (n.server or 0) > 0,
      "read no files: " .. report.summary)
    assert.is_true(report.resolved > 0, report.summary)
    assert.are.equal("", layering.format(report), report.summary)
  end)

  it("fails on a copy of the tree with one bad include of each kind, naming file:line", function()
    local dir = os.tmpname()
    os.remove(dir)
    sh("mkdir -p '" .. dir .. "' && cp -r '" .. root .. "/engine' '" .. root .. "/bindings' '" .. root
      .. "/server' '" .. dir .. "/'")
    local ok, err = pcall(function()
      assert.are.equal("", layering.format(layering.check(dir)), "the copy is clean before the bad lines")
      local files = listFiles(dir)
      local clean = layering.check(dir)
      local bindingHeader = first(clean, files, "bindings/", "h")
      local serverHeader = first(clean, files, "server/", "h")
      local engineSource = first(clean, files, "engine/", "c")
      local bindingSource = first(clean, files, "bindings/", "c")
      local serverSource = first(clean, files, "server/", "c")
      local bindingName, serverName = bindingHeader:match("[^/]+$"), serverHeader:match("[^/]+$")
      -- 1. the engine reaching up, by name and by a relative path
      local l1 = append(dir .. "/" .. engineSource, ('#include "%s"'):format(bindingName))
      local up = ("../"):rep(select(2, engineSource:gsub("/", "")))
      local l2 = append(dir .. "/" .. engineSource, ('#include "%s%s"'):format(up, serverHeader))
      -- and a binding header in a subfolder a library would add to its include folders
      sh("mkdir -p '" .. dir .. "/bindings/selftest'")
      write(dir .. "/bindings/selftest/lua_selftest_helper.h", "/* a helper */\n")
      local l7 = append(dir .. "/" .. engineSource, '#include "lua_selftest_helper.h"')
      -- 2. a binding including a module's private header, and a server header
      sh("mkdir -p '" .. dir .. "/engine/selftest'")
      write(dir .. "/engine/selftest/selftest_internal.h", "/* private */\n")
      write(dir .. "/engine/selftest/selftest.h", "/* public */\n")
      local l3 = append(dir .. "/" .. bindingSource, '#include "selftest/selftest_internal.h"')
      local l4 = append(dir .. "/" .. bindingSource, '#include "selftest/selftest.h"') -- allowed
      local l5 = append(dir .. "/" .. bindingSource, ('#include "%s"'):format(serverName))
      local l6 = append(dir .. "/" .. serverSource, '#include "selftest/selftest_internal.h"')
      -- 3. two headers that include each other
      write(dir .. "/engine/selftest/a.h", '/* a */\n#include "b.h"\n')
      write(dir .. "/engine/selftest/b.h", '/* b */\n\n#include "a.h"\n')
      -- 4. two modules that need each other: m.c includes n.h, and n.c reaches m.h through
      -- a header of its own; o.c needs m alone, which is allowed
      write(dir .. "/engine/selftest/m.h", "/* m */\n")
      write(dir .. "/engine/selftest/m.c", '#include "m.h"\n#include "n.h"\n')
      write(dir .. "/engine/selftest/n.h", "/* n */\n")
      write(dir .. "/engine/selftest/n_helper.h", '#include "m.h"\n')
      write(dir .. "/engine/selftest/n.c", '#include "n.h"\n\n\n#include "n_helper.h"\n')
      write(dir .. "/engine/selftest/o.h", "/* o */\n")
      write(dir .. "/engine/selftest/o.c", '#include "o.h"\n#include "m.h"\n')

      local report = layering.check(dir)
      print(report.summary)
      local text = layering.format(report)
      print(text)
      assert.is_true(has(report, engineSource, l1, "only engine/app/"), text)
      assert.is_true(has(report, engineSource, l2, "only engine/app/"), text)
      assert.is_true(has(report, engineSource, l7, "only engine/app/"), text)
      assert.is_true(has(report, bindingSource, l3, "only public engine headers"), text)
      assert.is_false(has(report, bindingSource, l4, ""), text)
      assert.is_true(has(report, bindingSource, l5, "below server/"), text)
      assert.is_true(has(report, serverSource, l6, "only public engine headers"), text)
      assert.is_true(has(report, "engine/selftest/a.h", 2, "includes it back %(engine/selftest/b.h:3%)"), text)
      assert.is_true(has(report, "engine/selftest/b.h", 3, "includes it back %(engine/selftest/a.h:2%)"), text)
      assert.is_true(has(report, "engine/selftest/m.c", 2, "module engine/selftest/m needs engine/selftest/n%.h, "
        .. "and engine/selftest/n%.c needs engine/selftest/m%.h back %(engine/selftest/n%.c:4%)"), text)
      assert.is_true(has(report, "engine/selftest/n.c", 4, "module engine/selftest/n needs engine/selftest/m%.h, and engine/selftest/m%.c needs engine/selftest/n%.h back %(engine/selftest/m%.c:2%)"), text)
      assert.are.equal(10, #report.violations, text)
    end)
    os.execute("rm -rf '" .. dir .. "'")
    assert(ok, err)
  end)
end)
