-- Loaded by busted (the .busted helper option) before the specs.
local assert = require("luassert")
local say = require("say")

say:set("assertion.empty_queue.positive", "Expected %s to be an empty queue")
say:set("assertion.empty_queue.negative", "Expected %s not to be an empty queue")
assert:register("assertion", "empty_queue", function(_, args) return args[1]:size() == 0 end,
  "assertion.empty_queue.positive", "assertion.empty_queue.negative")
