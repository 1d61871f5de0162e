-- tests/bench/text_love/conf.lua: the LÖVE side of tests/bench/text_bench.sh: no vsync,
-- nothing loaded that the benchmark does not use.
function love.conf(t)
  t.window.width, t.window.height, t.window.vsync = 800, 600, 0
  t.modules.audio, t.modules.sound, t.modules.joystick, t.modules.physics = false, false, false, false
end
