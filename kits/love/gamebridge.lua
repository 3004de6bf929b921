--[[ gamebridge: the game side of the game-bridge contract for LÖVE 11 (one file, LuaSocket only).

Copy this file into your game and see docs/KITS.md. In main.lua:

    local gamebridge = require("gamebridge")
    local bridge = gamebridge.new({
      name = "Walker", version = "1.0.0", inputs = {"left", "right"},
      snapshot = function() return {ui = {screen = "GameScreen"}, game = {x = x}} end,
      commands = {jump = jump, teleport = {apply = teleport, validate = function(args) ... end}},
      ui = function() return {screen = "MenuScreen", nodes = {...}} end,   -- optional
      world = function() return {{id = "hero", type = "walker", pos = {x, y}}} end, -- optional
      manifest = {toolsets = {...}},
    })
    love.run = bridge:loop()                     -- the kit's frame loop (60 fps)
    function love.load(arg) bridge:listen(gamebridge.debugPort(arg)) end
    function love.update(dt) if bridge:isHeld("right") then x = x + 2 end end

Everything runs on LÖVE's main thread, so game code never races the kit. The kit's loop runs
one frame (events, queued commands, love.update unless the clock is paused, love.draw), then
waits for the next frame in socket.select on the server and its connections, so a request is
answered as soon as it arrives, between frames, and the game loop never blocks on a client.
A command is validated when its request arrives and applied at the start of the next frame;
a handler that raises becomes a failed result with its message, and the game runs on.

Pointer, touch, analog axes and text (optional): axes = {{name = "walk", min = -1, max = 1}},
pointer = true, touch = true, text = true. The kit calls the game's own LÖVE callbacks on the
frame that applies each command, before love.update: love.mousemoved, love.mousepressed and
love.mousereleased (1 left, 2 right, 3 middle), love.wheelmoved, love.touchpressed, touchmoved
and touchreleased (the touch id is the number sent), love.joystickaxis(joystick, index, value),
love.gamepadaxis(joystick, name, value) and love.textinput; and answers bridge:axis(name),
bridge:pointer() (x, y, buttons), bridge:isMouseDown(button), bridge:touches() and
bridge:takeText(). LÖVE's own queries follow the agent too, so a game that polls them needs no
extra code. With pointer = true, love.mouse.getPosition, getX, getY and isDown report one mouse:
the agent's position from its move until the real mouse moves, a button down while the real
device or any owner holds it. With touch = true, love.touch.getTouches lists the agent's touch
points after the real screen's, and getPosition and getPressure answer for them. With axes,
bridge.joystick is a gamepad that love.joystick.getJoysticks lists after the real ones: getAxis(i)
and getGamepadAxis(name) read the declared axes, isDown(i) and isGamepadDown(name) the declared
inputs. bridge.realMouse, realTouch and realJoystick keep LÖVE's own functions.
]]
local socket = require("socket")
local hasUtf8, utf8 = pcall(require, "utf8") -- LÖVE ships it; counting bytes is the fallback
if not hasUtf8 then utf8 = nil end

local M = {}

local RESERVED = {"input.hold", "input.release", "input.releaseAll", "input.axis", "input.pointer", "input.click", "input.wheel",
  "input.touch", "input.text", "clock.pause", "clock.resume", "clock.step", "ui.activate", "ui.setValue", "ui.focus"}
-- the capability each reserved command needs (the rest: the part before the dot)
local NEEDS = {["input.axis"] = "axis", ["input.pointer"] = "pointer", ["input.click"] = "pointer", ["input.wheel"] = "pointer",
  ["input.touch"] = "touch", ["input.text"] = "text"}
local INPUT_CAPS = {"input", "axis", "pointer", "touch", "text"}
local MAX_COORD = 65535 -- screenshot pixels
local MAX_WHEEL = 10000
local MAX_TOUCH_ID = 9
local MAX_CLICKS = 3 -- a triple click is the most any game reads
local MAX_TEXT = 1000
-- contract bit -> LÖVE button number
local BUTTONS = {{bit = 1, love = 1}, {bit = 2, love = 2}, {bit = 4, love = 3}}
local MAX_LEASE_MS = 3600000 -- a hold is meant to end; the bridge re-holds
local MAX_STEP_FRAMES = 10000 -- later commands wait behind a step, so keep it bounded
local MAX_REQUEST_BYTES = 65536
local REQUEST_TIMEOUT = 10 -- seconds a connection may take from connect to its answer sent
local MAX_PEERS = 64 -- when full, a new connection closes the one that has waited longest for its request
local MAX_RESULTS = 32
local ERRORS_KEPT = 64 -- errors the kit caught, served on /errors (the bridge counts repeats)
local FRAMES_KEPT = 3600 -- frame times GET /frames serves: a minute at 60 frames a second
local MAX_STALL_MS = 1000 -- the longest frames.stall
local STALL = "frames.stall" -- holds the game's thread on a frame: a slow frame to see in frame_stats
local MAX_ERROR_CHARS = 500

-- --- JSON -----------------------------------------------------------------------------------
-- An empty table is written as [] (lists are the common case in a snapshot); M.object() makes
-- an empty table that is written as {}.
local OBJECT = {}
function M.object(t) return setmetatable(t or {}, OBJECT) end

local function isArray(t)
  if getmetatable(t) == OBJECT then return false end
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k % 1 ~= 0 then return false end
    n = n + 1
  end
  for i = 1, n do if t[i] == nil then return false end end
  return true
end

local ESCAPES = {['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t"}
local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c) return ESCAPES[c] or string.format("\\u%04x", c:byte()) end) .. '"'
end

