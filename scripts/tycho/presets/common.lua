-- scripts/tycho/presets/common.lua: what the presets share: checking the option
-- vocabulary, and the features every preset places the same way (shadow, sky, the
-- post-processing chain and the tonemap).

local tycho = require("tycho")
local features = require("tycho.render.features")

local M = {}

local SKY_KINDS = { none = true, color = true, texture = true, atmosphere = true }
local TONEMAPS = { auto = true, aces = true, reinhard = true, none = true }

---Raises a `bad argument` error naming the preset when opts is not a table or nil, and
---checks the shared options; returns opts or an empty table.
---@param opts any
---@param name string
---@return table
function M.check(opts, name)
  if opts ~= nil and type(opts) ~= "table" then
    error(("bad argument #1 to '%s' (table expected, got %s)"):format(name, type(opts)), 3)
  end
  opts = opts or {}
  local sky = opts.sky
  if sky ~= nil and sky ~= false then
    if type(sky) ~= "table" then
      error(("bad argument #1 to '%s' (sky must be a table {kind=, ...}, got %s)"):format(name, type(sky)), 3)
    end
    if sky.kind ~= nil and not SKY_KINDS[sky.kind] then
      error(("bad argument #1 to '%s' (sky.kind must be \"none\", \"color\", \"texture\" or \"atmosphere\", got %s)")
        :format(name, tostring(sky.kind)), 3)
    end
  end
  if opts.tonemap ~= nil and not TONEMAPS[opts.tonemap] then
    error(("bad argument #1 to '%s' (tonemap must be \"auto\", \"aces\", \"reinhard\" or \"none\", got %s)")
      :format(name, tostring(opts.tonemap)), 3)
  end
  local shadow = opts.shadow
  if shadow ~= nil and type(shadow) ~= "boolean" and type(shadow) ~= "table" then
    error(("bad argument #1 to '%s' (shadow must be false or a table, got %s)"):format(name, type(shadow)), 3)
  end
  return opts
end

-- An option that is on when true or a table; its table (or {}) then.
local function on(v)
  if v == true then return {} end
  if type(v) == "table" then return v end
  return nil
end
M.on = on

---Shadow, unless opts.shadow is false.
function M.shadow(list, opts)
  if opts.shadow == false then return end
  list[#list + 1] = features.Shadow(on(opts.shadow) or {})
end

---Sky, unless opts.sky is false or of kind "none" (the first pass then clears to black).
function M.sky(list, opts)
  local sky = opts.sky
  if sky == false then return end
  sky = sky or { kind = "color" }
  if sky.kind == "none" then return end
  list[#list + 1] = features.Sky({
    kind = sky.kind or "color",
    color = sky.color,
    texture = sky.texture,
    intensity = sky.intensity,
  })
end

---Particles, TAA?, DoF?, Bloom?, then Tonemap (exposure, aces, tonemap: "auto" leaves an orthographic
---camera's frame untonemapped, so 2D colours reach the screen as given).
function M.post(list, opts)
  list[#list + 1] = features.Particles() -- the ParticleSystems, over the lit scene
  if on(opts.taa) then list[#list + 1] = features.TAA(on(opts.taa)) end
  if on(opts.dof) then list[#list + 1] = features.DoF(on(opts.dof)) end
  if on(opts.bloom) then list[#list + 1] = features.Bloom(on(opts.bloom)) end
  local aces = opts.aces
  if aces == nil then aces = true end
  list[#list + 1] = features.Tonemap({ exposure = opts.exposure or 1, aces = aces and true or false, mode = opts.tonemap })
end

---Makes a preset: {name=, options=, features=, apply=}. apply adds the features to the
---engine in order; the feature tables are made once, here, so bad options raise at the
---preset's call.
---@param name string
---@param opts table
---@param list tycho.Feature[]
---@return tycho.Preset
function M.preset(name, opts, list)
  return {
    name = name,
    options = opts,
    features = list,
    apply = function(self, engine)
      for _, f in ipairs(self.features) do engine:addFeature(f) end
    end,
  }
end

M.features = features
M.tycho = tycho
return M
