---@meta tycho.render
-- scripts/meta/render.lua: LuaLS annotations for rendering: meshes, materials, textures,
-- the built-in render components, features, presets, the Frame and its render graph, and
-- the engine's render methods. Never loaded at run time; scripts/docs/render.md explains
-- how the pieces fit.

-- ---------------------------------------------------------------------------------------
-- Assets

---A colour: `{r, g, b[, a]}`, `{r=, g=, b=[, a=]}` or a Vec3 (linear, alpha defaults to 1).
---@alias tycho.Color number[]|{r: number, g: number, b: number, a?: number}|tycho.Vec3

---Mesh data on the renderer (never freed; the built-in shapes are shared).
---@class tycho.Mesh
---@field vertexCount integer
---@field indexCount integer
---@field id integer 0 is the placeholder (a cube)
local Mesh = {}

---Its triangles' positions as they are now, from the CPU copy the renderer keeps of every
---mesh: what MeshCollider{mesh=} takes.
---@return {vertices: number[], indices: integer[]} vertices {x1, y1, z1, ...}; indices from 1
function Mesh:triangles() end

---@class tycho.MeshModule
tycho.mesh = {}

---A unit cube centred on the origin (side 1).
---@return tycho.Mesh
function tycho.mesh.cube() end

---A UV sphere of radius 0.5.
---@param segments? integer around, 3..1024 (32)
---@param rings? integer pole to pole, 2..1024 (16)
---@return tycho.Mesh
function tycho.mesh.sphere(segments, rings) end

---A plane of side 1 in XZ facing +Y.
---@param subdivisions? integer per side (1)
---@return tycho.Mesh
function tycho.mesh.plane(subdivisions) end

---A quad of side 1 in XY facing +Z (what sprites draw).
---@return tycho.Mesh
function tycho.mesh.quad() end

---Loads an OBJ, glTF (.gltf) or binary glTF (.glb) file; a relative path is looked up
---beside the game first. On failure: the placeholder mesh, false and a message (and a
---mesh_load_failed log line).
---@param path string
---@return tycho.Mesh mesh, false|nil ok, string|nil message
function tycho.mesh.load(path) end

---A texture on the renderer.
---@class tycho.Texture
---@field width integer
---@field height integer
---@field id integer 0 is white, 1 the placeholder checker

---@class tycho.TextureModule
tycho.texture = {}

---Loads a PNG or JPEG (the same path twice gives the same texture). On failure: the
---placeholder checker, false and a message.
---@param path string
---@return tycho.Texture texture, false|nil ok, string|nil message
function tycho.texture.load(path) end

---A texture from RGBA8 bytes (top row first); white when pixels is nil.
---@param width integer
---@param height integer
---@param pixels? string width * height * 4 bytes
---@param name? string
---@return tycho.Texture
function tycho.texture.new(width, height, pixels, name) end

