-- Walker (LÖVE): a 1280x720 window. The kit paces frames itself (60 fps) and answers the
-- bridge while it waits, so vsync stays off: a blocking present would hold requests back.
function love.conf(t)
  t.identity = "walker-gamebridge"
  t.window.title = "Walker (LÖVE)"
  t.window.width, t.window.height = 1280, 720
  t.window.vsync = 0
  t.modules.physics, t.modules.audio, t.modules.sound = false, false, false
end
