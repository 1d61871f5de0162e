-- tests/bench/particles_love/conf.lua: the LÖVE peer of particles_bench.lua: a small
-- hidden window, no audio or joystick modules (nothing the measurement uses).
function love.conf(t)
  t.window.width, t.window.height = 320, 240
  t.window.vsync = 0
  t.modules.audio, t.modules.sound, t.modules.joystick, t.modules.physics = false, false, false, false
end