---The sRGB transfer curve (love.math.gammaToLinear's job). Sprite and tycho.ui colours are
---sRGB; material, light, ambient and sky colours are linear.
---@class tycho.ColorModule
tycho.color = {}

---An sRGB colour in linear terms, alpha unchanged: a colour table gives a new table
---{r, g, b, a}; numbers give numbers.
---@overload fun(color: tycho.Color): number[]
---@param r number
---@param g number
---@param b number
---@param a? number
---@return number r, number g, number b, number|nil a
function tycho.color.toLinear(r, g, b, a) end

---A linear colour in sRGB terms, alpha unchanged; the same shapes as toLinear.
---@overload fun(color: tycho.Color): number[]
---@param r number
---@param g number
---@param b number
---@param a? number
---@return number r, number g, number b, number|nil a
function tycho.color.toSrgb(r, g, b, a) end

---@class tycho.MaterialOptions
---@field baseColor? tycho.Color (1, 1, 1, 1), linear
---@field metallic? number 0..1 (0)
---@field roughness? number 0..1 (0.5)
---@field texture? tycho.Texture base colour map, multiplied in
---@field transparent? boolean drawn back to front, blended, casts no shadow
---@field emissive? tycho.Color
---@field unlit? boolean colour as given (sprites, UI)
---@field nearest? boolean nearest-neighbour filtering
---@field wrap? "repeat"|"clamp" past the texture's edge: tile ("repeat", the default) or clamp,
---keeping every sample half a texel inside the draw's uv rect (what sprites use)

---A material; every field reads and writes (writes apply from the next frame).
---@class tycho.Material: tycho.MaterialOptions
---@field baseColor number[] {r, g, b, a} (also .r .g .b .a)
---@field id integer

---Makes a material (unknown fields raise).
---@param opts? tycho.MaterialOptions
---@return tycho.Material
function tycho.material(opts) end

-- ---------------------------------------------------------------------------------------
-- Components

---@class tycho.CameraOptions
---@field orthographic? boolean
---@field fov? number degrees, vertical (60)
---@field size? number orthographic half height in world units (5)
---@field near? number
---@field far? number

---The view: the first Camera in the scene (scene:findCamera) renders; its object's
---world transform places it, looking down its -Z.
---@class tycho.Camera: tycho.Component
---@field orthographic boolean
---@field fov number
---@field size number
---@field near number
---@field far number
tycho.Camera = {}

---@param opts? tycho.CameraOptions
---@return tycho.Camera
function tycho.Camera.new(opts) end

---@param fovDeg? number (60)
---@param near? number (0.1)
---@param far? number (1000)
---@return tycho.Camera
function tycho.Camera.perspective(fovDeg, near, far) end

---@param size? number half the view's height in world units (5)
---@param near? number (-100)
---@param far? number (100)
---@return tycho.Camera
function tycho.Camera.orthographic(size, near, far) end

-- Screen <-> world. Screen coordinates are the mouse's (tycho.input.mouse()): x to the
-- right and y down from the top-left corner, in screen units over getViewportSize().
-- Depth is world units from the camera along its forward (-Z) axis, as Unity's
-- Camera.WorldToScreenPoint gives it: `near` at the near plane, negative behind the camera.

---The screen the conversions measure against: its engine's width and height when the
---engine was made with them, else tycho.window.getSize() (headless: the headless size).
---@return integer width, integer height
function tycho.Camera:getViewportSize() end

---Where a world point shows on screen: x, y from the top-left corner in screen units, and
---its depth in world units along the camera's forward (negative behind the camera, where
---x and y mean nothing).
---@param p tycho.Vec3|number[]|{x: number, y: number, z: number}|tycho.GameObject|number a point, an object (its world position), or x with y and z following
---@param y? number
---@param z? number
---@return number x, number y, number depth
function tycho.Camera:worldToScreen(p, y, z) end

