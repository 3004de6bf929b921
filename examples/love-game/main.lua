-- Walker (LÖVE): a walker that moves while `left`/`right` is held, jumps on `jump` and collects
-- coins along a track; `reset` starts a new run (a new session epoch). The HUD (coins, Jump,
-- Menu) and the pause menu (Resume, New run, a disabled Options, a Volume slider) are drawn and
-- clickable, and published as the UI tree; the walker and the coins left are world objects.
-- It also takes the analog `walk` axis (it walks at that fraction of its speed), the pointer
-- and touch (a click or tap on the field walks it there; a click on a HUD button presses it)
-- and typed text (the runner's name), through LÖVE's own callbacks, which the kit calls, and
-- LÖVE's own queries, which the kit makes follow the agent: it polls the first joystick's first
-- axis for its walk (a real pad's left stick, or the bridge's `walk`) and love.touch's fingers.
-- Run it with `love . --debug-port 7820` (under `xvfb-run -a` on a machine without a display).
--
-- In your own game, copy kits/love/gamebridge.lua next to main.lua; this example links to it.
local gamebridge = require("gamebridge")

local SPEED = 2             -- px per simulated frame while a direction is held
local JUMP_SPEED, GRAVITY = 6, 0.5
local COINS = {20, 45, 80, 120, 160}
local TRACK_END = 200
local MENU = {x = 540, y = 240, w = 200, h = 48, gap = 12}
local HUD = {jump = {200, 16, 80, 32}, menu = {290, 16, 80, 32}}

local run, x, y, vy, jumps, coins, events = 0, 0, 0, 0, 0, {}, {}
local menuOpen, volume = false, 0.8
local walk, target, name, lastClick, lastTap, lastFingers = 0, nil, "", nil, nil, nil
local bridge

local function event(m)
  table.insert(events, {m = m})
  if #events > 20 then table.remove(events, 1) end
end

local function newRun()
  run = run + 1
  x, y, vy, jumps, coins, events, menuOpen, target = 0, 0, 0, 0, {}, {}, false, nil
end

local function onGround() return y == 0 and vy == 0 end

-- Raises in the air: the kit turns it into the command's failed result, with these words (without Lua's "main.lua:35: ").
local function jump()
  if not onGround() then error("the walker is in the air (jump again once it lands)") end
  vy, jumps = JUMP_SPEED, jumps + 1
  event("jump:" .. jumps)
end

local function screen()
  return menuOpen and "MenuScreen" or x >= TRACK_END and "FinishScreen" or "GameScreen"
end

local function button(i) return {MENU.x, MENU.y + (i - 1) * (MENU.h + MENU.gap), MENU.w, MENU.h} end
local MENU_ITEMS = {"Resume", "New run", "Options", "Volume"}

local function reset()
  newRun()
  bridge:newEpoch()
end

