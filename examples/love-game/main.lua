-- Walker (LÖVE): a walker that moves while `left`/`right` is held, jumps on `jump` and collects
-- coins along a track; `reset` starts a new run (a new session epoch). A small menu (Start, a
-- disabled Options, a Volume slider) is drawn and clickable, and published as the UI tree.
-- Run it with `love . --debug-port 7820` (under `xvfb-run -a` on a machine without a display).
--
-- In your own game, copy kits/love/gamebridge.lua next to main.lua; this example links to it.
local gamebridge = require("gamebridge")

local SPEED = 2             -- px per simulated frame while a direction is held
local JUMP_SPEED, GRAVITY = 6, 0.5
local COINS = {20, 45, 80, 120, 160}
local TRACK_END = 200
local MENU = {x = 540, y = 300, w = 200, h = 48, gap = 12}

local run, x, y, vy, jumps, coins, events = 0, 0, 0, 0, 0, {}, {}
local started, volume = false, 0.8
local bridge

local function event(m)
  table.insert(events, {m = m})
  if #events > 20 then table.remove(events, 1) end
end

local function newRun()
  run = run + 1
  x, y, vy, jumps, coins, events, started = 0, 0, 0, 0, {}, {}, false
end

local function start()
  started = true
  event("start")
end

local function button(i) return {MENU.x, MENU.y + (i - 1) * (MENU.h + MENU.gap), MENU.w, MENU.h} end

-- The UI tree: what is on screen now, with what a player can do to it.
local function ui()
  if started then
    return {screen = x >= TRACK_END and "FinishScreen" or "GameScreen",
      nodes = {{id = "coins", role = "text", name = "Coins: " .. #coins, rect = {16, 16, 120, 20}}}}
  end
  return {screen = "MenuScreen", nodes = {{id = "menu", role = "group", name = "Main menu", children = {
    {id = "start", role = "button", name = "Start", rect = button(1), activate = start},
    {id = "options", role = "button", name = "Options", rect = button(2), enabled = false},
    {id = "volume", role = "slider", name = "Volume", rect = button(3), value = volume, min = 0, max = 1,
      setValue = function(v) volume = v end},
  }}}}
end

local function world()
  local objects = {{id = "walker", type = "walker", name = "Walker", pos = {x, y}, player = true}}
  for i, c in ipairs(COINS) do
    local taken = false
    for _, t in ipairs(coins) do taken = taken or t == c end
    if not taken then table.insert(objects, {id = "coin-" .. i, type = "coin", pos = {c, 0}, tags = {"pickup"}, player = true}) end
  end
  return objects
end

local function snapshot()
  return {ui = {screen = x >= TRACK_END and "FinishScreen" or "GameScreen"}, events = events,
    game = {run = run, x = x, y = y, jumps = jumps, coins = coins, started = started, volume = volume}}
end

local commands = {
  jump = function()
    if y == 0 then
      vy, jumps = JUMP_SPEED, jumps + 1
      event("jump:" .. jumps)
    end
  end,
  reset = function()
    newRun()
    bridge:newEpoch()
  end,
  teleport = {
    apply = function(args) x = tonumber(args.x) end,
    validate = function(args)
      local v = tonumber(args.x or "")
      if not v then return "argument 'x' must be a number, got '" .. tostring(args.x) .. "'" end
      if v < 0 or v > TRACK_END then return "x must be within 0-" .. TRACK_END end
    end,
  },
  fail = function(args) error("the walker cannot " .. (args.what or "do that"), 0) end,
}

local MANIFEST = {toolsets = {{name = "play", description = "Walk the track (hold left/right with the bridge's hold tool)", tools = {
  {name = "jump", description = "Jump, if on the ground", args = {}},
  {name = "reset", description = "Start a new run from x=0 (a new session epoch)", args = {}},
  {name = "teleport", description = "Put the walker at x", args = {
    {name = "x", type = "number", description = "Track position, 0-" .. TRACK_END, required = true}}},
  {name = "fail", description = "Fail on the game's thread (what a failed command looks like)", args = {
    {name = "what", type = "string", description = "What the walker cannot do"}}},
}}}}

bridge = gamebridge.new({name = "Walker (LÖVE)", version = "1.0.0", inputs = {"left", "right"},
  snapshot = snapshot, commands = commands, ui = ui, world = world, manifest = MANIFEST})
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
  local dx = (held("right") and SPEED or 0) - (held("left") and SPEED or 0)
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

function love.mousepressed(mx, my)
  if started then return end
  local r = button(1)
  if mx >= r[1] and mx < r[1] + r[3] and my >= r[2] and my < r[2] + r[4] then start() end
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
  love.graphics.setColor(1, 1, 1)
  if started then
    love.graphics.print("Coins: " .. #coins, 16, 16)
    return
  end
  for i, label in ipairs({"Start", "Options", "Volume"}) do
    local r = button(i)
    love.graphics.setColor(i == 2 and 0.35 or 0.25, 0.3, 0.4)
    love.graphics.rectangle("fill", r[1], r[2], r[3], r[4], 6)
    love.graphics.setColor(i == 2 and 0.6 or 1, i == 2 and 0.6 or 1, i == 2 and 0.6 or 1)
    love.graphics.printf(i == 3 and string.format("Volume %.1f", volume) or label, r[1], r[2] + 16, r[3], "center")
  end
end