local function encode(v, out)
  local t = type(v)
  if t == "nil" then out[#out + 1] = "null"
  elseif t == "boolean" then out[#out + 1] = v and "true" or "false"
  elseif t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then out[#out + 1] = "null"
    elseif v % 1 == 0 and math.abs(v) < 1e15 then out[#out + 1] = string.format("%d", v)
    else out[#out + 1] = string.format("%.14g", v) end
  elseif t == "string" then out[#out + 1] = quote(v)
  elseif t == "table" then
    if isArray(v) then
      out[#out + 1] = "["
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = "," end
        encode(x, out)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k, x in pairs(v) do
        if type(x) ~= "function" then keys[#keys + 1] = tostring(k) end
      end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = quote(k) .. ":"
        local x = v[k]
        if x == nil then x = v[tonumber(k)] end
        encode(x, out)
      end
      out[#out + 1] = "}"
    end
  else out[#out + 1] = "null" end -- functions and userdata are not data
end

function M.json(v)
  local out = {}
  encode(v, out)
  return table.concat(out)
end

-- --- small helpers ----------------------------------------------------------------------------
local function contains(list, x)
  for _, y in ipairs(list or {}) do if y == x then return true end end
  return false
end

local function now() return socket.gettime() end

local function decode(s)
  s = s:gsub("+", " ")
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

local function parseQuery(q)
  local out = {}
  for pair in q:gmatch("[^&]+") do
    local k, v = pair:match("^([^=]*)=?(.*)$")
    out[decode(k)] = decode(v)
  end
  return out
end

-- The port from LÖVE's arg: `--debug-port 7820` or `--debug-port=7820`; nil without the flag.
function M.debugPort(args)
  for i, a in ipairs(args or {}) do
    if a == "--debug-port" then return args[i + 1] or "(nothing)" end
    local v = a:match("^%-%-debug%-port=(.*)$")
    if v then return v end
  end
  return nil
end

-- The process id, the working directory and private files through LuaJIT's FFI (POSIX; on
-- other systems the registry entry is skipped, which never breaks the game).
local posix = (function()
  local ok, ffi = pcall(require, "ffi")
  if not ok or ffi.os == "Windows" then return nil end
  local defined = pcall(ffi.cdef, [[
    int getpid(void);
    char *getcwd(char *buf, size_t size);
    int mkdir(const char *path, unsigned int mode);
    unsigned int umask(unsigned int mask);
  ]])
  if not defined then return nil end
  return {
    pid = function() return ffi.C.getpid() end,
    cwd = function()
      local buf = ffi.new("char[4096]")
      return ffi.C.getcwd(buf, 4096) ~= nil and ffi.string(buf) or "."
    end,
    mkdirs = function(path)
      local sofar = ""
      for part in path:gmatch("[^/]+") do
        sofar = sofar .. "/" .. part
        ffi.C.mkdir(sofar, tonumber("700", 8))
      end
    end,
    umask = function(m) return ffi.C.umask(m) end,
  }
end)()

local function registryDir()
  local dir = os.getenv("GAME_BRIDGE_INSTANCES")
  if dir and dir ~= "" then return dir end
  local home = os.getenv("GAME_BRIDGE_HOME")
  if not home or home == "" then home = (os.getenv("HOME") or ".") .. "/.game-bridge" end
  return home .. "/instances"
end

-- --- the surface -------------------------------------------------------------------------------
local Bridge = {}
Bridge.__index = Bridge

-- options: name, version, protocol, snapshot (function -> table), commands (name -> function(args)
-- or {apply, validate}), inputs (the names the game reads: the "input" capability), clock
-- (default true), ui (function -> {screen, nodes}), world (function -> objects), manifest,
-- fps (default 60), onClose (function(reason); default love.event.quit()).
function M.new(options)
  local self = setmetatable({}, Bridge)
  self.name = options.name or "LÖVE game"
  self.version = options.version or "0.0.0"
  self.protocol = options.protocol or 1
  self.snapshotFn = options.snapshot or function() return {} end
  self.commands = {}
  for name, c in pairs(options.commands or {}) do
    if name == "close" or name:match("^input%.") or name:match("^clock%.") or name:match("^ui%.") then
      error("gamebridge: command name '" .. name .. "' is reserved (close, input.*, clock.* and ui.* are the kit's)")
    end
    self.commands[name] = type(c) == "function" and {apply = c} or c
  end
  self.inputs = options.inputs
  self.axes = {}
  for _, a in ipairs(options.axes or {}) do
    if type(a.name) ~= "string" or type(a.min) ~= "number" or type(a.max) ~= "number" or not (a.min <= 0 and 0 <= a.max and a.min < a.max) then
      error("gamebridge: an axis is {name = ..., min = ..., max = ...} with min <= 0 <= max and min < max")
    end
    table.insert(self.axes, {name = a.name, min = a.min, max = a.max})
  end
  self.clock = options.clock ~= false
  self.uiFn, self.worldFn = options.ui, options.world
  self.manifest = options.manifest
  self.fps = options.fps or 60
  -- how many frames of a clock.step one loop frame may simulate (love.update once each); a game
  -- whose update reads no wall clock can take many, so a saved test's replay outruns real time
  local batch = tonumber(options.stepFramesPerTick)
  self.batch = batch and batch >= 1 and math.floor(batch) or 1
  self.onClose = options.onClose
  self.capabilities = {}
  if self.inputs then table.insert(self.capabilities, "input") end
  if #self.axes > 0 then table.insert(self.capabilities, "axis") end
  for _, c in ipairs({"pointer", "touch", "text"}) do
    if options[c] then table.insert(self.capabilities, c) end
  end
  if self.clock then table.insert(self.capabilities, "clock") end
  if self.uiFn then table.insert(self.capabilities, "ui") end
  if self.worldFn then table.insert(self.capabilities, "world") end
  self.frame, self.simFrame, self.sessionEpoch = 0, 0, 1
  -- {frame, simFrame, ms, drawMs} of recent frames, from one frame's start to the next one's
  self.frames, self.framesAt, self.frameStart, self.drawMs, self.stall = {}, 1, nil, nil, nil
  self.queue, self.nextId, self.completed, self.results = {}, 1, 0, {}
  self.errors, self.errorSeq = {}, 0
  self.held = {} -- "input\nowner" -> {input, owner, untilT (seconds)}
  self.axisHolds = {} -- in hold order, the latest last: {input, owner, value, untilT}
  self.axisTold = {} -- name -> the value the game last heard
  self.pointerState = {x = 0, y = 0, buttons = 0}
  self.buttonsOf = {} -- owner -> the buttons that owner holds; one mouse: down is every owner's together
  self.touchPoints = {} -- id -> {x, y, owner}
  self.textQueue = {}
  -- The bridge launched the game paused: its first simulated frame is one the bridge steps.
  self.paused, self.stepLeft, self.stepId = self.clock and os.getenv("GAME_BRIDGE_START_PAUSED") == "1", 0, 0
  self.peers = {}
  self.published = {ui = {sequence = 0, revision = 0}, world = {sequence = 0, revision = 0}}
  self.shotWaiters = {}
  if options.pointer then self:followMouse() end
  if options.touch then self:followTouch() end
  if #self.axes > 0 then self:makeJoystick() end
  return self
end

-- Makes love.mouse's queries report one mouse (see the header), so a game that polls them sees
-- the agent's pointer without extra code. A real mousemoved, which only SDL sends, hands the
-- position back to the real mouse.
function Bridge:followMouse()
  if not (love and love.mouse and love.handlers) or self.realMouse then return end
  local real = {getPosition = love.mouse.getPosition, getX = love.mouse.getX, getY = love.mouse.getY,
    isDown = love.mouse.isDown}
  local bridge = self
  self.realMouse = real
  local function position()
    if bridge.agentMoved then return bridge.pointerState.x, bridge.pointerState.y end
    return real.getPosition()
  end
  love.mouse.getPosition = position
  love.mouse.getX = function() return (position()) end
  love.mouse.getY = function() return select(2, position()) end
  love.mouse.isDown = function(...)
    for _, button in ipairs({...}) do
      if bridge:isMouseDown(button) then return true end
    end
    return real.isDown(...)
  end
  local moved = love.handlers.mousemoved
  love.handlers.mousemoved = function(...)
    bridge.agentMoved = false
    return moved(...)
  end
end

-- Makes love.touch's queries list the agent's touch points after the real screen's, so a game
-- that polls them sees the agent's fingers without extra code. The agent's ids are the numbers
-- it sends (0 to 9); the real screen's are LÖVE's own, so the two never collide.
function Bridge:followTouch()
  if not (love and love.touch) or self.realTouch then return end
  local real = {getTouches = love.touch.getTouches, getPosition = love.touch.getPosition,
    getPressure = love.touch.getPressure}
  local bridge = self
  self.realTouch = real
  love.touch.getTouches = function()
    local ids = real.getTouches()
    for _, t in ipairs(bridge:touches()) do table.insert(ids, t.id) end
    return ids
  end
  love.touch.getPosition = function(id)
    local t = bridge.touchPoints[id]
    if t then return t.x, t.y end
    return real.getPosition(id)
  end
  love.touch.getPressure = function(id)
    if bridge.touchPoints[id] then return 1 end
    return real.getPressure(id)
  end
end

-- The bridge's gamepad, as a LÖVE Joystick answers: its axes are the declared axes in their
-- order (getAxis(1) is the first; getGamepadAxis takes an axis's name, so axes named leftx,
-- lefty, triggerleft... read as a standard gamepad's), at the values the game last heard through
-- love.gamepadaxis; its buttons are the declared inputs in their order (isDown(1) is the first;
-- isGamepadDown takes an input's name), down while any owner holds them.
local Pad = {}
Pad.__index = Pad

function Pad:getName() return "game-bridge" end
function Pad:getGUID() return "game-bridge" end
function Pad:getID() return 0, -1 end -- LÖVE numbers real joysticks from 1
function Pad:getDeviceInfo() return 0, 0, 0 end
function Pad:getJoystickType() return "gamepad" end
function Pad:isConnected() return true end
function Pad:isGamepad() return true end
function Pad:getAxisCount() return #self.bridge.axes end
function Pad:getButtonCount() return #(self.bridge.inputs or {}) end
function Pad:getHatCount() return 0 end
function Pad:getHat() return "c" end
function Pad:isVibrationSupported() return false end
function Pad:getVibration() return 0, 0 end
function Pad:setVibration() return false end
function Pad:type() return "Joystick" end
function Pad:typeOf(name) return name == "Joystick" or name == "Object" end

function Pad:getAxis(i)
  local a = self.bridge.axes[i]
  return a and self.bridge.axisTold[a.name] or 0
end

function Pad:getAxes()
  local values = {}
  for i = 1, #self.bridge.axes do values[i] = self:getAxis(i) end
  return unpack(values)
end

function Pad:getGamepadAxis(name)
  return self.bridge.axisTold[name] or 0
end

function Pad:isDown(...)
  local inputs = self.bridge.inputs or {}
  for _, i in ipairs({...}) do
    if inputs[i] and self.bridge:isHeld(inputs[i]) then return true end
  end
  return false
end

function Pad:isGamepadDown(...)
  for _, name in ipairs({...}) do
    if contains(self.bridge.inputs or {}, name) and self.bridge:isHeld(name) then return true end
  end
  return false
end

-- With declared axes, bridge.joystick is the bridge's gamepad (above): love.gamepadaxis and
-- love.joystickaxis get it, and love.joystick.getJoysticks lists it after the real ones (and
-- love.joystickadded hears of it on the first frame), so a game that polls its joysticks reads
-- the agent's sticks without extra code. A game that turns the joystick module off still gets it
-- in the axis callbacks.
function Bridge:makeJoystick()
  self.joystick = setmetatable({bridge = self}, Pad)
  if not (love and love.joystick) or self.realJoystick then return end
  local real = {getJoysticks = love.joystick.getJoysticks, getJoystickCount = love.joystick.getJoystickCount}
  local pad = self.joystick
  self.realJoystick = real
  love.joystick.getJoysticks = function()
    local list = real.getJoysticks()
    table.insert(list, pad)
    return list
  end
  love.joystick.getJoystickCount = function() return real.getJoystickCount() + 1 end
end

-- Binds 127.0.0.1:port and writes the registry entry. Without a port (nil) nothing is served.
-- A bad port is said on stderr and the game runs on without its surface. A busy port is said on
-- stderr and the game exits (code 1): whatever holds the port would be taken for this game.
function Bridge:listen(port)
  if port == nil then return false end
  local n = tonumber(port)
  if not n or n % 1 ~= 0 or n < 1 or n > 65535 then
    io.stderr:write(string.format("GameBridge: --debug-port must be a port number (1-65535), got '%s'; the game runs without its bridge surface\n", tostring(port)))
    return false
  end
  local server, err = socket.bind("127.0.0.1", n)
  if not server then
    io.stderr:write(string.format("GameBridge: cannot listen on 127.0.0.1:%d (%s); the game exits, since whatever holds the port would be taken for it\n", n, tostring(err)))
    io.stderr:flush()
    os.exit(1)
  end
  server:settimeout(0)
  self.server, self.port = server, n
  print(string.format("GameBridge: listening on 127.0.0.1:%d", n))
  -- Line by line from here: LÖVE's error handler prints the error and then waits on its own
  -- screen, so a buffered error would reach the log only when the game is killed, or never.
  io.stdout:setvbuf("line")
  self:writeRegistryEntry()
  return true
end

-- A declared axis's value now: the latest owner's hold, 0 at rest.
function Bridge:axis(name)
  local t, value = now(), 0
  for _, h in ipairs(self.axisHolds) do
    if h.input == name and h.untilT > t then value = h.value end
  end
  return value
end

-- Where the pointer is (screenshot pixels) and its buttons (1 left, 2 right, 4 middle).
function Bridge:pointer() return self.pointerState.x, self.pointerState.y, self.pointerState.buttons end

-- As love.mouse.isDown: 1 left, 2 right, 3 middle.
function Bridge:isMouseDown(button)
  for _, b in ipairs(BUTTONS) do
    if b.love == button then return self.pointerState.buttons % (2 * b.bit) >= b.bit end
  end
  return false
end

-- The touch points down now: {{id, x, y}, ...} by id.
function Bridge:touches()
  local list = {}
  for id, p in pairs(self.touchPoints) do table.insert(list, {id = id, x = p.x, y = p.y}) end
  table.sort(list, function(a, b) return a.id < b.id end)
  return list
end

-- The text typed since the last call (the game's text queue), emptied.
function Bridge:takeText()
  local text = table.concat(self.textQueue)
  self.textQueue = {}
  return text
end

function Bridge:isHeld(input)
  for _, h in pairs(self.held) do
    if h.input == input then return true end
  end
  return false
end

-- A new run or level in the same process: waits that span it fail instead of lying.
function Bridge:newEpoch() self.sessionEpoch = self.sessionEpoch + 1 end

function Bridge:isPaused() return self.paused end

-- A failed command's words: Lua's "file:line: " prefix (error() called without level 0) is
-- the game's source position, not what happened; at most MAX_ERROR_CHARS, as every kit.
local function errorText(err)
  local text = tostring(err)
  if type(err) == "string" then text = text:gsub("^[^:\n]+:%d+: ", "", 1) end
  if text == "" then text = "failed" end
  return text:sub(1, MAX_ERROR_CHARS)
end

-- --- the frame -----------------------------------------------------------------------------
-- A frame starts: the previous one's time is known now; hold the thread if a stall is due.
function Bridge:timeFrame()
  local t = now()
  if self.frameStart then
    local entry = {frame = self.frame - 1, simFrame = self.simFrame, ms = (t - self.frameStart) * 1000, drawMs = self.drawMs}
    if #self.frames < FRAMES_KEPT then
      table.insert(self.frames, entry)
    else
      self.frames[self.framesAt] = entry
      self.framesAt = self.framesAt % FRAMES_KEPT + 1
    end
  end
  self.frameStart, self.drawMs = t, nil
  if self.stall and self.stall[1] == self.frame then
    socket.sleep(self.stall[2] / 1000)
    self.stall = nil
  end
end

-- GET /frames: the kept frame times after frame `since`, oldest first.
function Bridge:framesSince(since)
  local out, n = {}, #self.frames
  for i = 0, n - 1 do
    local f = self.frames[(self.framesAt - 1 + i) % n + 1]
    if f.frame > since then
      local e = {frame = f.frame, simFrame = f.simFrame, ms = math.floor(f.ms * 1000 + 0.5) / 1000}
      if f.drawMs then e.drawMs = math.floor(f.drawMs * 1000 + 0.5) / 1000 end
      table.insert(out, e)
    end
  end
  return {frames = out, kept = FRAMES_KEPT}
end

-- The start of a frame: leases, then queued commands in order (a clock.step holds back what
-- follows until its frames have run). Returns whether this frame simulates.
function Bridge:beginFrame()
  self.frame = self.frame + 1
  self:timeFrame()
  local t = now()
  for key, h in pairs(self.held) do
    if h.untilT <= t then self.held[key] = nil end
  end
  for i = #self.axisHolds, 1, -1 do
    if self.axisHolds[i].untilT <= t then table.remove(self.axisHolds, i) end
  end
  self:clickTick() -- a click's next press or lift comes before any later command
  while #self.queue > 0 and self.stepLeft == 0 and not self.click do
    local c = table.remove(self.queue, 1)
    local stack
    local ok, err = xpcall(self.apply, function(e)
      stack = debug.traceback("", 2):gsub("^\nstack traceback:\n", "")
      return e
    end, self, c.id, c.cmd, c.args)
    local result = {id = c.id, ok = true}
    if not ok then
      result = {id = c.id, ok = false, error = errorText(err)}
      self:noteError(tostring(err), stack, "command")
    end
    table.insert(self.results, result)
    if #self.results > MAX_RESULTS then table.remove(self.results, 1) end
    if self.stepLeft == 0 and not self:clickPressing() then self.completed = c.id end
  end
  if self.realJoystick and not self.joystickAnnounced then -- as LÖVE announces each pad at start
    self.joystickAnnounced = true
    if love.joystickadded then love.joystickadded(self.joystick) end
  end
  self:tellAxes()
  return not self.paused or self.stepLeft > 0
end

-- After a frame: count what it simulated (true for one frame, or a number of frames), and
-- complete a step once its frames have run.
function Bridge:endFrame(simulated)
  local n = simulated == true and 1 or tonumber(simulated) or 0
  if n <= 0 then return end
  self.simFrame = self.simFrame + n
  if self.stepLeft > 0 then
    self.stepLeft = math.max(0, self.stepLeft - n)
    if self.stepLeft == 0 then self.completed = self.stepId end
  end
end

-- A click still has a press to come: it completes on the frame of its last press.
function Bridge:clickPressing()
  return self.click ~= nil and contains(self.click.left, "press")
end

-- input.click's next press or lift, one a frame, so a game that polls the button sees each
-- press for a frame; later commands wait until the click has lifted.
function Bridge:clickTick()
  local c = self.click
  if not c then return end
  local phase = table.remove(c.left, 1)
  local mine = self.buttonsOf[c.owner] or 0
  local down = mine % (2 * c.bit) >= c.bit
  if phase == "press" and not down then mine = mine + c.bit end
  if phase == "lift" and down then mine = mine - c.bit end
  self:movePointer(c.x, c.y, mine, c.owner)
  if #c.left == 0 then self.click = nil end
  if phase == "press" and not contains(c.left, "press") then self.completed = c.id end
end

-- Calls the game's LÖVE callback, if it has one.
local function call(name, ...)
  if love[name] then love[name](...) end
end

-- On the frame: the game's love.gamepadaxis (the axis's name) and love.joystickaxis (its place
-- in `axes`) for each axis whose value changed (set, released, lease over), from the bridge's
-- gamepad, as LÖVE tells a real gamepad's.
function Bridge:tellAxes()
  for i, a in ipairs(self.axes) do
    local v = self:axis(a.name)
    if v ~= (self.axisTold[a.name] or 0) then
      self.axisTold[a.name] = v
      call("joystickaxis", self.joystick, i, v)
      call("gamepadaxis", self.joystick, a.name, v)
    end
  end
end

-- Moves the pointer and sets `who`'s buttons, then presses and lifts the buttons that changed,
-- through the game's callbacks. One mouse: a button is down while any owner holds it.
function Bridge:movePointer(x, y, buttons, who)
  local p = self.pointerState
  if x ~= p.x or y ~= p.y then call("mousemoved", x, y, x - p.x, y - p.y, false) end
  self.agentMoved = true
  self.buttonsOf[who] = buttons > 0 and buttons or nil
  local down = 0
  for _, b in ipairs(BUTTONS) do
    for _, held in pairs(self.buttonsOf) do
      if held % (2 * b.bit) >= b.bit then down = down + b.bit; break end
    end
  end
  local before = p.buttons
  p.x, p.y, p.buttons = x, y, down
  for _, b in ipairs(BUTTONS) do
    local was, is = before % (2 * b.bit) >= b.bit, down % (2 * b.bit) >= b.bit
    if is and not was then call("mousepressed", x, y, b.love, false, 1)
    elseif was and not is then call("mousereleased", x, y, b.love, false, 1) end
  end
end

function Bridge:applyTouch(id, phase, x, y, who)
  local t = self.touchPoints[id]
  if phase == "down" then
    if t then error(string.format("touch %d is already down (send phase move or up)", id), 0) end
    self.touchPoints[id] = {x = x, y = y, owner = who}
    return call("touchpressed", id, x, y, 0, 0, 1)
  end
  if not t then error(string.format("touch %d is not down (send phase down first)", id), 0) end
  local dx, dy = x - t.x, y - t.y
  if phase == "up" then
    self.touchPoints[id] = nil
    return call("touchreleased", id, x, y, dx, dy, 0)
  end
  t.x, t.y = x, y
  call("touchmoved", id, x, y, dx, dy, 1)
end

function Bridge:apply(id, cmd, args)
  local who = args.owner or ""
  if cmd == STALL then
    local at = tonumber(args.frame or "") or self.frame
    if at < self.frame then error(string.format("frame %d has passed (the game is at frame %d)", at, self.frame), 0) end
    self.stall = {at, tonumber(args.ms)}
    if at == self.frame then
      socket.sleep(self.stall[2] / 1000)
      self.stall = nil
    end
  elseif cmd == "input.hold" then
    self.held[args.input .. "\n" .. who] = {input = args.input, owner = who, untilT = now() + tonumber(args.leaseMs) / 1000}
  elseif cmd == "input.release" then
    self.held[args.input .. "\n" .. who] = nil
    for i = #self.axisHolds, 1, -1 do
      local h = self.axisHolds[i]
      if h.input == args.input and h.owner == who then table.remove(self.axisHolds, i) end
    end
  elseif cmd == "input.releaseAll" then
    for key, h in pairs(self.held) do
      if h.owner == who then self.held[key] = nil end
    end
    for i = #self.axisHolds, 1, -1 do
      if self.axisHolds[i].owner == who then table.remove(self.axisHolds, i) end
    end
    if self.buttonsOf[who] then
      self:movePointer(self.pointerState.x, self.pointerState.y, 0, who)
    end
    for _, tp in ipairs(self:touches()) do
      if self.touchPoints[tp.id].owner == who then self:applyTouch(tp.id, "up", tp.x, tp.y, who) end
    end
  elseif cmd == "input.axis" then
    for i = #self.axisHolds, 1, -1 do -- re-inserted last: the latest hold wins
      local h = self.axisHolds[i]
      if h.input == args.input and h.owner == who then table.remove(self.axisHolds, i) end
    end
    table.insert(self.axisHolds, {input = args.input, owner = who, value = tonumber(args.value),
      untilT = now() + tonumber(args.leaseMs) / 1000})
  elseif cmd == "input.pointer" then
    self:movePointer(tonumber(args.x), tonumber(args.y), tonumber(args.buttons), who)
  elseif cmd == "input.click" then -- down now, up on the next frame (clickTick), `count` times
    local left = {}
    for _ = 1, tonumber(args.count) do table.insert(left, "press"); table.insert(left, "lift") end
    self.click = {id = id, owner = who, x = tonumber(args.x), y = tonumber(args.y), bit = tonumber(args.button), left = left}
    self:clickTick()
  elseif cmd == "input.wheel" then
    -- LÖVE's wheel counts notches, y > 0 away from the user: a page's dy > 0 scrolls down
    local function notches(d) local n = d / 100; return n > 0 and math.max(1, math.floor(n + 0.5)) or n < 0 and math.min(-1, -math.floor(-n + 0.5)) or 0 end
    call("wheelmoved", notches(tonumber(args.dx)), -notches(tonumber(args.dy)))
  elseif cmd == "input.touch" then
    self:applyTouch(tonumber(args.id), args.phase, tonumber(args.x), tonumber(args.y), who)
  elseif cmd == "input.text" then
    table.insert(self.textQueue, args.text)
    while #self.textQueue > MAX_TEXT do table.remove(self.textQueue, 1) end
    call("textinput", args.text)
  elseif cmd == "clock.pause" then self.paused = true
  elseif cmd == "clock.resume" then self.paused = false
  elseif cmd == "clock.step" then
    self.paused, self.stepLeft, self.stepId = true, tonumber(args.frames), id
  elseif cmd:match("^ui%.") then self:applyUi(cmd, args)
  elseif cmd == "close" then self:requestClose("command")
  else self.commands[cmd].apply(args) end
end

function Bridge:requestClose(reason)
  if self.closing then return end
  self.closing = true
  if self.onClose then self.onClose(reason) else love.event.quit(0) end
end

-- --- the trees ---------------------------------------------------------------------------------
-- Finds the node with `id` in a fresh tree, with whether it or a parent is hidden, or disabled.
local function findNode(nodes, id, hidden, disabled)
  for _, n in ipairs(nodes or {}) do
    local h, d = hidden or n.visible == false, disabled or n.enabled == false
    if n.id == id then return n, h, d end
    local found, fh, fd = findNode(n.children, id, h, d)
    if found then return found, fh, fd end
  end
  return nil
end

-- The roles whose value is a number, true/false, or one of their children's names (as every kit).
local NUMERIC_ROLES = {slider = true, spinbutton = true, scrollbar = true, progressbar = true}
local CHECKABLE_ROLES = {checkbox = true, switch = true, radio = true, menuitemcheckbox = true, menuitemradio = true}
local CHOICE_ROLES = {combobox = true, listbox = true, radiogroup = true, tablist = true}

-- A number as the Node kit writes it: 5, 0.25, ∞ for an open end.
local function num(x)
  if x == math.huge then return "∞" elseif x == -math.huge then return "-∞" end
  return M.json(x)
end

-- The value as the node's role takes it; out of range or not one of its options is an error.
local function parseValue(n, name, text)
  if NUMERIC_ROLES[n.role] then
    local x = tonumber(text)
    if text:match("^%s*$") or not x or x ~= x or x == math.huge or x == -math.huge then
      error(string.format("'%s' takes a number, got '%s'", name, text:sub(1, 40)), 0)
    end
    if (n.min and x < n.min) or (n.max and x > n.max) then
      error(string.format("'%s' takes %s to %s, got %s", name, num(n.min or -math.huge), num(n.max or math.huge), num(x)), 0)
    end
    return x
  end
  if CHECKABLE_ROLES[n.role] then
    if text ~= "true" and text ~= "false" then
      error(string.format("'%s' takes true or false, got '%s'", name, text:sub(1, 40)), 0)
    end
    return text == "true"
  end
  if CHOICE_ROLES[n.role] and n.children and #n.children > 0 then
    local options = {}
    for i, c in ipairs(n.children) do options[i] = tostring(c.name) end
    if not contains(options, text) then
      error(string.format("'%s' has no option '%s' (options: %s)", name, text:sub(1, 40), table.concat(options, ", ")), 0)
    end
  end
  return text
end

-- ui.* on the game's frame: the node is looked up again and re-checked as it is now.
function Bridge:applyUi(cmd, args)
  local tree = self.uiFn() or {}
  local n, hidden, disabled = findNode(tree.nodes, args.id, false, false)
  if not n then error("no UI node '" .. args.id .. "'", 0) end
  local name = (n.name ~= nil and n.name ~= "") and tostring(n.name) or tostring(n.id)
  local what = string.format("'%s' (%s)", name, tostring(n.role))
  if hidden then error("'" .. name .. "' is hidden", 0) end
  if disabled then error("'" .. name .. "' is disabled", 0) end
  if cmd == "ui.activate" then
    if not n.activate then error(what .. " cannot be activated", 0) end
    n.activate()
  elseif cmd == "ui.focus" then
    if not n.focus then error(what .. " cannot take focus", 0) end
    n.focus()
  else
    local v = parseValue(n, name, args.value)
    if not n.setValue then error(what .. " takes no value", 0) end
    n.setValue(v)
  end
end

-- A node as GET /ui shows it (as the Node kit's plainNode): no handlers, visible and enabled
-- left out at their default (true), no empty children.
local function plainNode(n)
  local out = M.object()
  for k, v in pairs(n) do
    if type(v) == "function" or ((k == "visible" or k == "enabled") and v == true) then
      -- left out
    elseif k == "children" then
      if type(v) == "table" and #v > 0 then
        local kids = {}
        for i, c in ipairs(v) do kids[i] = plainNode(c) end
        out.children = kids
      end
    else
      out[k] = v
    end
  end
  return out
end

-- One publication of a tree: the counters around the content, revision bumped on a change.
function Bridge:publishTree(which, content)
  local p = self.published[which]
  p.sequence = p.sequence + 1
  local text = M.json(content)
  if text ~= p.content then
    p.content, p.revision = text, p.revision + 1
  end
  content.sessionEpoch, content.frameSequence, content.revision = self.sessionEpoch, p.sequence, p.revision
  return content
end

-- The tree as of this frame, built once per frame however many ask.
function Bridge:tree(which)
  local p = self.published[which]
  if p.frame ~= self.frame then
    local content
    if which == "ui" then
      local t = self.uiFn() or {}
      local nodes = {}
      for i, n in ipairs(t.nodes or {}) do nodes[i] = plainNode(n) end
      content = {nodes = nodes, screen = t.screen}
    else
      content = {objects = self.worldFn() or {}}
    end
    p.frame, p.text = self.frame, M.json(self:publishTree(which, content))
  end
  return p.text
end

-- --- what the wire reads ---------------------------------------------------------------------
function Bridge:health()
  return {ok = true, frame = self.frame, capabilities = self.capabilities, sessionEpoch = self.sessionEpoch}
end

function Bridge:state()
  local s = {}
  for k, v in pairs(self.snapshotFn() or {}) do s[k] = v end
  local anyInput = false
  for _, c in ipairs(INPUT_CAPS) do anyInput = anyInput or contains(self.capabilities, c) end
  if anyInput then
    local held, t = {}, now()
    for _, h in pairs(self.held) do
      table.insert(held, {input = h.input, owner = h.owner, leaseMsLeft = math.max(0, math.floor((h.untilT - t) * 1000))})
    end
    for _, h in ipairs(self.axisHolds) do
      if h.untilT > t then
        table.insert(held, {input = h.input, owner = h.owner, value = h.value, leaseMsLeft = math.max(0, math.floor((h.untilT - t) * 1000))})
      end
    end
    table.sort(held, function(a, b) return a.input .. a.owner < b.input .. b.owner end)
    s.input = {held = held}
    if #self.axes > 0 then
      s.input.axes = M.object()
      for _, a in ipairs(self.axes) do s.input.axes[a.name] = self:axis(a.name) end
    end
    if contains(self.capabilities, "pointer") then
      s.input.pointer = {x = self.pointerState.x, y = self.pointerState.y, buttons = self.pointerState.buttons}
    end
    if contains(self.capabilities, "touch") then s.input.touches = self:touches() end
  end
  s.frame, s.simFrame, s.completedCommandId, s.sessionEpoch = self.frame, self.simFrame, self.completed, self.sessionEpoch
  s.commandResults = self.results
  s.clock = {paused = self.paused, stepFramesLeft = self.stepLeft}
  return s
end

function Bridge:tools()
  if not self.manifest then return nil end
  local m = {}
  for k, v in pairs(self.manifest) do m[k] = v end
  local game = {}
  for k, v in pairs(self.manifest.game or {name = self.name, version = self.version, protocol = self.protocol}) do game[k] = v end
  game.capabilities, game.inputs = self.capabilities, self.inputs
  if #self.axes > 0 then game.axes = self.axes end
  for _, c in ipairs({"pointer", "touch", "text"}) do
    if contains(self.capabilities, c) then game[c] = true end
  end
  m.game = game
  return m
end

function Bridge:known()
  local names = {}
  for name in pairs(self.commands) do table.insert(names, name) end
  table.sort(names)
  table.insert(names, "close")
  local anyInput = false
  for _, c in ipairs(INPUT_CAPS) do anyInput = anyInput or contains(self.capabilities, c) end
  for _, r in ipairs(RESERVED) do
    if contains(self.capabilities, NEEDS[r] or r:match("^(%a+)%."))
      or ((r == "input.release" or r == "input.releaseAll") and anyInput) then
      table.insert(names, r)
    end
  end
  table.insert(names, STALL)
  return names
end

-- Why a command is refused, or nil; the reserved ones are checked here.
function Bridge:validate(cmd, args)
  if cmd:match("^input%.") then
    if args.owner == nil then return "missing argument 'owner'" end
    if args.owner:match("^%s*$") then return "argument 'owner' must not be empty (whoever holds the input)" end
  end
  if cmd == "input.hold" then
    local lease = tonumber(args.leaseMs or "")
    if not lease or lease <= 0 or lease > MAX_LEASE_MS then
      return string.format("argument 'leaseMs' must be > 0 and <= %d, got '%s'", MAX_LEASE_MS, args.leaseMs or "")
    end
  end
  local axisNames = {}
  for _, a in ipairs(self.axes) do table.insert(axisNames, a.name) end
  if cmd == "input.hold" and not contains(self.inputs or {}, args.input) then
    return string.format("unknown input '%s' (this game reads: %s)", args.input or "", table.concat(self.inputs or {}, ", "))
  end
  if cmd == "input.release" and not contains(self.inputs or {}, args.input) and not contains(axisNames, args.input) then
    local all = {}
    for _, n in ipairs(self.inputs or {}) do table.insert(all, n) end
    for _, n in ipairs(axisNames) do table.insert(all, n) end
    return string.format("unknown input '%s' (this game reads: %s)", args.input or "", table.concat(all, ", "))
  end
  if NEEDS[cmd] then return self:validateInput(cmd, args, axisNames) end
  if cmd == STALL then
    local ms = tonumber(args.ms or "")
    if not ms or ms ~= ms or ms < 1 or ms > MAX_STALL_MS then
      return string.format("argument 'ms' must be from 1 to %d, got '%s'", MAX_STALL_MS, args.ms or "")
    end
    if args.frame and not tonumber(args.frame) then return string.format("argument 'frame' must be a frame number, got '%s'", args.frame) end
  end
  if cmd == "clock.step" then
    local f = tonumber(args.frames or "")
    if not f or f % 1 ~= 0 or f < 1 or f > MAX_STEP_FRAMES or not (args.frames or ""):match("^%s*%d+%s*$") then
      return string.format("argument 'frames' must be a whole number from 1 to %d, got '%s'", MAX_STEP_FRAMES, args.frames or "")
    end
  end
  if cmd:match("^ui%.") and (args.id or "") == "" then return "missing argument 'id'" end
  if cmd == "ui.setValue" and args.value == nil then return "missing argument 'value'" end
  local c = self.commands[cmd]
  if c and c.validate then
    local ok, why = pcall(c.validate, args)
    if not ok then return tostring(why) end
    return why
  end
  return nil
end

-- A range bound as people write it: 1, not 1.0.
local function bound(v) return v % 1 == 0 and string.format("%d", v) or tostring(v) end

-- Why a pointer, wheel, touch, axis or text command is refused: every value in its range.
function Bridge:validateInput(cmd, args, axisNames)
  local function within(name, lo, hi, whole)
    local v = tonumber(args[name] or "")
    if v == nil or v ~= v or (whole and v % 1 ~= 0) or v < lo or v > hi then
      return string.format("argument '%s' must be %s from %s to %s, got '%s'", name,
        whole and "a whole number" or "a number", bound(lo), bound(hi), tostring(args[name] or ""))
    end
  end
  if cmd == "input.axis" then
    if not contains(axisNames, args.input) then
      return string.format("unknown axis '%s' (this game reads: %s)", args.input or "", table.concat(axisNames, ", "))
    end
    local lease = tonumber(args.leaseMs or "")
    if not lease or lease <= 0 or lease > MAX_LEASE_MS then
      return string.format("argument 'leaseMs' must be > 0 and <= %d, got '%s'", MAX_LEASE_MS, args.leaseMs or "")
    end
    for _, a in ipairs(self.axes) do
      local v = tonumber(args.value or "")
      if a.name == args.input and (v == nil or v ~= v or v < a.min or v > a.max) then
        return string.format("argument 'value' must be within %s..%s for axis '%s', got '%s'", bound(a.min), bound(a.max), a.name, tostring(args.value or ""))
      end
    end
    return nil
  end
  if cmd == "input.text" then
    local n = utf8 and utf8.len(args.text or "") or #(args.text or "")
    if not n or n < 1 or n > MAX_TEXT then
      return string.format("argument 'text' must be 1 to %d characters, got %s", MAX_TEXT, tostring(n or "invalid UTF-8"))
    end
    return nil
  end
  if cmd == "input.wheel" then return within("dx", -MAX_WHEEL, MAX_WHEEL) or within("dy", -MAX_WHEEL, MAX_WHEEL) end
  local why = within("x", 0, MAX_COORD) or within("y", 0, MAX_COORD)
  if why then return why end
  if cmd == "input.pointer" then return within("buttons", 0, 7, true) end
  if cmd == "input.click" then
    if args.button ~= "1" and args.button ~= "2" and args.button ~= "4" then
      return string.format("argument 'button' must be 1 (left), 2 (right) or 4 (middle), got '%s'", tostring(args.button or ""):sub(1, 40))
    end
    return within("count", 1, MAX_CLICKS, true)
  end
  if args.phase ~= "down" and args.phase ~= "move" and args.phase ~= "up" then
    return string.format("argument 'phase' must be down, move or up, got '%s'", tostring(args.phase or ""):sub(1, 40))
  end
  return within("id", 0, MAX_TOUCH_ID, true)
end

function Bridge:enqueue(cmd, args)
  if not contains(self:known(), cmd) then
    return {accepted = false, error = "unknown command '" .. cmd .. "'", known = self:known()}
  end
  local why = self:validate(cmd, args)
  if why then return {accepted = false, error = why} end
  local id = self.nextId
  self.nextId = id + 1
  table.insert(self.queue, {id = id, cmd = cmd, args = args})
  return {accepted = true, commandId = id, frame = self.frame}
end

-- --- HTTP: GET only, Connection: close, each answer in one write --------------------------------
local REASONS = {[200] = "OK", [400] = "Bad Request", [403] = "Forbidden", [404] = "Not Found", [405] = "Method Not Allowed",
  [431] = "Request Header Fields Too Large", [500] = "Internal Server Error", [503] = "Service Unavailable"}

local function respond(peer, status, body, contentType)
  peer.out = string.format("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
    status, REASONS[status] or "OK", contentType or "application/json; charset=utf-8", #body) .. body
  peer.sent = 0
end

-- Why a request is refused as a browser's (docs/CONTRACT.md, "Refuse browsers"), or nil. Any
-- web page can make the user's browser call a loopback port, and a DNS-rebinding page does so
-- under its own Host name; the bridge and curl send neither Origin nor Sec-Fetch-Site.
function Bridge:refusal(text)
  local head = text:sub(1, (text:find("\r\n\r\n", 1, true) or #text))
  local host, hosts, browser = "", 0, false
  for line in head:gmatch("[^\r\n]+") do
    local key, value = line:match("^([^:]+):%s*(.-)%s*$")
    if key then
      key = key:lower()
      if key == "host" then host, hosts = value, hosts + 1
      elseif key == "origin" or (key == "sec-fetch-site" and value ~= "none") then browser = true end
    end
  end
  -- Two Host headers: a proxy in front and this kit could each read a different one.
  if hosts > 1 then return "Bad Request: more than one Host header" end
  if host ~= "127.0.0.1:" .. self.port and host ~= "localhost:" .. self.port then
    return string.format("Forbidden: unexpected Host header '%s' (this port answers 127.0.0.1:%d only)", host:sub(1, 100), self.port)
  end
  if browser then return "Forbidden: browser requests are refused on a game port" end
  return nil
end

-- An error the kit caught, with its frame and stack, for GET /errors.
function Bridge:noteError(message, stack, source)
  self.errorSeq = self.errorSeq + 1
  table.insert(self.errors, M.object({seq = self.errorSeq, frame = self.frame, message = message:sub(1, MAX_ERROR_CHARS),
    stack = stack and stack:sub(1, 2000) or nil, source = source}))
  if #self.errors > ERRORS_KEPT then table.remove(self.errors, 1) end
end

-- GET /errors?since=N: the errors caught after N, oldest first, and the latest number.
function Bridge:errorsSince(since)
  local list = {}
  for _, e in ipairs(self.errors) do if e.seq > since then list[#list + 1] = e end end
  return M.object({seq = self.errorSeq, errors = list})
end

function Bridge:answer(peer, method, target)
  if method ~= "GET" then return respond(peer, 405, M.json({error = "the game surface answers GET only"})) end
  local path, query = target:match("^([^?]*)%??(.*)$")
  if path == "/health" then respond(peer, 200, M.json(self:health()))
  elseif path == "/state" then respond(peer, 200, M.json(self:state()))
  elseif path == "/command" then
    local args = parseQuery(query)
    local cmd = args.cmd
    args.cmd = nil
    if not cmd or cmd == "" then
      respond(peer, 400, M.json({accepted = false, error = "missing 'cmd' (GET /command?cmd=NAME&arg=value)", known = self:known()}))
    else
      respond(peer, 200, M.json(self:enqueue(cmd, args)))
    end
  elseif path == "/errors" then
    respond(peer, 200, M.json(self:errorsSince(tonumber(parseQuery(query).since) or 0)))
  elseif path == "/tools" then
    local m = self:tools()
    if m then respond(peer, 200, M.json(m)) else respond(peer, 404, M.json({error = "this game publishes no manifest"})) end
  elseif path == "/frames" then
    local since = parseQuery(query).since or "-1"
    if tonumber(since) then respond(peer, 200, M.json(self:framesSince(tonumber(since))))
    else respond(peer, 400, M.json({error = "'since' must be a frame number, got '" .. since:sub(1, 40) .. "'"})) end
  elseif path == "/ui" and self.uiFn then respond(peer, 200, self:tree("ui"))
  elseif path == "/world" and self.worldFn then respond(peer, 200, self:tree("world"))
  elseif path == "/screenshot" then
    peer.waitingShot = now() -- answered when this frame's picture is taken (see loop)
    table.insert(self.shotWaiters, peer)
  else
    respond(peer, 404, M.json({error = "no such endpoint '" .. path .. "'",
      endpoints = {"/health", "/state", "/command", "/tools", "/errors", "/frames", "/ui", "/world", "/screenshot"}}))
  end
end

-- Full: closes the connection that has waited longest for its request, so another local user's
-- idle connections cannot lock the bridge out. False when every slot is busy answering.
function Bridge:evictIdle()
  local oldest
  for i, p in ipairs(self.peers) do
    if not p.out and not p.waitingShot and (not oldest or p.since < self.peers[oldest].since) then oldest = i end
  end
  if not oldest then return false end
  self.peers[oldest].sock:close()
  table.remove(self.peers, oldest)
  return true
end

-- One pass over the server and its connections, never blocking.
function Bridge:pump()
  if not self.server then return end
  while true do
    local client = self.server:accept()
    if not client then break end
    if #self.peers >= MAX_PEERS and not self:evictIdle() then
      client:close() -- every slot is busy answering, a moment's work: the client tries again
    else
      client:settimeout(0)
      client:setoption("tcp-nodelay", true)
      table.insert(self.peers, {sock = client, text = "", since = now()})
    end
  end
  local t = now()
  for i = #self.peers, 1, -1 do
    local p = self.peers[i]
    local done = false
    if p.waitingShot and t - p.waitingShot > 5 then -- no frame drawn (a minimized window): say so
      p.waitingShot = nil
      respond(p, 503, M.json({error = "no frame was drawn to take a screenshot of; try again"}))
    end
    if not p.out and not p.waitingShot then
      local data, err, partial = p.sock:receive(MAX_REQUEST_BYTES + 1)
      p.text = p.text .. (data or partial or "")
      if #p.text > MAX_REQUEST_BYTES then
        respond(p, 431, M.json({error = "request over " .. MAX_REQUEST_BYTES .. " bytes"}))
      elseif p.text:find("\r\n\r\n", 1, true) then
        local method, target = p.text:match("^(%S+) (%S+)")
        local refused = method and self:refusal(p.text)
        if refused then
          respond(p, refused:find("^Bad Request") and 400 or 403, M.json({ok = false, accepted = false, error = refused}))
        elseif method then
          local ok, e = pcall(self.answer, self, p, method, target)
          if not ok then respond(p, 500, M.json({error = tostring(e)})) end
        else
          respond(p, 400, M.json({error = "not an HTTP request"}))
        end
      elseif err == "closed" or t - p.since > REQUEST_TIMEOUT then
        done = true
      end
    end
    if p.out then
      local last, err, partialLast = p.sock:send(p.out, p.sent + 1)
      p.sent = last or partialLast or p.sent
      if p.sent >= #p.out or (err and err ~= "timeout") then done = true end
    end
    -- One deadline from connect to the end of the answer, reading and writing: a client that
    -- trickles its request or never reads the answer cannot keep a slot for ever.
    if t - p.since > REQUEST_TIMEOUT then done = true end
    if done then
      p.sock:close()
      table.remove(self.peers, i)
    end
  end
end

-- Waits until `deadline` (socket.gettime()), answering whatever arrives meanwhile.
function Bridge:serveUntil(deadline)
  if not self.server then
    local left = deadline - now()
    if left > 0 then socket.sleep(left) end
    return
  end
  repeat
    self:pump()
    local readers, writers = {self.server}, {}
    for _, p in ipairs(self.peers) do
      if p.out then table.insert(writers, p.sock) elseif not p.waitingShot then table.insert(readers, p.sock) end
    end
    local left = deadline - now()
    if left > 0 then socket.select(readers, writers, left) end
  until now() >= deadline
  self:pump()
end

-- Takes this frame's picture for the waiting /screenshot requests (call after love.draw).
function Bridge:captureForWaiters()
  if #self.shotWaiters == 0 then return end
  local waiters = self.shotWaiters
  self.shotWaiters = {}
  love.graphics.captureScreenshot(function(image)
    local png = image:encode("png"):getString()
    for _, p in ipairs(waiters) do
      if p.waitingShot then
        p.waitingShot = nil
        respond(p, 200, png, "image/png")
      end
    end
  end)
end

-- love.run for a game on the kit: a 60 fps loop that serves the contract between frames.
function Bridge:loop()
  local bridge = self
  return function()
    if love.load then love.load(love.arg.parseGameArguments(arg), arg) end
    if love.timer then love.timer.step() end
    local nextFrame = now()
    return function()
      if love.event then
        love.event.pump()
        for name, a, b, c, d, e, f in love.event.poll() do
          if name == "quit" and not (love.quit and love.quit()) then
            bridge:close()
            return a or 0
          end
          love.handlers[name](a, b, c, d, e, f)
        end
      end
      local dt = love.timer and love.timer.step() or 0
      local frames = 0
      if bridge:beginFrame() then
        frames = bridge.stepLeft > 0 and math.min(bridge.batch, bridge.stepLeft) or 1
      end
      if love.update then
        for _ = 1, frames do love.update(bridge.stepLeft > 0 and 1 / bridge.fps or dt) end
      end
      bridge:endFrame(frames)
      bridge:pump() -- what arrived during the update is answered before the draw
      if love.graphics and love.graphics.isActive() then
        love.graphics.origin()
        love.graphics.clear(love.graphics.getBackgroundColor())
        local drawn = now()
        if love.draw then love.draw() end
        bridge.drawMs = (now() - drawn) * 1000
        bridge:captureForWaiters()
        love.graphics.present()
      end
      nextFrame = math.max(nextFrame + 1 / bridge.fps, now() - 1 / bridge.fps)
      bridge:serveUntil(nextFrame)
    end
  end
end

-- --- registry ----------------------------------------------------------------------------------
-- Atomic (temp file + rename), private, after the bind; a registry failure never breaks the game.
function Bridge:writeRegistryEntry()
  if not posix then
    io.stderr:write("GameBridge: no registry entry on this system; discovery falls back to port scans\n")
    return
  end
  local dir = registryDir()
  local path = string.format("%s/%d.json", dir, posix.pid())
  local tmp = path .. ".tmp"
  local entry = {name = self.name, version = self.version, protocol = self.protocol, port = self.port,
    pid = posix.pid(), host = "127.0.0.1", started = os.date("!%Y-%m-%dT%H:%M:%SZ"), cwd = posix.cwd()}
  local ok = pcall(function()
    posix.mkdirs(dir)
    local old = posix.umask(tonumber("077", 8))
    local f = io.open(tmp, "w")
    posix.umask(old)
    assert(f, "cannot open")
    f:write(M.json(entry))
    f:close()
    assert(os.rename(tmp, path))
  end)
  if ok then self.registryFile = path
  else io.stderr:write("GameBridge: could not write the registry entry " .. path .. "; discovery falls back to port scans\n") end
end

-- Stops serving and removes the registry entry (the kit's loop calls it on quit).
function Bridge:close()
  if self.registryFile then
    os.remove(self.registryFile)
    self.registryFile = nil
  end
  for _, p in ipairs(self.peers) do p.sock:close() end
  self.peers = {}
  if self.server then
    self.server:close()
    self.server = nil
  end
end

return M