-- The UI tree: what is on screen now, with what a player can do to it.
local function ui()
  if not menuOpen then
    return {screen = screen(), nodes = {
      {id = "coins", role = "text", name = string.format("Coins %d/%d", #coins, #COINS), rect = {16, 22, 160, 20}},
      {id = "jump", role = "button", name = "Jump", rect = HUD.jump, enabled = onGround(), activate = jump},
      {id = "open-menu", role = "button", name = "Menu", rect = HUD.menu, activate = function() menuOpen = true end},
    }}
  end
  return {screen = screen(), nodes = {{id = "menu", role = "dialog", name = "Paused", children = {
    {id = "resume", role = "button", name = "Resume", rect = button(1), activate = function() menuOpen = false end},
    {id = "new-run", role = "button", name = "New run", rect = button(2), activate = reset},
    {id = "options", role = "button", name = "Options", rect = button(3), enabled = false},
    {id = "volume", role = "slider", name = "Volume", rect = button(4), value = volume, min = 0, max = 1,
      setValue = function(v) volume = v end},
  }}}}
end

local function world()
  local objects = {{id = "walker", type = "player", name = "Walker", pos = {x, y}, player = true}}
  for i, c in ipairs(COINS) do
    local taken = false
    for _, t in ipairs(coins) do taken = taken or t == c end
    if not taken then
      table.insert(objects, {id = "coin-" .. c, type = "coin", name = "Coin at " .. c, pos = {c, 0}, tags = {"coin"}, player = true})
    end
  end
  return objects
end

-- The fingers on the screen now, {{x, y}, ...}, from love.touch.
local function fingers()
  local list = {}
  for _, id in ipairs(love.touch.getTouches()) do table.insert(list, {love.touch.getPosition(id)}) end
  return list
end

local function snapshot()
  -- LÖVE's own queries, which the kit makes follow the agent's pointer, touches and gamepad
  local mx, my = love.mouse.getPosition()
  local pad = love.joystick.getJoysticks()[1]
  return {ui = {screen = screen()}, events = events,
    game = {run = run, x = x, y = y, jumps = jumps, coins = coins, volume = volume, walk = walk, name = name,
      lastClick = lastClick, lastTap = lastTap, lastFingers = lastFingers, mouse = {mx, my, love.mouse.isDown(1)},
      fingers = fingers(), pad = pad and {pad:getAxis(1), pad:isDown(1), pad:isGamepadDown("right")} or false}}
end

local commands = {
  jump = function() jump() end,
  reset = function() reset() end,
  teleport = {
    apply = function(args) x = tonumber(args.x) end,
    validate = function(args)
      local v = tonumber(args.x or "")
      if not v then return "argument 'x' must be a number, got '" .. tostring(args.x) .. "'" end
      if v < 0 or v > TRACK_END then return "x must be within 0-" .. TRACK_END end
    end,
  },
}

local MANIFEST = {toolsets = {{name = "play", description = "Walk the track (hold left/right with the bridge's hold tool)", tools = {
  {name = "jump", description = "Jump, if on the ground", args = {}},
  {name = "reset", description = "Start a new run from x=0 (a new session epoch)", args = {}},
  {name = "teleport", description = "Put the walker at x", args = {
    {name = "x", type = "number", description = "Track position, 0-" .. TRACK_END, required = true}}},
}}}}

bridge = gamebridge.new({name = "Walker (LÖVE)", version = "1.0.0", inputs = {"left", "right"},
  axes = {{name = "walk", min = -1, max = 1}}, pointer = true, touch = true, text = true,
  snapshot = snapshot, commands = commands, ui = ui, world = world, manifest = MANIFEST,
  stepFramesPerTick = 1000}) -- its update reads no wall clock
love.run = bridge:loop()

function love.load(args)
  newRun()
  bridge:listen(gamebridge.debugPort(args))
end

local function held(input)
  return bridge:isHeld(input) or love.keyboard.isDown(input)
end

-- One simulated frame (the kit skips it while the clock is paused).
function love.update(_dt)
  local pad = love.joystick.getJoysticks()[1]
  walk = pad and pad:getAxis(1) or 0
  local down = fingers()
  if #down > 0 then lastFingers = down end
  if menuOpen then return end -- the pause menu stops the walk
  local dx = (held("right") and SPEED or 0) - (held("left") and SPEED or 0) + SPEED * walk
  if target then -- walking to where the player clicked or tapped
    dx = dx + math.max(-SPEED, math.min(SPEED, target - x))
    if math.abs(target - x) <= SPEED then target = nil end
  end
  x = math.min(math.max(x + dx, 0), TRACK_END)
  if y > 0 or vy > 0 then
    y, vy = math.max(y + vy, 0), vy - GRAVITY
    if y == 0 then vy = 0 end
  end
  for _, c in ipairs(COINS) do
    local taken = false
    for _, t in ipairs(coins) do taken = taken or t == c end
    if not taken and math.abs(x - c) < SPEED then
      table.insert(coins, c)
      event("coin:" .. c)
    end
  end
end

-- The field's x under a screen point (the track is drawn 5 px a unit from x = 100).
local function trackX(sx) return math.min(math.max((sx - 100) / 5, 0), TRACK_END) end

function love.touchpressed(id, tx, ty)
  lastTap = {tx, ty}
  if not menuOpen then target = trackX(tx) end
end

-- Typed text is the runner's name (at most 12 characters).
function love.textinput(text) name = (name .. text):sub(1, 12) end

-- A click does what ui.activate does: the tree's own nodes, hit-tested by their rects; a left
-- click elsewhere on the field walks the walker there.
function love.mousepressed(mx, my, buttonNumber)
  lastClick = {mx, my, buttonNumber}
  local pressed = false
  local function hit(nodes)
    for _, n in ipairs(nodes) do
      local r = n.rect
      if r and n.activate and n.enabled ~= false and mx >= r[1] and mx < r[1] + r[3] and my >= r[2] and my < r[2] + r[4] then
        pressed = true
        return pcall(n.activate)
      end
      if n.children then hit(n.children) end
    end
  end
  hit(ui().nodes)
  if not pressed and not menuOpen and buttonNumber == 1 then target = trackX(mx) end
end

function love.draw()
  love.graphics.clear(0.1, 0.12, 0.16)
  love.graphics.setColor(0.4, 0.8, 0.4)
  love.graphics.rectangle("fill", 0, 520, 1280, 8)
  love.graphics.setColor(1, 0.85, 0.2)
  for _, c in ipairs(COINS) do
    local taken = false
    for _, t in ipairs(coins) do taken = taken or t == c end
    if not taken then love.graphics.circle("fill", 100 + c * 5, 500, 8) end
  end
  love.graphics.setColor(0.3, 0.6, 1)
  love.graphics.rectangle("fill", 100 + x * 5 - 10, 500 - y * 5 - 20, 20, 20)
  local function box(r, label, enabled)
    love.graphics.setColor(enabled and 0.25 or 0.35, 0.3, 0.4)
    love.graphics.rectangle("fill", r[1], r[2], r[3], r[4], 6)
    local shade = enabled and 1 or 0.6
    love.graphics.setColor(shade, shade, shade)
    love.graphics.printf(label, r[1], r[2] + r[4] / 2 - 7, r[3], "center")
  end
  if not menuOpen then
    love.graphics.setColor(1, 1, 1)
    love.graphics.print(string.format("Coins %d/%d", #coins, #COINS), 16, 24)
    box(HUD.jump, "Jump", onGround())
    box(HUD.menu, "Menu", true)
    return
  end
  love.graphics.setColor(1, 1, 1)
  love.graphics.printf("Paused", MENU.x, MENU.y - 32, MENU.w, "center")
  for i, label in ipairs(MENU_ITEMS) do
    box(button(i), i == 4 and string.format("Volume %.1f", volume) or label, i ~= 3)
  end
end
