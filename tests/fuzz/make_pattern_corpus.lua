-- tests/fuzz/make_pattern_corpus.lua: writes the seed corpus for tests/fuzz/pattern_fuzz.c into
-- tests/fuzz/corpus/pattern/: one pattern, replacement and subject per file, covering each
-- pattern item (classes, sets, quantifiers, anchors, captures, %b, %f, back-references), each
-- kind of gsub replacement, and malformed patterns.
-- Run from the repository root: tycho run tests/fuzz/make_pattern_corpus.lua --headless --frames 0

local dir = "tests/fuzz/corpus/pattern/"

local REPL = { string = 0, table = 1, ["function"] = 2, number = 3 }

-- opts: repl kind (default string), plain, init, max.
local function seed(pattern, subject, repl, opts)
  opts = opts or {}
  local flags = REPL[opts.kind or "string"] | (opts.plain and 4 or 0) | (opts.init and 8 or 0) | (opts.max and 16 or 0)
  repl = repl or "%0"
  return string.pack("<BbbI2B", flags, opts.init or 0, opts.max or 0, #pattern, #repl) .. pattern .. repl .. subject
end

local seeds = {
  classes = seed("%a+%d*%s?%w-%x%p%c?%g%l%u%A%D%S%W", "key = 0x1F; Value\t42!", "<%0>"),
  sets = seed("[%a_][%w_]*[^%s]-[a-c%-]+[]x]", "_id9 a-b]x ab-c]", "%1"),
  anchors = seed("^(%w+)$", "hello", "[%1]"),
  dollar_inside = seed("a$b.", "a$bc a$b", "%%"),
  captures = seed("(h)(e)(l)(l)(o)()", "hello hello", "%5%4%3%2%1%6"),
  backrefs = seed("([\"'])(.-)%1", [[say "hi" and 'bye']], "%2"),
  balance = seed("%b()", "f(a(b)c) (d", "<>"),
  frontier = seed("%f[%w]%w+%f[%W]", "THE (quick) fox", nil, { kind = "table" }),
  frontier_nul = seed("%f[%z]", "a\0b", "|"),
  lazy = seed("a.-b", "aXbXbaYb", nil, { kind = "function" }),
  optional = seed("colou?r", "color colour", nil, { kind = "number" }),
  position = seed("()a()", "banana", "%1-%2", { max = 2 }),
  empty = seed("", "abc", "-"),
  star_empty = seed("x*", "abc", "-", { init = -2 }),
  plain = seed("a.b", "a.b axb", nil, { plain = true, init = 2 }),
  high_bytes = seed("[\128-\255]+", "caf\195\169 na\195\175ve", "?"),
  unfinished = seed("(ab", "abc", "x"),
  close_only = seed("ab)", "abc", "x"),
  trailing_escape = seed("ab%", "ab", "x"),
  missing_bracket = seed("[a-", "abc", "x"),
  frontier_no_set = seed("%fa", "abc", "x"),
  balance_short = seed("%b(", "(a)", "x"),
  bad_index = seed("(a)%2", "aa", "%3"),
  bad_replacement = seed("a", "aaa", "%z"),
  too_many = seed(("()"):rep(33), "abc", "x"),
  too_complex = seed(("a?"):rep(201), ("a"):rep(230), "x"),
  deep_enough = seed(("a?"):rep(198), ("a"):rep(230), "x"),
  runaway = seed(".-.-.-.-.-b", ("a"):rep(200), "x"),
}

local names = {}
for name in pairs(seeds) do names[#names + 1] = name end
table.sort(names)
for _, name in ipairs(names) do
  local f = assert(io.open(dir .. name, "wb"))
  f:write(seeds[name])
  f:close()
end
print(("wrote %d seeds to %s"):format(#names, dir))
