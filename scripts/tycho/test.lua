-- tycho.test: the Lua side of `tycho test [OPTIONS] [PATH...]`.
-- Runs spec files with busted 2 itself (Debian's lua-busted, luassert and say, found on
-- Lua 5.4's default package.path), inside tycho's Lua state, so specs see `tycho` and a
-- headless engine. The driver is busted's own command-line runner (busted/runner.lua) with
-- what tycho adds: the default output handler tycho.test.output (failures with file:line as
-- they happen), short names for the other handlers, `tests` as the default root when there
-- is no `spec`, `*_test.lua` files beside `*_spec.lua`, a flush of the errors scenes caught
-- after each file, the closing line `N passed, N failed[, N skipped]` and an exit code
-- returned to the C side instead of os.exit.

local M = {}

-- Short output names; busted's own names (plainTerminal, TAP, ...) and module paths still work.
local OUTPUTS = {
  tycho = "tycho.test.output", plain = "plainTerminal", utf = "utfTerminal",
  tap = "TAP", junit = "tycho.test.junit", json = "json", gtest = "gtest",
}
-- Handlers whose stdout is a document: the closing line goes to stderr beside them.
local DOCUMENTS = { TAP = true, junit = true, json = true, ["tycho.test.junit"] = true,
  ["busted.outputHandlers.junit"] = true }

local function isDir(p) return require("pl.path").isdir(p) end

---Entry point of `tycho test [OPTIONS] [PATH...]`: busted's options and .busted files, with
---tycho's defaults. Returns the process exit code.
---@param args? string[] the command line after `test`
---@return integer exitCode 0 when everything passed, 1 otherwise
function M.main(args)
  -- busted takes a traceback where each test is declared; Lua's debug.traceback searches
  -- every loaded module once per frame, which in the engine's state was most of a test's
  -- cost. tycho's gives the same text with one search per call (bindings/lua_host.c).
  tycho._useFastTraceback()
  if not pcall(require, "busted.core") then
    io.stderr:write("tycho test: busted 2 is not installed (Debian: apt-get install lua-busted lua-luassert lua-say)\n")
    return 1
  end
  local utils = require("busted.utils")
  local path = require("pl.path")
  local appName = "tycho test"
  args = args or {}
  args[0] = appName
  for _, a in ipairs(args) do
    -- busted would re-run itself under another interpreter; specs run in tycho's Lua 5.4
    if a == "--lua" or a:match("^%-%-lua=") then
      io.stderr:write(appName .. ": error: --lua is not supported: specs run in tycho's own Lua 5.4\n")
      return 1
    end
  end

  local busted = require("busted.core")()
  local cli = require("busted.modules.cli")({ standalone = false, output = OUTPUTS.tycho })
  cli:set_name(appName)
  local filterLoader = require("busted.modules.filter_loader")()
  local helperLoader = require("busted.modules.helper_loader")()
  local outputHandlerLoader = require("busted.modules.output_handler_loader")()
  require("busted")(busted)

  local cliArgs, err = cli:parse(args)
  if not cliArgs then
    io.stderr:write(err .. "\n")
    return 1
  end
  if cliArgs.version then
    print(busted.version)
    return 0
  end
  local _, cdErr = path.chdir(path.normpath(cliArgs.directory))
  if cdErr then
    io.stderr:write(appName .. ": error: " .. cdErr .. "\n")
    return 1
  end
  -- --coverage: LuaCov through busted where it is installed, else tycho's own line counter
  -- writing lcov.info (tycho.test.coverage).
  local ownCoverage
  if cliArgs.coverage then
    if pcall(require, "luacov.runner") then
      local ok, covErr = require("busted.modules.luacov")()(cliArgs["coverage-config-file"])
      if not ok then
        io.stderr:write(appName .. ": error: " .. covErr .. "\n")
        return 1
      end
    else
      ownCoverage = require("tycho.test.coverage") -- started once the file patterns are known
    end
  end
  if not cliArgs["auto-insulate"] then busted.register("file", "file", {}) end
  if cliArgs.lazy then
    busted.register("setup", "lazy_setup")
    busted.register("teardown", "lazy_teardown")
  end
  if #cliArgs.lpath > 0 then package.path = (cliArgs.lpath .. ";" .. package.path):gsub(";;", ";") end
  if #cliArgs.cpath > 0 then package.cpath = (cliArgs.cpath .. ";" .. package.cpath):gsub(";;", ";") end
  for _, statement in ipairs(cliArgs.e) do assert(load(statement))() end

  cliArgs.output = OUTPUTS[cliArgs.output] or cliArgs.output -- from the command line or .busted
  -- tycho's defaults where busted's would find nothing tycho used to run
  if #cliArgs.ROOT == 1 and cliArgs.ROOT[1] == "spec" and not isDir("spec") and isDir("tests") then
    cliArgs.ROOT = { "tests" }
  end
  if #cliArgs.pattern == 1 and cliArgs.pattern[1] == "_spec" then
    cliArgs.pattern = { "_spec", "_test%.lua$" }
  end
  if ownCoverage then ownCoverage.start(cliArgs.pattern) end

  -- The counts of the closing line are busted's own (its base output handler's: successes;
  -- failures plus errors, where an error outside a test such as a file that does not
  -- compile or a failing hook counts too; pending), summed over --repeat runs.
  local passed, failed, skipped = 0, 0, 0
  local quitOnError = not cliArgs["keep-going"]
  busted.subscribe({ "error", "output" }, function(element, _, message)
    io.stderr:write(appName .. ": error: cannot load output library: " .. element.name .. "\n" .. message .. "\n")
    return nil, true
  end)
  busted.subscribe({ "error", "helper" }, function(element, _, message)
    io.stderr:write(appName .. ": error: cannot load helper script: " .. element.name .. "\n" .. message .. "\n")
    return nil, true
  end)
  local function stopUnlessKeepGoing()
    busted.skipAll = quitOnError
    return nil, true
  end
  busted.subscribe({ "error" }, stopUnlessKeepGoing)
  busted.subscribe({ "failure" }, stopUnlessKeepGoing)
  -- Counted as busted's base handler counts (busted.outputHandlers.base), without the copy
  -- of each test's element it keeps for its lists: a test ending in success, pending or
  -- failure (once, however many assertions failed in it); every error, in a test or not; a
  -- failure outside a test (a hook's). --suppress-pending leaves pending tests uncounted.
  require("busted.languages.en") -- the base handler loaded busted's messages here, so keep that
  if cliArgs.lang ~= "en" then require("busted.languages." .. cliArgs.lang) end
  local suppressPending = cliArgs["suppress-pending"]
  busted.subscribe({ "test", "end" }, function(_, _, status)
    if status == "success" then passed = passed + 1
    elseif status == "failure" then failed = failed + 1
    elseif status == "pending" then skipped = skipped + 1 end
    return nil, true
  end, { predicate = function(element, _, status)
    return not ((element.descriptor == "pending" or status == "pending") and suppressPending)
  end })
  busted.subscribe({ "error" }, function()
    failed = failed + 1
    return nil, true
  end)
  busted.subscribe({ "failure" }, function(element)
    if element.descriptor ~= "it" then failed = failed + 1 end
    return nil, true
  end)
  local errors = require("tycho.errors")
  busted.subscribe({ "file", "end" }, function()
    errors.flush(true) -- repeats of errors its scenes caught, counted beside the file that made them
    return nil, true
  end)

  busted.sort = cliArgs["sort-tests"]
  busted.randomize = cliArgs["shuffle-tests"]
  busted.randomseed = tonumber(cliArgs.seed) or utils.urandom() or os.time()

  outputHandlerLoader(busted, cliArgs.output, {
    defaultOutput = OUTPUTS.tycho,
    enableSound = cliArgs["enable-sound"],
    verbose = cliArgs.verbose,
    suppressPending = cliArgs["suppress-pending"],
    language = cliArgs.lang,
    deferPrint = cliArgs["defer-print"],
    arguments = cliArgs.Xoutput,
  })

  if cliArgs.helper and cliArgs.helper ~= "" then
    local ok, helperErr = helperLoader(busted, cliArgs.helper, {
      verbose = cliArgs.verbose, language = cliArgs.lang, arguments = cliArgs.Xhelper,
    })
    if not ok then
      io.stderr:write(appName .. ": failed running the specified helper (" .. cliArgs.helper
        .. "), error: " .. helperErr .. "\n")
      return 1
    end
  end

  filterLoader(busted, {
    tags = cliArgs.tags,
    excludeTags = cliArgs["exclude-tags"],
    filter = cliArgs.filter,
    filterOut = cliArgs["filter-out"],
    list = cliArgs.list,
    nokeepgoing = not cliArgs["keep-going"],
    suppressPending = cliArgs["suppress-pending"],
  })

  local testFileLoader = require("busted.modules.test_file_loader")(busted, cliArgs.loaders)
  testFileLoader(cliArgs.ROOT, cliArgs.pattern, {
    excludes = cliArgs["exclude-pattern"],
    verbose = cliArgs.verbose,
    recursive = cliArgs.recursive,
  })

  require("busted.execute")(busted)(cliArgs["repeat"], {
    seed = cliArgs.seed,
    shuffle = cliArgs["shuffle-files"],
    sort = cliArgs["sort-files"],
  })
  busted.publish({ "exit" })
  if ownCoverage then
    ownCoverage.stop()
    local hit, total, files = ownCoverage.write("lcov.info")
    io.stderr:write(("coverage: lcov.info: %d of %d lines (%.1f%%) in %d files\n")
      :format(hit, total, total > 0 and hit * 100 / total or 0, files))
  end

  if not cliArgs.list then
    local line = ("%d passed, %d failed"):format(passed, failed)
    if skipped > 0 then line = line .. (", %d skipped"):format(skipped) end
    local output = cliArgs.output
    local sink = DOCUMENTS[output] and io.stderr or io.stdout
    sink:write(line .. "\n")
    sink:flush()
  end
  return failed == 0 and 0 or 1
end

return M