---The world point at screen (x, y), `depth` world units in front of the camera along its
---forward (default: the near plane, where screenPointToRay's rays start). A Vec3 in table
---form whose fields keep double precision: worldToScreen gives x, y and depth back.
---@param x number screen units from the left
---@param y number screen units from the top
---@param depth? number
---@return tycho.Vec3
function tycho.Camera:screenToWorld(x, y, depth) end

---The ray through screen (x, y), for picking: origin on the near plane, direction a unit
---vector (the camera's forward when orthographic). Points origin + direction * t all show
---at (x, y).
---@param x number screen units from the left
---@param y number screen units from the top
---@return tycho.Vec3 origin
---@return tycho.Vec3 direction
function tycho.Camera:screenPointToRay(x, y) end

---Draws a mesh with a material at its object's world transform while the object is
---active and the component enabled. Writes to its fields take effect at once.
---@class tycho.MeshRenderer: tycho.Component
---@field mesh tycho.Mesh
---@field material tycho.Material|nil nil: the default material
---@field castShadows boolean (true)
---@field enabled boolean
tycho.MeshRenderer = {}

---@param mesh tycho.Mesh
---@param material? tycho.Material
---@return tycho.MeshRenderer
function tycho.MeshRenderer.new(mesh, material) end

---@class tycho.SpriteOptions
---@field texture? tycho.Texture white when nil
---@field rect? number[] {x, y, w, h} in pixels from the texture's top-left; nil: all of it
---@field color? tycho.Color tint, sRGB as LÖVE's: untonemapped in 2D {1, 1, 1} is 255 and {0.5, 0.5, 0.5} is 128
---@field nearest? boolean nearest-neighbour filtering (pixel art)
---@field wrap? "clamp"|"repeat" ("clamp"): samples stay half a texel inside the texture or
---`rect`, so neither the opposite edge nor a neighbouring atlas cell bleeds in; "repeat"
---tiles the texture (a rect larger than the image repeats it)

---A textured quad of side 1 in XY (scale the object to size it), unlit and blended.
---@class tycho.Sprite: tycho.Component, tycho.SpriteOptions
---@field enabled boolean
tycho.Sprite = {}

---@param opts? tycho.SpriteOptions
---@return tycho.Sprite
function tycho.Sprite.new(opts) end

---@class tycho.LightOptions
---@field color? tycho.Color (1, 1, 1)
---@field intensity? number
---@field castShadows? boolean
---@field enabled? boolean

---@class tycho.DirectionalLightOptions: tycho.LightOptions
---@field direction? tycho.Vec3Like the way the light travels; nil: the object's -Z

---The sun: the first enabled one that casts shadows drives the Shadow feature.
---@class tycho.DirectionalLight: tycho.Component, tycho.DirectionalLightOptions
tycho.DirectionalLight = {}

---@param opts? tycho.DirectionalLightOptions intensity 3, castShadows true by default
---@return tycho.DirectionalLight
function tycho.DirectionalLight.new(opts) end

---@class tycho.PointLightOptions: tycho.LightOptions
---@field range? number where the light reaches zero (10)

---@class tycho.PointLight: tycho.Component, tycho.PointLightOptions
tycho.PointLight = {}

---@param opts? tycho.PointLightOptions intensity 5 by default
---@return tycho.PointLight
function tycho.PointLight.new(opts) end

---@class tycho.SpotLightOptions: tycho.PointLightOptions
---@field innerAngle? number full cone in degrees where falloff starts (30)
---@field outerAngle? number full cone in degrees where the light ends (45)
---@field direction? tycho.Vec3Like nil: the object's -Z

---@class tycho.SpotLight: tycho.Component, tycho.SpotLightOptions
tycho.SpotLight = {}

---@param opts? tycho.SpotLightOptions
---@return tycho.SpotLight
function tycho.SpotLight.new(opts) end

-- ---------------------------------------------------------------------------------------
-- Frames, the graph, features

---A resource of this frame's render graph (valid during the frame that made it).
---@class tycho.RenderResource
---@field id integer
---@field width integer|nil
---@field height integer|nil
---@field format string|nil e.g. "RGBA16F"

---@alias tycho.ResourceRef tycho.RenderResource|string a resource or its name in this frame

---@class tycho.TransientOptions
---@field width? integer pixels (0: scale * the frame's width)
---@field height? integer
---@field scale? number fraction of the frame (1)
---@field format? "rgba8"|"srgb8_a8"|"rgba16f"|"rgba32f"|"r11g11b10f"|"rgb10_a2"|"r8"|"rg8"|"r16f"|"rg16f"|"r32f"|"rg32f"|"r32ui"|"depth16"|"depth24s8"|"depth32f"
---@field layers? integer
---@field samples? integer

---@class tycho.FullscreenPass
---@field name? string
---@field shader string a file (beside the game or under shaders/) or the GLSL 4.50 fragment source
---@field reads? table<string, tycho.ResourceRef>|tycho.ResourceRef[] sampler uniform name -> resource (arrays: input0, input1, ...)
---@field write tycho.ResourceRef the colour target (also in reads: read-modify-write)
---@field params? number[] up to 16 numbers, the uniform vec4 params[4]

---What a Lua pass's execute receives.
---@class tycho.PassContext
---@field name string
---@field width integer the frame's width
---@field height integer
---@field reads {texture: integer, width: integer, height: integer, format: string}[]
---@field writes {texture: integer, width: integer, height: integer, format: string}[]

---@class tycho.PassDesc
---@field name? string
---@field reads? tycho.ResourceRef[]
---@field writes? tycho.ResourceRef[]
---@field sideEffect? boolean never culled
---@field compute? boolean
---@field execute? fun(ctx: tycho.PassContext) runs when the graph executes (with a window); errors disable the feature that added it

---This frame's render graph.
---@class tycho.RenderGraph
local RenderGraph = {}

---A fullscreen pass with a user fragment shader. Returns the resource it wrote.
---@param desc tycho.FullscreenPass
---@return tycho.RenderResource
function RenderGraph:fullscreen(desc) end

---A pass of its own; returns its id.
---@param desc tycho.PassDesc
---@return integer
function RenderGraph:addPass(desc) end

---A texture that lives within this frame.
---@param name string
---@param opts? tycho.TransientOptions
---@return tycho.RenderResource
function RenderGraph:transient(name, opts) end

---The latest resource declared under name, or nil.
---@param name string
---@return tycho.RenderResource|nil
function RenderGraph:find(name) end

---The pass list (after the frame: order, culled passes, resources and their slots).
---@return string
function RenderGraph:dump() end

---The frame features share; fields read the current state, so a resource a feature
---just wrote is there for the next one. Other fields may be set to pass data along.
---@class tycho.Frame
---@field graph tycho.RenderGraph
---@field hdr tycho.RenderResource scene colour (RGBA16F)
---@field depth tycho.RenderResource
---@field backbuffer tycho.RenderResource the window
---@field shadowMap tycho.RenderResource|nil
---@field ao tycho.RenderResource|nil
---@field bloom tycho.RenderResource|nil
---@field lightGrid tycho.RenderResource|nil
---@field gbuffer {albedo: tycho.RenderResource|nil, normal: tycho.RenderResource|nil, material: tycho.RenderResource|nil}
---@field buckets {opaque: integer, transparent: integer, shadow: integer, culled: integer, disabled: integer, batches: integer}
---@field camera tycho.Camera|nil nil: the default camera at the origin
---@field time number the scene's elapsed seconds
---@field delta number
---@field width integer
---@field height integer
---@field index integer frames begun
---@field hasSun boolean
---@field lightCount integer point and spot lights
---@field engine tycho.Engine
---@field scene tycho.Scene

---A feature: built-in (tycho.features) or a table of the same shape.
---@class tycho.Feature
---@field name string
---@field enabled boolean false skips it; set false when it raises
---@field error string|nil the message that disabled it
---@field options table|nil built-in features: their options
---@field setup? fun(self: tycho.Feature, engine: tycho.Engine)
---@field earlyUpdate? fun(self: tycho.Feature, frame: tycho.Frame)
---@field update? fun(self: tycho.Feature, frame: tycho.Frame)
---@field addPasses? fun(self: tycho.Feature, frame: tycho.Frame)
---@field destroy? fun(self: tycho.Feature)
---@field configure? fun(self: tycho.Feature, opts: table): tycho.Feature built-in features: new options

---@class tycho.Features
tycho.features = {}
---@param opts? {cascades?: integer, size?: integer, distance?: number, bias?: number}
---@return tycho.Feature
function tycho.features.Shadow(opts) end
---@param opts? {kind?: "none"|"color"|"texture"|"atmosphere", color?: tycho.Color, texture?: tycho.Texture, intensity?: number}
---@return tycho.Feature
function tycho.features.Sky(opts) end
---@param opts? {ibl?: boolean, ambient?: tycho.Color, forwardPlus?: boolean}
---@return tycho.Feature
function tycho.features.ForwardLit(opts) end
---@return tycho.Feature
function tycho.features.Geometry(opts) end
---Screen-space ambient occlusion: `samples` per pixel (12), at half the frame's size on
---each axis unless `fullResolution` (a quarter of the cost; the lighting filters it up).
---@param opts? {radius?: number, intensity?: number, samples?: integer, fullResolution?: boolean}
---@return tycho.Feature
function tycho.features.AO(opts) end
---@param opts? {ibl?: boolean, ambient?: tycho.Color}
---@return tycho.Feature
function tycho.features.DeferredLighting(opts) end
---@return tycho.Feature
function tycho.features.PointSpotLight(opts) end
---@param opts? {forwardPlus?: boolean}
---@return tycho.Feature
function tycho.features.ForwardOverlay(opts) end
---@return tycho.Feature
function tycho.features.ForwardPlus(opts) end
---@param opts? {blend?: number}
---@return tycho.Feature
function tycho.features.TAA(opts) end
---@param opts? {threshold?: number, intensity?: number}
---@return tycho.Feature
function tycho.features.Bloom(opts) end
---@param opts? {focus?: number, range?: number, maxRadius?: number}
---@return tycho.Feature
function tycho.features.DoF(opts) end
---HDR to the window: exposure, a curve, then sRGB rounded to bytes. `mode` "auto" (default) is
---"none" under an orthographic camera (2D colours reach the screen as given) and ACES, or
---Reinhard with `aces = false`, under a perspective one.
---@param opts? {exposure?: number, aces?: boolean, mode?: "auto"|"aces"|"reinhard"|"none"}
---@return tycho.Feature
function tycho.features.Tonemap(opts) end
---@alias tycho.OverlayCorner "bottom-right"|"bottom-left"|"top-right"|"top-left"

---The F3 overlay on a dark translucent panel in one corner of the screen (bottom-right
---unless `corner` says otherwise; HUDs rarely sit there). The engine makes its own; set
---`engine.debugOverlayCorner` to move it.
---@param opts? {text?: string, corner?: tycho.OverlayCorner}
---@return tycho.Feature
function tycho.features.DebugOverlay(opts) end

-- ---------------------------------------------------------------------------------------
-- Presets

---@class tycho.SkyOptions
---@field kind? "none"|"color"|"texture"|"atmosphere" ("color")
---@field color? tycho.Color linear; any value is a colour ({0, 0, 0} is black); nil: {0.5, 0.7, 1}
---@field texture? tycho.Texture
---@field intensity? number

---@class tycho.PresetOptions
---@field sky? tycho.SkyOptions|false
---@field shadow? false|true|{cascades?: integer, size?: integer, distance?: number, bias?: number} (on)
---@field ibl? boolean
---@field ambient? tycho.Color linear; {0, 0, 0} is no ambient light; nil: 0.03 each
---@field taa? boolean|{blend?: number}
---@field dof? boolean|{focus?: number, range?: number, maxRadius?: number}
---@field bloom? boolean|{threshold?: number, intensity?: number}
---@field exposure? number (1)
---@field aces? boolean (true) ACES, else Reinhard, where a curve applies
---@field tonemap? "auto"|"aces"|"reinhard"|"none" ("auto": none under an orthographic camera)

---@class tycho.DeferredOptions: tycho.PresetOptions
---@field ao? "ssao"|false|{radius?: number, intensity?: number, samples?: integer, fullResolution?: boolean} (false)
---@field transparent? boolean ForwardOverlay for transparent objects (true)
---@field pointSpotLights? boolean (true)
---@field overlayLighting? "forward"|"forward+" ("forward")

---@class tycho.Preset
---@field name string
---@field options table
---@field features tycho.Feature[] in frame order
---@field apply fun(self: tycho.Preset, engine: tycho.Engine)

---@class tycho.Presets
tycho.presets = {}
---Shadow?, Sky, ForwardLit, TAA?, DoF?, Bloom?, Tonemap.
---@param opts? tycho.PresetOptions
---@return tycho.Preset
function tycho.presets.forward(opts) end
---Shadow?, Sky, ForwardPlus, ForwardLit{forwardPlus}, TAA?, DoF?, Bloom?, Tonemap.
---@param opts? tycho.PresetOptions
---@return tycho.Preset
function tycho.presets.forwardPlus(opts) end
---Shadow?, Geometry, AO?, DeferredLighting, Sky, PointSpotLight?, ForwardOverlay?, TAA?, DoF?, Bloom?, Tonemap.
---@param opts? tycho.DeferredOptions
---@return tycho.Preset
function tycho.presets.deferred(opts) end

-- ---------------------------------------------------------------------------------------
-- Stats and the engine's render side

---@class tycho.RenderStats
---@field drawCalls integer GL draw calls (a multi-draw counts once)
---@field draws integer instanced batches
---@field instances integer
---@field triangles integer
---@field passes integer
---@field culledPasses integer
---@field cpuMs number begin to end of the frame, CPU
---@field bucketMs number gather, bucket and instance upload
---@field shadowCasters integer shadow casters listed, each once however many cascades it falls in
---@field shadowCascades integer[] casters drawn into each shadow cascade (empty when not culled per cascade: the first frame with shadows)

---The last frame's render counters.
---@return tycho.RenderStats
function tycho.stats.render() end

---@class tycho.PassTime
---@field name string the pass ("Geometry", "AO.blur", ...)
---@field ms number|nil CPU time recording and submitting it; nil while untimed
---@field gpuMs number|nil GPU time running it, from timer queries of the newest frame the GPU finished (a frame or more behind); nil while untimed, until one is read, or without timer queries

---The passes the last executed frame ran (culled ones never run), in order; empty headless.
---@return tycho.PassTime[]
function tycho.stats.passTimes() end

---Times every pass from the next frame on (the overlay does while shown): CPU time at once,
---GPU time through timer queries read a few frames later. Nothing waits for the GPU, so the
---frame time stays comparable.
---@param on boolean
---@return boolean was whether it was on
function tycho.stats.timePasses(on) end

---@class tycho.Engine
---@field frameTime number wall seconds of the last frame
---@field debugOverlay boolean the on-screen overlay; F3 toggles it
---@field debugOverlayCorner tycho.OverlayCorner|nil the corner it sits in (nil: bottom-right)
---@field preset tycho.Preset|nil
---@field lastRenderError string|nil why the last frame's graph did not compile
---@field width integer|nil headless frame width (else the window's)
---@field height integer|nil
---@field onFeatureError fun(message: string, feature: tycho.Feature)|nil replaces the stderr report
local Engine = {}

---Removes every feature, then p:apply(engine) adds the preset's.
---@param p tycho.Preset
---@return tycho.Preset
function Engine:setPreset(p) end

---Adds a feature (setup runs once); where = {before = f_or_name} or {after = ...}.
---@param f tycho.Feature
---@param where? {before?: tycho.Feature|string, after?: tycho.Feature|string}
---@return tycho.Feature
function Engine:addFeature(f, where) end

---Removes a feature (destroy runs); false when it was not there.
---@param f tycho.Feature
---@return boolean
function Engine:removeFeature(f) end

---The features in frame order (a copy).
---@return tycho.Feature[]
function Engine:features() end

---Renders one frame now and returns it.
---@return tycho.Frame
function Engine:frame() end

---Writes the window's back buffer as a PNG once this frame has rendered.
---@param path string
---@return true|nil ok, string|nil message "no window" when headless
function Engine:screenshot(path) end
