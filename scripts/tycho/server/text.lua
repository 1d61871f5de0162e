-- scripts/tycho/server/text.lua: client text quoted back in replies. require("tycho.server.text").
-- A byte cut (`s:sub(1, n)`) can land inside a UTF-8 character, and JSON cannot hold the
-- half character: the reply fails to encode and the client gets nothing. clip cuts at a
-- character boundary instead.

local Text = {}

---The longest prefix of `s` that is at most `maxBytes` bytes of whole UTF-8 characters. It
---stops before the first byte that is not UTF-8 too, so the result always encodes as JSON.
---@param s string
---@param maxBytes integer
---@return string
function Text.clip(s, maxBytes)
  local n = #s
  if n > maxBytes then
    n = maxBytes
    -- Back over the continuation bytes (10xxxxxx) of a character the cut went through.
    while n > 0 and s:byte(n + 1) & 0xC0 == 0x80 do n = n - 1 end
    s = s:sub(1, n)
  end
  local valid, bad = utf8.len(s)
  if not valid then s = s:sub(1, bad - 1) end
  return s
end

return Text
