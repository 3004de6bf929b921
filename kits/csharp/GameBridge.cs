// GameBridge: the game side of the game-bridge contract for any C# game (one file, no engine
// dependency: .NET Framework 4.x / Mono / .NET, C# 7). See docs/KITS.md.
//
//   var bridge = new GameBridge("Walker", "1.0.0") { Inputs = new[] { "left", "right" }, Snapshot = () => state };
//   bridge.AddCommand("jump", args => Jump());
//   bridge.AddCommand("teleport", args => x = args.Number("x"), args => args.Number("x") >= 0 ? null : "x must be >= 0");
//   bridge.Listen(GameBridge.DebugPort(args));         // 127.0.0.1 only; a busy port exits (code 1)
//   while (bridge.Running) { bridge.Tick(Simulate); Thread.Sleep(16); }
//   bridge.Dispose();                                  // stops serving, removes the registry entry
//
// Two sides. A background thread (TcpListener, one thread per connection, keep-alive) answers
// HTTP from the last publication: health, state, ui and world serialized once a frame on the
// game thread and swapped in whole, so a request never waits for a frame and never sees half of
// one. It only validates and queues commands. The game thread applies them in Tick() (or
// BeginFrame/EndFrame for engines that run their own loop): in order, a handler that throws
// becomes a failed result with its message, and the game runs on.
//
// Pointer, touch, analog axes and text (optional): set Axes = new[] { new InputAxis("walk", -1, 1) },
// TakesPointer, TakesTouch, TakesText. The game reads Axis("walk"), Pointer, Touches and
// TakeText() on its thread, or gets each change as an InputEvent through OnInput, raised on the
// game thread in the frame that applies the command.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;

namespace GameBridgeKit
{
    /// <summary>Command arguments as sent (strings), with coercion helpers that throw ArgException.</summary>
    public sealed class Args
    {
        public readonly IDictionary<string, string> Raw;
        public Args(IDictionary<string, string> raw) { Raw = raw; }
        public bool Has(string name) => Raw.ContainsKey(name);

        public string String(string name, string fallback = null)
        {
            string v;
            if (Raw.TryGetValue(name, out v)) return v;
            if (fallback != null) return fallback;
            throw new ArgException($"missing argument '{name}'");
        }

        public double Number(string name)
        {
            string v;
            if (!Raw.TryGetValue(name, out v) || v.Trim() == "") throw new ArgException($"missing argument '{name}' (a number)");
            double d;
            if (!double.TryParse(v, NumberStyles.Float, CultureInfo.InvariantCulture, out d) || double.IsNaN(d) || double.IsInfinity(d))
                throw new ArgException($"argument '{name}' must be a number, got '{Clip(v)}'");
            return d;
        }

        internal static string Clip(string s) => s.Length > 40 ? s.Substring(0, 40) + "…" : s;
    }

    /// <summary>An analog axis the game reads: a stick -1..1, a trigger 0..1 (0 is its rest).</summary>
    public sealed class InputAxis
    {
        public readonly string Name;
        public readonly double Min, Max;
        public InputAxis(string name, double min, double max)
        {
            if (string.IsNullOrEmpty(name) || !(min < max) || min > 0 || max < 0)
                throw new ArgumentException($"axis '{name}': min < max and the range must hold 0 (its rest), got {min}..{max}");
            Name = name; Min = min; Max = max;
        }
    }

    /// <summary>Where the agent's pointer is, in screenshot pixels, and its buttons (1 left, 2 right, 4 middle).</summary>
    public struct PointerState
    {
        public double X, Y;
        public int Buttons;
        public bool IsDown(int button) => (Buttons & button) != 0;
    }

    /// <summary>A touch point that is down.</summary>
    public struct TouchPoint { public int Id; public double X, Y; }

    /// <summary>One input change, raised through GameBridge.OnInput on the game thread. Type is
    /// pointermove, pointerdown, pointerup (Button 1 left, 2 right, 4 middle), wheel (DX, DY in
    /// pixels, DY &gt; 0 scrolls down), touchdown, touchmove, touchup (Id), axis (Name, Value) or text (Text).</summary>
    public sealed class InputEvent
    {
        public string Type, Name, Text;
        public double X, Y, DX, DY, Value;
        public int Button, Buttons, Id;
    }

    /// <summary>A bad argument: in a validator it becomes the refusal text.</summary>
    public sealed class ArgException : Exception
    {
        public ArgException(string message) : base(message) { }
    }

    /// <summary>One node of the UI tree. Fields at their default are left out of /ui.</summary>
    public sealed class UiNode
    {
        public string Id, Role, Name;
        public object Value;
        public double? Min, Max;
        public bool? Checked, Selected, Focused;
        public bool Visible = true, Enabled = true;
        public int[] Rect;                          // x, y, w, h in screenshot pixels
        public List<UiNode> Children;
        public Action Activate, Focus;              // run on the game thread by ui.activate / ui.focus
        public Action<object> SetValue;             // a double (slider), bool (checkbox) or string
    }

    /// <summary>One published world object.</summary>
    public sealed class WorldObject
    {
        public string Id, Type, Name;
        public double[] Pos;
        public string[] Tags;
        public IDictionary<string, object> Props;
        public bool Player;                         // a player can see it
    }

    public sealed class GameBridge : IDisposable
    {
        const int MaxLeaseMs = 3600000;   // a hold is meant to end; the bridge re-holds
        const int MaxStepFrames = 10000;  // later commands wait behind a step, so keep it bounded
        const int MaxRequestBytes = 65536;
        const int MaxPeers = 64;          // when full, a new connection closes the one that has waited longest for a request
        /// <summary>Set to 1 by the bridge to launch the game with its clock paused at simFrame 0.</summary>
        public const string StartPausedEnv = "GAME_BRIDGE_START_PAUSED";
        const int MaxErrorChars = 500;
        const int RequestTimeoutMs = 10000;  // a connection's time from waiting for a request to its answer sent       // a failed command's words, as every kit
        const int MaxResults = 32;
        const int FramesKept = 3600;      // frame times GET /frames serves: a minute at 60 frames a second
        const int MaxStallMs = 1000;      // the longest frames.stall
        const string Stall = "frames.stall";  // holds the game's thread on a frame: a slow frame to see in frame_stats
        static readonly string[] Reserved = { "input.hold", "input.release", "input.releaseAll", "input.axis", "input.pointer",
            "input.click", "input.wheel", "input.touch", "input.text", "clock.pause", "clock.resume", "clock.step", "ui.activate", "ui.setValue", "ui.focus" };
        // the capability each reserved command needs (the rest: the part before the dot)
        static readonly Dictionary<string, string> Needs = new Dictionary<string, string> {
            { "input.axis", "axis" }, { "input.pointer", "pointer" }, { "input.click", "pointer" }, { "input.wheel", "pointer" }, { "input.touch", "touch" }, { "input.text", "text" } };
        static readonly string[] InputCaps = { "input", "axis", "pointer", "touch", "text" };
        const double MaxCoord = 65535;  // screenshot pixels
        const double MaxWheel = 10000;
        const int MaxTouchId = 9;
        const int MaxClicks = 3;  // a triple click is the most any game reads
        const int MaxText = 1000;

        public readonly string Name, Version;
        public int Protocol = 1;
        /// <summary>The input names the game reads (declares the "input" capability).</summary>
        public string[] Inputs;
        /// <summary>The analog axes the game reads (declares the "axis" capability).</summary>
        public InputAxis[] Axes;
        /// <summary>The game takes the pointer, touch points, typed text ("pointer", "touch", "text").</summary>
        public bool TakesPointer, TakesTouch, TakesText;
        /// <summary>Each pointer, wheel, touch, axis and text change, on the game thread.</summary>
        public Action<InputEvent> OnInput;
        public bool Clock = true;
        /// <summary>How many frames of a clock.step one Tick may simulate (default 1). A game whose
        /// simulation reads no wall clock can take many, so a saved test's frame-exact replay runs
        /// faster than real time. BeginFrame and EndFrame (an engine's own frames) stay one each.</summary>
        public int StepFramesPerTick = 1;
        /// <summary>The game's own state for /state; called on the game thread once a frame.</summary>
        public Func<object> Snapshot = () => new Dictionary<string, object>();
        /// <summary>The UI tree ("ui" capability) and the current screen's name.</summary>
        public Func<IList<UiNode>> Ui;
        public Func<string> Screen;
        /// <summary>The published world objects ("world" capability).</summary>
        public Func<IList<WorldObject>> World;
        /// <summary>PNG bytes of the current frame, taken on the game thread at the end of a frame.</summary>
        public Func<byte[]> Screenshot;
        /// <summary>The manifest for /tools (dictionaries and lists), or null for a 404.</summary>
        public object Manifest;
        /// <summary>Replaces the default reaction to `close` (Running = false).</summary>
        public Action<string> OnClose;

        public int Port { get; private set; }
        public long Frame { get; private set; }
        public long SimFrame { get; private set; }
        public int SessionEpoch { get; private set; } = 1;
        public bool Paused { get; private set; }
        public bool Running { get; private set; } = true;

        sealed class Command { public Action<Args> Apply; public Func<Args, string> Validate; }
        sealed class Queued { public long Id; public string Cmd; public Args Args; }
        sealed class Held { public string Input, Owner; public long Until; public double Value; }
        // What the server's threads read, made on the game thread and swapped in whole: the bodies,
        // and the game's configuration as of that frame (commands, inputs), never read live.
        sealed class Published
        {
            public long Frame;
            public Dictionary<string, byte[]> Bodies = new Dictionary<string, byte[]>();
            public List<string> Known = new List<string>();
            public string[] Inputs = new string[0];
            public InputAxis[] Axes = new InputAxis[0];
            public Dictionary<string, Func<Args, string>> Validators = new Dictionary<string, Func<Args, string>>();
            public List<Dictionary<string, object>> Errors = new List<Dictionary<string, object>>();
            public long ErrorSeq;
        }
        sealed class Tree { public string Content; public long Revision; }

        readonly Dictionary<string, Command> commands = new Dictionary<string, Command>();
        readonly object gate = new object();            // guards incoming, nextId, shotWaiters
        List<Queued> incoming = new List<Queued>();
        long nextId = 1;
        readonly List<Queued> pending = new List<Queued>();
        readonly List<Dictionary<string, object>> results = new List<Dictionary<string, object>>();
        // errors the kit caught, with their frame and stack, served on /errors (the bridge counts repeats)
        readonly List<Dictionary<string, object>> errors = new List<Dictionary<string, object>>();
        long errorSeq;
        const int ErrorsKept = 64;
        readonly Dictionary<string, Held> held = new Dictionary<string, Held>();
        readonly List<Held> axisHolds = new List<Held>();  // in hold order: the latest hold wins
        readonly Dictionary<string, double> axisTold = new Dictionary<string, double>();
        PointerState pointer;
        // owner -> the buttons that owner holds; one mouse: down is every owner's together
        readonly Dictionary<string, int> buttonsOf = new Dictionary<string, int>();
        readonly Dictionary<int, TouchPoint> touchAt = new Dictionary<int, TouchPoint>();
        readonly Dictionary<int, string> touchOwner = new Dictionary<int, string>();
        readonly StringBuilder typed = new StringBuilder();
        readonly Stopwatch clock = Stopwatch.StartNew();
        // {frame, simFrame, ms} of recent frames, from one frame's start to the next one's (under framesGate)
        readonly double[][] frameTimes = new double[FramesKept][];
        readonly object framesGate = new object();
        int framesCount;
        double frameStart = -1;
        long stallAt = -1;
        int stallMs;
        long completed, stepId;
        int stepLeft;
        long sequence;
        readonly Tree uiTree = new Tree(), worldTree = new Tree();
        volatile Published published = new Published();
        // One slot per waiting /screenshot request: a later frame's failure never empties an answer.
        sealed class ShotWaiter { public readonly ManualResetEventSlim Done = new ManualResetEventSlim(); public byte[] Png; }
        readonly List<ShotWaiter> shotWaiters = new List<ShotWaiter>();
        TcpListener listener;
        // The open connections (under their own lock), each with when it began waiting for a request.
        sealed class Peer { public TcpClient Client; public long WaitingSince = -1; }
        readonly List<Peer> peers = new List<Peer>();
        string registryFile;
        bool closing;

        public GameBridge(string name, string version)
        {
            Name = name;
            Version = version;
            AppDomain.CurrentDomain.ProcessExit += (s, e) => Unregister();
        }

        public string[] Capabilities
        {
            get
            {
                var caps = new List<string>();
                if (Inputs != null) caps.Add("input");
                if (Axes != null && Axes.Length > 0) caps.Add("axis");
                if (TakesPointer) caps.Add("pointer");
                if (TakesTouch) caps.Add("touch");
                if (TakesText) caps.Add("text");
                if (Clock) caps.Add("clock");
                if (Ui != null) caps.Add("ui");
                if (World != null) caps.Add("world");
                return caps.ToArray();
            }
        }

        /// <summary>apply runs on the game thread (throw to fail the command); validate runs when the
        /// request arrives, on the server's thread, so it must only read its args (return a reason or null).</summary>
        public void AddCommand(string name, Action<Args> apply, Func<Args, string> validate = null)
        {
            if (name == "close" || name.StartsWith("input.") || name.StartsWith("clock.") || name.StartsWith("ui."))
                throw new ArgumentException($"command name '{name}' is reserved (close, input.*, clock.* and ui.* are the kit's)");
            commands[name] = new Command { Apply = apply, Validate = validate };
        }

        public bool IsHeld(string input) => held.Values.Any(h => h.Input == input);

        /// <summary>A declared axis's value now: the latest owner's hold, 0 at rest.</summary>
        public double Axis(string name)
        {
            long now = clock.ElapsedMilliseconds;
            var h = axisHolds.LastOrDefault(x => x.Input == name && x.Until > now);
            return h == null ? 0 : h.Value;
        }

        /// <summary>The agent's pointer, in screenshot pixels.</summary>
        public PointerState Pointer => pointer;

        /// <summary>The touch points down now, by id.</summary>
        public IList<TouchPoint> Touches => touchAt.Values.OrderBy(t => t.Id).ToList();

        /// <summary>The text typed since the last call (the game's text queue), emptied.</summary>
        public string TakeText()
        {
            string t = typed.ToString();
            typed.Clear();
            return t;
        }

        /// <summary>A new run or level in the same process: waits that span it fail instead of lying.</summary>
        public void NewEpoch() => SessionEpoch++;

        /// <summary>The value of --debug-port N / --debug-port=N, or null without the flag.</summary>
        public static string DebugPort(string[] args)
        {
            for (int i = 0; i < args.Length; i++)
            {
                if (args[i] == "--debug-port") return i + 1 < args.Length ? args[i + 1] : "(nothing)";
                if (args[i].StartsWith("--debug-port=")) return args[i].Substring("--debug-port=".Length);
            }
            return null;
        }

        /// <summary>Binds 127.0.0.1:port, starts serving and writes the registry entry. Without a port
        /// (null) nothing is served. A bad port is said on stderr and the game runs on without its
        /// surface (the answer is false). A busy port is said on stderr and the process exits (code
        /// 1): whatever holds the port would be taken for this game.</summary>
        public bool Listen(string port)
        {
            if (port == null) return false;
            int n;
            if (!int.TryParse(port, NumberStyles.None, CultureInfo.InvariantCulture, out n) || n < 1 || n > 65535)
            {
                Console.Error.WriteLine($"GameBridge: --debug-port must be a port number (1-65535), got '{Args.Clip(port)}'; the game runs without its bridge surface");
                return false;
            }
            var l = new TcpListener(IPAddress.Loopback, n);
            l.ExclusiveAddressUse = true;
            try { l.Start(); }
            catch (SocketException e)
            {
                Console.Error.WriteLine($"GameBridge: cannot listen on 127.0.0.1:{n} ({e.Message}); the game exits, since whatever holds the port would be taken for it");
                Console.Error.Flush();
                Environment.Exit(1);
                return false;
            }
            listener = l;
            Port = n;
            // The bridge launched the game paused: its first simulated frame is one the bridge steps.
            if (Clock && Environment.GetEnvironmentVariable(StartPausedEnv) == "1") Paused = true;
            Publish();
            new Thread(AcceptLoop) { IsBackground = true, Name = "GameBridge accept" }.Start();
            Console.WriteLine($"GameBridge: listening on 127.0.0.1:{n}");
            WriteRegistryEntry();
            return true;
        }

        // --- the frame (game thread) ---------------------------------------------------------------

        /// <summary>One frame: queued commands, then simulate() unless the clock is paused (while a
        /// step runs, up to StepFramesPerTick of its frames), then the publication. Returns the
        /// frames simulated (0 while paused).</summary>
        public int Tick(Action simulate)
        {
            int frames = !BeginFrame() ? 0 : stepLeft > 0 ? Math.Min(Math.Max(1, StepFramesPerTick), stepLeft) : 1;
            for (int i = 0; i < frames && simulate != null; i++) simulate();
            FinishFrame(frames);
            return frames;
        }

        /// <summary>The start of a frame: leases expire, queued commands apply in order (a clock.step
        /// holds back what follows until its frames have run). True when this frame simulates.</summary>
        public bool BeginFrame()
        {
            Frame++;
            TimeFrame();
            long now = clock.ElapsedMilliseconds;
            foreach (var key in held.Where(kv => kv.Value.Until <= now).Select(kv => kv.Key).ToList()) held.Remove(key);
            axisHolds.RemoveAll(h => h.Until <= now);
            lock (gate)
            {
                pending.AddRange(incoming);
                incoming = new List<Queued>();
            }
            ClickTick();  // a click's next press or lift comes before any later command
            while (pending.Count > 0 && stepLeft == 0 && click == null)
            {
                var c = pending[0];
                pending.RemoveAt(0);
                var result = new Dictionary<string, object> { { "id", c.Id }, { "ok", true } };
                try { Apply(c); }
                catch (Exception e)
                {
                    result["ok"] = false;
                    var thrown = e is System.Reflection.TargetInvocationException && e.InnerException != null ? e.InnerException : e;
                    string message = thrown.Message ?? "";
                    result["error"] = message == "" ? "failed" : message.Length > MaxErrorChars ? message.Substring(0, MaxErrorChars) : message;
                    NoteError(thrown, "command");
                }
                results.Add(result);
                if (results.Count > MaxResults) results.RemoveAt(0);
                if (stepLeft == 0 && !ClickPressing) completed = c.Id;
            }
            TellAxes();
            return !Paused || stepLeft > 0;
        }

        // A frame starts: the previous one's time is known now; hold the thread if a stall is due.
        void TimeFrame()
        {
            double now = clock.Elapsed.TotalMilliseconds;
            if (frameStart >= 0)
                lock (framesGate) frameTimes[framesCount++ % FramesKept] = new double[] { Frame - 1, SimFrame, now - frameStart };
            frameStart = now;
            if (stallAt == Frame) { stallAt = -1; Thread.Sleep(stallMs); }
        }

        // GET /frames (server thread): the kept frame times after frame `since`, oldest first.
        Dictionary<string, object> FramesSince(double since)
        {
            var list = new List<object>();
            lock (framesGate)
                for (int k = Math.Max(0, framesCount - FramesKept); k < framesCount; k++)
                {
                    var f = frameTimes[k % FramesKept];
                    if (f[0] > since)
                        list.Add(new Dictionary<string, object> { { "frame", (long)f[0] }, { "simFrame", (long)f[1] }, { "ms", Math.Round(f[2], 3) } });
                }
            return new Dictionary<string, object> { { "frames", list }, { "kept", FramesKept } };
        }

        /// <summary>The end of a frame: counts a simulated frame (a step completes once its frames
        /// have run), publishes, and takes the screenshot someone waits for.</summary>
        public void EndFrame(bool simulated) => FinishFrame(simulated ? 1 : 0);

        void FinishFrame(int simulated)
        {
            if (simulated > 0)
            {
                SimFrame += simulated;
                if (stepLeft > 0 && (stepLeft -= simulated) == 0) completed = stepId;
            }
            Publish();
            List<ShotWaiter> waiters;
            lock (gate)
            {
                waiters = new List<ShotWaiter>(shotWaiters);
                shotWaiters.Clear();
            }
            if (waiters.Count == 0) return;
            byte[] png = null;
            try { png = Screenshot(); } catch (Exception e) { Console.Error.WriteLine("GameBridge: screenshot failed: " + e.Message); }
            foreach (var w in waiters)
            {
                w.Png = png;
                w.Done.Set();
            }
        }

        /// <summary>A click in progress: its presses and lifts still to come, one a frame.</summary>
        sealed class Click
        {
            public long Id;
            public string Owner;
            public double X, Y;
            public int Bit;
            public List<bool> Presses;  // true: a press, false: a lift
        }

        Click click;

        /// <summary>A click still has a press to come: it completes on the frame of its last press.</summary>
        bool ClickPressing => click != null && click.Presses.Contains(true);

        /// <summary>input.click's next press or lift, one a frame, so a game that polls the button
        /// sees each press for a frame; later commands wait until the click has lifted.</summary>
        void ClickTick()
        {
            var c = click;
            if (c == null) return;
            bool press = c.Presses[0];
            c.Presses.RemoveAt(0);
            int mine;
            buttonsOf.TryGetValue(c.Owner, out mine);
            MovePointer(c.X, c.Y, press ? mine | c.Bit : mine & ~c.Bit, c.Owner);
            if (c.Presses.Count == 0) click = null;
            if (press && !c.Presses.Contains(true)) completed = c.Id;
        }

        void Apply(Queued c)
        {
            var a = c.Args;
            string who = a.String("owner", "");
            switch (c.Cmd)
            {
                case "input.hold":
                    held[a.Raw["input"] + "\n" + who] = new Held
                    {
                        Input = a.Raw["input"], Owner = who,
                        Until = clock.ElapsedMilliseconds + (long)Math.Ceiling(a.Number("leaseMs")),
                    };
                    break;
                case "input.release":
                    held.Remove(a.Raw["input"] + "\n" + who);
                    axisHolds.RemoveAll(h => h.Input == a.Raw["input"] && h.Owner == who);
                    break;
                case "input.releaseAll":
                    foreach (var key in held.Where(kv => kv.Value.Owner == who).Select(kv => kv.Key).ToList()) held.Remove(key);
                    axisHolds.RemoveAll(h => h.Owner == who);
                    if (buttonsOf.ContainsKey(who)) MovePointer(pointer.X, pointer.Y, 0, who);
                    foreach (var id in touchOwner.Where(kv => kv.Value == who).Select(kv => kv.Key).OrderBy(i => i).ToList())
                        ApplyTouch(id, "up", touchAt[id].X, touchAt[id].Y, who);
                    break;
                case "input.axis":
                    axisHolds.RemoveAll(h => h.Input == a.Raw["input"] && h.Owner == who);  // re-added last: the latest hold wins
                    axisHolds.Add(new Held { Input = a.Raw["input"], Owner = who, Value = a.Number("value"),
                        Until = clock.ElapsedMilliseconds + (long)Math.Ceiling(a.Number("leaseMs")) });
                    break;
                case "input.pointer": MovePointer(a.Number("x"), a.Number("y"), (int)a.Number("buttons"), who); break;
                case "input.click":  // down now, up on the next frame (ClickTick), `count` times
                    click = new Click
                    {
                        Id = c.Id, Owner = who, X = a.Number("x"), Y = a.Number("y"), Bit = (int)a.Number("button"),
                        Presses = Enumerable.Range(0, 2 * (int)a.Number("count")).Select(i => i % 2 == 0).ToList(),
                    };
                    ClickTick();
                    break;
                case "input.wheel":
                    Emit(new InputEvent { Type = "wheel", X = pointer.X, Y = pointer.Y, DX = a.Number("dx"), DY = a.Number("dy") });
                    break;
                case "input.touch": ApplyTouch((int)a.Number("id"), a.Raw["phase"], a.Number("x"), a.Number("y"), who); break;
                case "input.text":
                    typed.Append(a.Raw["text"]);
                    if (typed.Length > MaxText) typed.Remove(0, typed.Length - MaxText);  // a game that never takes its text keeps a bounded queue
                    Emit(new InputEvent { Type = "text", Text = a.Raw["text"] });
                    break;
                case "clock.pause": Paused = true; break;
                case "clock.resume": Paused = false; break;
                case "clock.step":
                    Paused = true;
                    stepLeft = int.Parse(a.Raw["frames"].Trim(), CultureInfo.InvariantCulture);
                    stepId = c.Id;
                    break;
                case "ui.activate":
                case "ui.setValue":
                case "ui.focus":
                    ApplyUi(c.Cmd, a);
                    break;
                case Stall:
                    long at = a.Has("frame") ? (long)a.Number("frame") : Frame;
                    if (at < Frame) throw new InvalidOperationException($"frame {at} has passed (the game is at frame {Frame})");
                    stallMs = (int)a.Number("ms");
                    if (at == Frame) Thread.Sleep(stallMs);
                    else stallAt = at;
                    break;
                case "close": RequestClose("command"); break;
                default: commands[c.Cmd].Apply(a); break;
            }
        }

        void Emit(InputEvent e) => OnInput?.Invoke(e);

        // On the frame: an axis event for each axis whose value changed (set, released, lease over).
        void TellAxes()
        {
            foreach (var axis in Axes ?? new InputAxis[0])
            {
                double v = Axis(axis.Name), told;
                axisTold.TryGetValue(axis.Name, out told);
                if (v == told) continue;
                axisTold[axis.Name] = v;
                Emit(new InputEvent { Type = "axis", Name = axis.Name, Value = v });
            }
        }

        // Moves the pointer and sets `who`'s buttons, then presses and lifts the buttons that changed.
        // One mouse: a button is down while any owner holds it.
        void MovePointer(double x, double y, int mine, string who)
        {
            if (x != pointer.X || y != pointer.Y)
                Emit(new InputEvent { Type = "pointermove", X = x, Y = y, DX = x - pointer.X, DY = y - pointer.Y, Buttons = pointer.Buttons });
            if (mine != 0) buttonsOf[who] = mine; else buttonsOf.Remove(who);
            int buttons = buttonsOf.Values.Aggregate(0, (all, b) => all | b);
            int changed = buttons ^ pointer.Buttons;
            pointer = new PointerState { X = x, Y = y, Buttons = buttons };
            foreach (int bit in new[] { 1, 2, 4 })
                if ((changed & bit) != 0)
                    Emit(new InputEvent { Type = (buttons & bit) != 0 ? "pointerdown" : "pointerup", X = x, Y = y, Button = bit, Buttons = buttons });
        }

        void ApplyTouch(int id, string phase, double x, double y, string who)
        {
            bool down = touchAt.ContainsKey(id);
            if (phase == "down")
            {
                if (down) throw new InvalidOperationException($"touch {id} is already down (send phase move or up)");
                touchOwner[id] = who;
                touchAt[id] = new TouchPoint { Id = id, X = x, Y = y };
                Emit(new InputEvent { Type = "touchdown", Id = id, X = x, Y = y });
                return;
            }
            if (!down) throw new InvalidOperationException($"touch {id} is not down (send phase down first)");
            var was = touchAt[id];
            if (phase == "up")
            {
                touchOwner.Remove(id);
                touchAt.Remove(id);
            }
            else touchAt[id] = new TouchPoint { Id = id, X = x, Y = y };
            Emit(new InputEvent { Type = "touch" + phase, Id = id, X = x, Y = y, DX = x - was.X, DY = y - was.Y });
        }

        void RequestClose(string reason)
        {
            if (closing) return;
            closing = true;
            if (OnClose != null) OnClose(reason); else Running = false;
        }

        /// <summary>Stops the game loop (Running = false) as `close` does.</summary>
        public void Stop() => Running = false;

        // --- the trees ----------------------------------------------------------------------------

        // The node with `id`, and whether it or a parent is hidden, or disabled.
        static UiNode Find(IList<UiNode> nodes, string id, bool hidden, bool disabled, out bool isHidden, out bool isDisabled)
        {
            foreach (var n in nodes ?? new List<UiNode>())
            {
                bool h = hidden || !n.Visible, d = disabled || !n.Enabled;
                if (n.Id == id) { isHidden = h; isDisabled = d; return n; }
                var found = Find(n.Children, id, h, d, out isHidden, out isDisabled);
                if (found != null) return found;
            }
            isHidden = isDisabled = false;
            return null;
        }

        // The roles whose value is a number, true/false, or one of their children's names (as every kit).
        static readonly HashSet<string> NumericRoles = new HashSet<string> { "slider", "spinbutton", "scrollbar", "progressbar" };
        static readonly HashSet<string> CheckableRoles = new HashSet<string> { "checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio" };
        static readonly HashSet<string> ChoiceRoles = new HashSet<string> { "combobox", "listbox", "radiogroup", "tablist" };

        // ui.* on the game thread: the node is looked up again and re-checked as it is now.
        void ApplyUi(string cmd, Args a)
        {
            string id = a.Raw["id"];
            bool hidden, disabled;
            var n = Find(Ui(), id, false, false, out hidden, out disabled);
            if (n == null) throw new InvalidOperationException($"no UI node '{id}'");
            string name = string.IsNullOrEmpty(n.Name) ? n.Id : n.Name, what = $"'{name}' ({n.Role})";
            if (hidden) throw new InvalidOperationException($"'{name}' is hidden");
            if (disabled) throw new InvalidOperationException($"'{name}' is disabled");
            if (cmd == "ui.activate")
            {
                if (n.Activate == null) throw new InvalidOperationException($"{what} cannot be activated");
                n.Activate();
            }
            else if (cmd == "ui.focus")
            {
                if (n.Focus == null) throw new InvalidOperationException($"{what} cannot take focus");
                n.Focus();
            }
            else
            {
                object v = ParseValue(n, name, a.Raw["value"]);
                if (n.SetValue == null) throw new InvalidOperationException($"{what} takes no value");
                n.SetValue(v);
            }
        }

        // The value as the node's role takes it; out of range or not one of its options fails.
        static object ParseValue(UiNode n, string name, string text)
        {
            string shown = text.Length > 40 ? text.Substring(0, 40) : text;
            if (NumericRoles.Contains(n.Role))
            {
                double d;
                if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out d) || double.IsNaN(d) || double.IsInfinity(d))
                    throw new InvalidOperationException($"'{name}' takes a number, got '{shown}'");
                if ((n.Min.HasValue && d < n.Min) || (n.Max.HasValue && d > n.Max))
                    throw new InvalidOperationException($"'{name}' takes {(n.Min.HasValue ? Json.Number(n.Min.Value) : "-∞")} to {(n.Max.HasValue ? Json.Number(n.Max.Value) : "∞")}, got {Json.Number(d)}");
                return d;
            }
            if (CheckableRoles.Contains(n.Role))
            {
                if (text != "true" && text != "false") throw new InvalidOperationException($"'{name}' takes true or false, got '{shown}'");
                return text == "true";
            }
            if (ChoiceRoles.Contains(n.Role) && n.Children != null && n.Children.Count > 0)
            {
                var options = n.Children.Select(c => c.Name ?? "").ToList();
                if (!options.Contains(text))
                    throw new InvalidOperationException($"'{name}' has no option '{shown}' (options: {string.Join(", ", options)})");
            }
            return text;
        }

        static Dictionary<string, object> NodeJson(UiNode n)
        {
            var d = new Dictionary<string, object> { { "id", n.Id }, { "role", n.Role }, { "name", n.Name ?? "" } };
            if (n.Value != null) d["value"] = n.Value;
            if (n.Min.HasValue) d["min"] = n.Min.Value;
            if (n.Max.HasValue) d["max"] = n.Max.Value;
            if (n.Checked.HasValue) d["checked"] = n.Checked.Value;
            if (n.Selected.HasValue) d["selected"] = n.Selected.Value;
            if (n.Focused == true) d["focused"] = true;
            if (!n.Visible) d["visible"] = false;
            if (!n.Enabled) d["enabled"] = false;
            if (n.Rect != null) d["rect"] = n.Rect;
            if (n.Children != null && n.Children.Count > 0) d["children"] = n.Children.Select(NodeJson).ToList();
            return d;
        }

        static Dictionary<string, object> ObjectJson(WorldObject o)
        {
            var d = new Dictionary<string, object> { { "id", o.Id }, { "type", o.Type } };
            if (o.Name != null) d["name"] = o.Name;
            if (o.Pos != null) d["pos"] = o.Pos;
            if (o.Tags != null && o.Tags.Length > 0) d["tags"] = o.Tags;
            if (o.Props != null) d["props"] = o.Props;
            if (o.Player) d["player"] = true;
            return d;
        }

        // One publication: the revision grows only when the content differs from the last one's.
        byte[] TreeBody(Tree t, Dictionary<string, object> content)
        {
            string text = Json.Write(content);
            if (text != t.Content) { t.Content = text; t.Revision++; }
            content["sessionEpoch"] = SessionEpoch;
            content["frameSequence"] = sequence;
            content["revision"] = t.Revision;
            return Encoding.UTF8.GetBytes(Json.Write(content));
        }

        void NoteError(Exception e, string source)
        {
            string message = e.GetType().FullName + ": " + e.Message;
            var entry = new Dictionary<string, object> { { "seq", ++errorSeq }, { "frame", Frame }, { "source", source },
                { "message", message.Length > MaxErrorChars ? message.Substring(0, MaxErrorChars) : message } };
            string stack = (e.StackTrace ?? "").Trim();
            if (stack != "") entry["stack"] = stack.Length > 2000 ? stack.Substring(0, 2000) : stack;
            errors.Add(entry);
            if (errors.Count > ErrorsKept) errors.RemoveAt(0);
        }

        // --- what the wire reads: built on the game thread, swapped in whole ----------------------
        void Publish()
        {
            sequence++;
            var p = new Published { Frame = Frame, Known = Known(), Inputs = (string[])(Inputs ?? new string[0]).Clone(),
                Axes = (InputAxis[])(Axes ?? new InputAxis[0]).Clone(),
                Validators = commands.Where(c => c.Value.Validate != null).ToDictionary(c => c.Key, c => c.Value.Validate),
                Errors = errors.ToList(), ErrorSeq = errorSeq };
            p.Bodies["/health"] = Encoding.UTF8.GetBytes(Json.Write(new Dictionary<string, object> {
                { "ok", true }, { "frame", Frame }, { "capabilities", Capabilities }, { "sessionEpoch", SessionEpoch } }));
            p.Bodies["/state"] = Encoding.UTF8.GetBytes(Json.Write(State()));
            var tools = Tools();
            if (tools != null) p.Bodies["/tools"] = Encoding.UTF8.GetBytes(Json.Write(tools));
            if (Ui != null)
            {
                var content = new Dictionary<string, object> { { "nodes", (Ui() ?? new List<UiNode>()).Select(NodeJson).ToList() } };
                string screen = Screen?.Invoke();
                if (screen != null) content["screen"] = screen;
                p.Bodies["/ui"] = TreeBody(uiTree, content);
            }
            if (World != null)
            {
                var content = new Dictionary<string, object> { { "objects", (World() ?? new List<WorldObject>()).Select(ObjectJson).ToList() } };
                p.Bodies["/world"] = TreeBody(worldTree, content);
            }
            published = p;
        }

        Dictionary<string, object> State()
        {
            var s = new Dictionary<string, object>();
            var game = Snapshot?.Invoke() as IDictionary;
            if (game != null) foreach (DictionaryEntry e in game) s[e.Key.ToString()] = e.Value;
            var caps = Capabilities;
            if (InputCaps.Any(caps.Contains))
            {
                long now = clock.ElapsedMilliseconds;
                var holds = held.Values.Select(h => new Dictionary<string, object> { { "input", h.Input }, { "owner", h.Owner }, { "leaseMsLeft", Math.Max(0, h.Until - now) } })
                    .Concat(axisHolds.Where(h => h.Until > now).Select(h => new Dictionary<string, object> {
                        { "input", h.Input }, { "owner", h.Owner }, { "leaseMsLeft", Math.Max(0, h.Until - now) }, { "value", h.Value } }))
                    .OrderBy(h => h["input"] + "\n" + h["owner"], StringComparer.Ordinal).ToList();
                var input = new Dictionary<string, object> { { "held", holds } };
                if (caps.Contains("axis")) input["axes"] = Axes.ToDictionary(x => x.Name, x => (object)Axis(x.Name));
                if (TakesPointer) input["pointer"] = new Dictionary<string, object> { { "x", pointer.X }, { "y", pointer.Y }, { "buttons", pointer.Buttons } };
                if (TakesTouch) input["touches"] = Touches.Select(t => new Dictionary<string, object> { { "id", t.Id }, { "x", t.X }, { "y", t.Y } }).ToList();
                s["input"] = input;
            }
            s["frame"] = Frame;
            s["simFrame"] = SimFrame;
            s["completedCommandId"] = completed;
            s["commandResults"] = results.ToList();
            s["sessionEpoch"] = SessionEpoch;
            s["clock"] = new Dictionary<string, object> { { "paused", Paused }, { "stepFramesLeft", stepLeft } };
            return s;
        }

        object Tools()
        {
            var m = Manifest as IDictionary;
            if (m == null) return null;
            var copy = new Dictionary<string, object>();
            foreach (DictionaryEntry e in m) copy[e.Key.ToString()] = e.Value;
            var game = new Dictionary<string, object> { { "name", Name }, { "version", Version }, { "protocol", Protocol } };
            var given = m["game"] as IDictionary;
            if (given != null) foreach (DictionaryEntry e in given) game[e.Key.ToString()] = e.Value;
            game["capabilities"] = Capabilities;
            if (Inputs != null) game["inputs"] = Inputs;
            if (Axes != null && Axes.Length > 0)
                game["axes"] = Axes.Select(x => new Dictionary<string, object> { { "name", x.Name }, { "min", x.Min }, { "max", x.Max } }).ToList();
            if (TakesPointer) game["pointer"] = true;
            if (TakesTouch) game["touch"] = true;
            if (TakesText) game["text"] = true;
            copy["game"] = game;
            return copy;
        }

        List<string> Known()
        {
            var names = commands.Keys.OrderBy(k => k, StringComparer.Ordinal).ToList();
            names.Add("close");
            var caps = Capabilities;
            bool anyInput = InputCaps.Any(caps.Contains);
            names.AddRange(Reserved.Where(r => caps.Contains(Needs.ContainsKey(r) ? Needs[r] : r.Split('.')[0])
                || ((r == "input.release" || r == "input.releaseAll") && anyInput)));
            names.Add(Stall);
            return names;
        }

        // --- the server's threads ------------------------------------------------------------------

        // Why a command is refused, or null; the reserved ones are checked here.
        static string Validate(string cmd, Args a, Published pub)
        {
            if (cmd.StartsWith("input."))
            {
                if (!a.Has("owner")) return "missing argument 'owner'";
                if (a.Raw["owner"].Trim() == "") return "argument 'owner' must not be empty (whoever holds the input)";
            }
            if (cmd == "input.hold")
            {
                double lease;
                string text = a.String("leaseMs", "");
                if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out lease) || !(lease > 0) || lease > MaxLeaseMs)
                    return $"argument 'leaseMs' must be > 0 and <= {MaxLeaseMs}, got '{Args.Clip(text)}'";
            }
            var axisNames = pub.Axes.Select(x => x.Name).ToArray();
            if (cmd == "input.hold" && !pub.Inputs.Contains(a.String("input", "")))
                return $"unknown input '{Args.Clip(a.String("input", ""))}' (this game reads: {string.Join(", ", pub.Inputs)})";
            if (cmd == "input.release" && !pub.Inputs.Concat(axisNames).Contains(a.String("input", "")))
                return $"unknown input '{Args.Clip(a.String("input", ""))}' (this game reads: {string.Join(", ", pub.Inputs.Concat(axisNames))})";
            if (Needs.ContainsKey(cmd))
            {
                try { return ValidateInput(cmd, a, pub); }
                catch (ArgException e) { return e.Message; }
            }
            if (cmd == Stall)
            {
                double ms;
                string text = a.String("ms", "");
                if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out ms) || !(ms >= 1) || ms > MaxStallMs)
                    return $"argument 'ms' must be from 1 to {MaxStallMs}, got '{Args.Clip(text)}'";
                double at;
                if (a.Has("frame") && !double.TryParse(a.Raw["frame"], NumberStyles.Float, CultureInfo.InvariantCulture, out at))
                    return $"argument 'frame' must be a frame number, got '{Args.Clip(a.Raw["frame"])}'";
            }
            if (cmd == "clock.step")
            {
                int f;
                string text = a.String("frames", "");
                if (!int.TryParse(text.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out f) || f < 1 || f > MaxStepFrames)
                    return $"argument 'frames' must be a whole number from 1 to {MaxStepFrames}, got '{Args.Clip(text)}'";
            }
            if (cmd.StartsWith("ui.") && a.String("id", "") == "") return "missing argument 'id'";
            if (cmd == "ui.setValue" && !a.Has("value")) return "missing argument 'value'";
            Func<Args, string> validate;
            if (pub.Validators.TryGetValue(cmd, out validate))
            {
                try { return validate(a); }
                catch (Exception e) { return e.Message; }
            }
            return null;
        }

        static string Bound(double v) => v.ToString(CultureInfo.InvariantCulture);

        // Why a pointer, wheel, touch, axis or text command is refused: every value in its range.
        static string ValidateInput(string cmd, Args a, Published pub)
        {
            Func<string, double, double, bool, string> within = (name, lo, hi, whole) =>
            {
                double v = a.Number(name);
                return (whole && v != Math.Floor(v)) || v < lo || v > hi
                    ? $"argument '{name}' must be {(whole ? "a whole number" : "a number")} from {Bound(lo)} to {Bound(hi)}, got '{Args.Clip(a.Raw[name])}'"
                    : null;
            };
            if (cmd == "input.axis")
            {
                var axis = pub.Axes.FirstOrDefault(x => x.Name == a.String("input", ""));
                if (axis == null)
                    return $"unknown axis '{Args.Clip(a.String("input", ""))}' (this game reads: {string.Join(", ", pub.Axes.Select(x => x.Name))})";
                double lease;
                string text = a.String("leaseMs", "");
                if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out lease) || !(lease > 0) || lease > MaxLeaseMs)
                    return $"argument 'leaseMs' must be > 0 and <= {MaxLeaseMs}, got '{Args.Clip(text)}'";
                double v = a.Number("value");
                return v < axis.Min || v > axis.Max
                    ? $"argument 'value' must be within {Bound(axis.Min)}..{Bound(axis.Max)} for axis '{axis.Name}', got '{Args.Clip(a.Raw["value"])}'"
                    : null;
            }
            if (cmd == "input.text")
            {
                string t = a.String("text");
                return t.Length < 1 || t.Length > MaxText ? $"argument 'text' must be 1 to {MaxText} characters, got {t.Length}" : null;
            }
            if (cmd == "input.wheel") return within("dx", -MaxWheel, MaxWheel, false) ?? within("dy", -MaxWheel, MaxWheel, false);
            string why = within("x", 0, MaxCoord, false) ?? within("y", 0, MaxCoord, false);
            if (why != null) return why;
            if (cmd == "input.pointer") return within("buttons", 0, 7, true);
            if (cmd == "input.click")
            {
                string button = a.String("button", "").Trim();
                if (button != "1" && button != "2" && button != "4")
                    return $"argument 'button' must be 1 (left), 2 (right) or 4 (middle), got '{Args.Clip(button)}'";
                return within("count", 1, MaxClicks, true);
            }
            string phase = a.String("phase");
            if (phase != "down" && phase != "move" && phase != "up")
                return $"argument 'phase' must be down, move or up, got '{Args.Clip(phase)}'";
            return within("id", 0, MaxTouchId, true);
        }

        Dictionary<string, object> Enqueue(string cmd, Args a, Published pub)
        {
            var known = pub.Known;
            if (!known.Contains(cmd))
                return new Dictionary<string, object> { { "accepted", false }, { "error", $"unknown command '{Args.Clip(cmd)}'" }, { "known", known } };
            string why = Validate(cmd, a, pub);
            if (why != null) return new Dictionary<string, object> { { "accepted", false }, { "error", why } };
            long id;
            lock (gate)
            {
                id = nextId++;
                incoming.Add(new Queued { Id = id, Cmd = cmd, Args = a });
            }
            return new Dictionary<string, object> { { "accepted", true }, { "commandId", id }, { "frame", pub.Frame } };
        }

        void AcceptLoop()
        {
            while (true)
            {
                TcpClient client;
                try { client = listener.AcceptTcpClient(); }
                catch (Exception) { return; } // stopped
                var peer = new Peer { Client = client, WaitingSince = Stopwatch.GetTimestamp() };
                Peer evicted = null;
                bool admitted;
                lock (peers)
                {
                    // Full: the connection that has waited longest for its request goes, so another
                    // local user's idle connections cannot lock the bridge out.
                    if (peers.Count >= MaxPeers)
                    {
                        foreach (var p in peers)
                            if (p.WaitingSince >= 0 && (evicted == null || p.WaitingSince < evicted.WaitingSince)) evicted = p;
                        if (evicted != null) peers.Remove(evicted);
                    }
                    admitted = peers.Count < MaxPeers;
                    if (admitted) peers.Add(peer);
                }
                evicted?.Client.Close(); // its thread's blocked read ends
                if (!admitted)
                {
                    client.Close(); // every slot is busy answering, a moment's work: the client tries again
                    continue;
                }
                new Thread(() => Serve(peer)) { IsBackground = true, Name = "GameBridge connection" }.Start();
            }
        }

        static int HeaderEnd(byte[] buf, int len)
        {
            for (int i = 3; i < len; i++)
                if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') return i + 1;
            return -1;
        }

        // One connection: requests answered in turn (keep-alive), each answer in one write.
        void Serve(Peer peer)
        {
            var client = peer.Client;
            try
            {
                client.NoDelay = true;
                var stream = client.GetStream();
                var buf = new byte[MaxRequestBytes + 1];
                int len = 0;
                while (true)
                {
                    // One deadline from waiting for a request to the end of its answer, reading and
                    // writing: a client trickling bytes or never reading cannot keep a slot for ever.
                    var deadline = Stopwatch.StartNew();
                    stream.WriteTimeout = RequestTimeoutMs;
                    int end;
                    lock (peers) peer.WaitingSince = Stopwatch.GetTimestamp();
                    while ((end = HeaderEnd(buf, len)) < 0)
                    {
                        long left = RequestTimeoutMs - deadline.ElapsedMilliseconds;
                        if (left <= 0) return;
                        stream.ReadTimeout = (int)left;
                        if (len >= buf.Length)
                        {
                            Send(stream, 431, Json.Write(new Dictionary<string, object> { { "error", $"request over {MaxRequestBytes} bytes" } }), true);
                            return;
                        }
                        int n = stream.Read(buf, len, buf.Length - len);
                        if (n <= 0) return;
                        len += n;
                    }
                    lock (peers) peer.WaitingSince = -1;
                    string head = Encoding.UTF8.GetString(buf, 0, end);
                    Buffer.BlockCopy(buf, end, buf, 0, len - end);
                    len -= end;
                    var lines = head.Split(new[] { "\r\n" }, StringSplitOptions.None);
                    var parts = lines[0].Split(' ');
                    bool close = parts.Length < 3 || parts[2] != "HTTP/1.1"
                        || lines.Any(l => l.StartsWith("connection:", StringComparison.OrdinalIgnoreCase) && l.IndexOf("close", StringComparison.OrdinalIgnoreCase) >= 0);
                    if (parts.Length < 3 || !parts[2].StartsWith("HTTP/"))
                    {
                        Send(stream, 400, Json.Write(new Dictionary<string, object> { { "error", "not an HTTP request" } }), true);
                        return;
                    }
                    if (parts[0] != "GET")
                    {
                        Send(stream, 405, Json.Write(new Dictionary<string, object> { { "error", "the game surface answers GET only" } }), true);
                        return; // a body may follow: do not read it as a request
                    }
                    string refused = Refusal(lines);
                    if (refused != null)
                    {
                        Send(stream, refused.StartsWith("Bad Request") ? 400 : 403, Json.Write(new Dictionary<string, object> { { "ok", false }, { "accepted", false }, { "error", refused } }), close);
                        if (close) return;
                        continue;
                    }
                    long writeLeft = RequestTimeoutMs - deadline.ElapsedMilliseconds;
                    if (writeLeft <= 0) return;
                    stream.WriteTimeout = (int)writeLeft;
                    Answer(stream, parts[1], close);
                    if (close || deadline.ElapsedMilliseconds > RequestTimeoutMs) return;
                }
            }
            catch (Exception) { /* the client went away or timed out */ }
            finally
            {
                client.Close();
                lock (peers) peers.Remove(peer);
            }
        }

        // Why a request is refused as a browser's (docs/CONTRACT.md, "Refuse browsers"), or null.
        // Any web page can make the user's browser call a loopback port, and a DNS-rebinding page
        // does so under its own Host name; the bridge and curl send neither Origin nor Sec-Fetch-Site.
        string Refusal(string[] lines)
        {
            string host = "";
            int hosts = 0;
            bool browser = false;
            foreach (var line in lines.Skip(1))
            {
                int colon = line.IndexOf(':');
                if (colon <= 0) continue;
                string key = line.Substring(0, colon).Trim().ToLowerInvariant(), value = line.Substring(colon + 1).Trim();
                if (key == "host") { host = value; hosts++; }
                else if (key == "origin" || (key == "sec-fetch-site" && value != "none")) browser = true;
            }
            // Two Host headers: a proxy in front and this kit could each read a different one.
            if (hosts > 1) return "Bad Request: more than one Host header";
            if (host != $"127.0.0.1:{Port}" && host != $"localhost:{Port}")
                return $"Forbidden: unexpected Host header '{Args.Clip(host)}' (this port answers 127.0.0.1:{Port} only)";
            return browser ? "Forbidden: browser requests are refused on a game port" : null;
        }

        void Answer(Stream stream, string target, bool close)
        {
            int q = target.IndexOf('?');
            string path = q >= 0 ? target.Substring(0, q) : target;
            var pub = published;
            byte[] body;
            switch (path)
            {
                case "/command":
                    var raw = ParseQuery(q >= 0 ? target.Substring(q + 1) : "");
                    string cmd;
                    raw.TryGetValue("cmd", out cmd);
                    raw.Remove("cmd");
                    if (string.IsNullOrEmpty(cmd))
                        Send(stream, 400, Json.Write(new Dictionary<string, object> { { "accepted", false },
                            { "error", "missing 'cmd' (GET /command?cmd=NAME&arg=value)" }, { "known", pub.Known } }), close);
                    else Send(stream, 200, Json.Write(Enqueue(cmd, new Args(raw), pub)), close);
                    return;
                case "/errors":  // the errors caught after `since`, oldest first, and the latest number
                    string since;
                    long after;
                    ParseQuery(q >= 0 ? target.Substring(q + 1) : "").TryGetValue("since", out since);
                    long.TryParse(since, out after);
                    Send(stream, 200, Json.Write(new Dictionary<string, object> { { "seq", pub.ErrorSeq },
                        { "errors", pub.Errors.Where(e => (long)e["seq"] > after).ToList() } }), close);
                    return;
                case "/frames":
                    string fsince;
                    double fafter;
                    if (!ParseQuery(q >= 0 ? target.Substring(q + 1) : "").TryGetValue("since", out fsince)) fsince = "-1";
                    if (double.TryParse(fsince, NumberStyles.Float, CultureInfo.InvariantCulture, out fafter))
                        Send(stream, 200, Json.Write(FramesSince(fafter)), close);
                    else
                        Send(stream, 400, Json.Write(new Dictionary<string, object> { { "error", $"'since' must be a frame number, got '{Args.Clip(fsince)}'" } }), close);
                    return;
                case "/screenshot":
                    if (Screenshot == null) break;
                    var waiter = new ShotWaiter();
                    lock (gate) shotWaiters.Add(waiter);
                    if (!waiter.Done.Wait(5000) || waiter.Png == null)
                    {
                        Send(stream, 503, Json.Write(new Dictionary<string, object> { { "error", "no frame was drawn to take a screenshot of; try again" } }), close);
                        return;
                    }
                    SendBytes(stream, 200, "image/png", waiter.Png, close);
                    return;
                default:
                    if (pub.Bodies.TryGetValue(path, out body)) { SendBytes(stream, 200, "application/json; charset=utf-8", body, close); return; }
                    break;
            }
            if (path == "/tools")
                Send(stream, 404, Json.Write(new Dictionary<string, object> { { "error", "this game publishes no manifest" } }), close);
            else
                Send(stream, 404, Json.Write(new Dictionary<string, object> { { "error", $"no such endpoint '{Args.Clip(path)}'" },
                    { "endpoints", pub.Bodies.Keys.Concat(new[] { "/command", "/errors" }).OrderBy(k => k, StringComparer.Ordinal).ToList() } }), close);
        }

        static Dictionary<string, string> ParseQuery(string q)
        {
            var d = new Dictionary<string, string>();
            foreach (var pair in q.Split(new[] { '&' }, StringSplitOptions.RemoveEmptyEntries))
            {
                int eq = pair.IndexOf('=');
                string k = eq >= 0 ? pair.Substring(0, eq) : pair, v = eq >= 0 ? pair.Substring(eq + 1) : "";
                d[Unescape(k)] = Unescape(v);
            }
            return d;
        }

        static string Unescape(string s)
        {
            try { return Uri.UnescapeDataString(s.Replace('+', ' ')); }
            catch (Exception) { return s; }
        }

        static readonly Dictionary<int, string> Reasons = new Dictionary<int, string> {
            { 200, "OK" }, { 400, "Bad Request" }, { 403, "Forbidden" }, { 404, "Not Found" }, { 405, "Method Not Allowed" },
            { 431, "Request Header Fields Too Large" }, { 503, "Service Unavailable" } };

        static void Send(Stream s, int status, string json, bool close) =>
            SendBytes(s, status, "application/json; charset=utf-8", Encoding.UTF8.GetBytes(json), close);

        static void SendBytes(Stream s, int status, string type, byte[] body, bool close)
        {
            string reason;
            Reasons.TryGetValue(status, out reason);
            var head = Encoding.ASCII.GetBytes($"HTTP/1.1 {status} {reason ?? "OK"}\r\nContent-Type: {type}\r\nContent-Length: {body.Length}\r\n"
                + (close ? "Connection: close\r\n" : "Connection: keep-alive\r\n") + "\r\n");
            var all = new byte[head.Length + body.Length];
            Buffer.BlockCopy(head, 0, all, 0, head.Length);
            Buffer.BlockCopy(body, 0, all, head.Length, body.Length);
            s.Write(all, 0, all.Length);
        }

        // --- registry --------------------------------------------------------------------------------
        static string RegistryDir()
        {
            string dir = Environment.GetEnvironmentVariable("GAME_BRIDGE_INSTANCES");
            if (!string.IsNullOrEmpty(dir)) return dir;
            string home = Environment.GetEnvironmentVariable("GAME_BRIDGE_HOME");
            if (string.IsNullOrEmpty(home))
                home = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".game-bridge");
            return Path.Combine(home, "instances");
        }

        // Atomic (temp file + rename), after the bind; a registry failure never breaks the game.
        void WriteRegistryEntry()
        {
            int pid = Process.GetCurrentProcess().Id;
            string path = Path.Combine(RegistryDir(), pid + ".json");
            try
            {
                string dir = RegistryDir();
                bool created = !Directory.Exists(dir);
                Directory.CreateDirectory(dir);
                if (created) Private(dir, 0x1C0); // 0700
                string tmp = path + ".tmp";
                // Made private while still empty: the entry says which port takes commands.
                using (File.Create(tmp)) { }
                Private(tmp, 0x180); // 0600
                File.WriteAllText(tmp, Json.Write(new Dictionary<string, object> {
                    { "name", Name }, { "version", Version }, { "protocol", Protocol }, { "port", Port }, { "pid", pid },
                    { "host", "127.0.0.1" }, { "started", DateTime.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture) },
                    { "cwd", Environment.CurrentDirectory } }));
                if (File.Exists(path)) File.Delete(path);
                File.Move(tmp, path);
                registryFile = path;
            }
            catch (Exception e)
            {
                Console.Error.WriteLine($"GameBridge: could not write the registry entry {path} ({e.Message}); discovery falls back to port scans");
            }
        }

        [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
        static extern int chmod(string path, uint mode);

        // chmod through libc: .NET Framework and Mono have no managed call for it (Mono.Posix
        // is not always there); on Windows, where there is no libc, the user's profile is private.
        static void Private(string path, uint mode)
        {
            if (Environment.OSVersion.Platform != PlatformID.Unix && Environment.OSVersion.Platform != PlatformID.MacOSX) return;
            try
            {
                if (chmod(path, mode) != 0) Console.Error.WriteLine($"GameBridge: could not make {path} private (errno {System.Runtime.InteropServices.Marshal.GetLastWin32Error()})");
            }
            catch (Exception e) when (e is DllNotFoundException || e is EntryPointNotFoundException)
            {
                Console.Error.WriteLine($"GameBridge: could not make {path} private ({e.Message})");
            }
        }

        void Unregister()
        {
            string path = Interlocked.Exchange(ref registryFile, null);
            if (path == null) return;
            try { File.Delete(path); } catch (Exception) { /* gone already */ }
        }

        /// <summary>Stops serving and removes the registry entry.</summary>
        public void Dispose()
        {
            Unregister();
            var l = Interlocked.Exchange(ref listener, null);
            if (l != null) l.Stop();
        }
    }

    /// <summary>A small JSON writer: dictionaries, lists, strings, numbers, booleans, null.</summary>
    public static class Json
    {
        public static string Write(object v)
        {
            var sb = new StringBuilder();
            Write(sb, v);
            return sb.ToString();
        }

        public static string Number(double d) =>
            double.IsNaN(d) || double.IsInfinity(d) ? "null" : d.ToString("R", CultureInfo.InvariantCulture);

        static void Write(StringBuilder sb, object v)
        {
            if (v == null) sb.Append("null");
            else if (v is bool) sb.Append((bool)v ? "true" : "false");
            else if (v is string) Quote(sb, (string)v);
            else if (v is double || v is float) sb.Append(Number(Convert.ToDouble(v, CultureInfo.InvariantCulture)));
            else if (v is int || v is long || v is short || v is byte || v is uint || v is ulong || v is decimal)
                sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture));
            // a dictionary's own enumerator, whose items are DictionaryEntry for generic dictionaries too
            else if (v is IDictionary)
                Items(sb, '{', ((IDictionary)v).GetEnumerator(), '}', o =>
                {
                    var e = (DictionaryEntry)o;
                    Quote(sb, e.Key.ToString());
                    sb.Append(':');
                    Write(sb, e.Value);
                });
            else if (v is IEnumerable) Items(sb, '[', ((IEnumerable)v).GetEnumerator(), ']', x => Write(sb, x));
            else Quote(sb, v.ToString());
        }

        /// <summary>An object's or an array's items between its brackets, a comma between two, each written by item.</summary>
        static void Items(StringBuilder sb, char open, IEnumerator items, char close, Action<object> item)
        {
            sb.Append(open);
            try
            {
                for (bool first = true; items.MoveNext(); first = false)
                {
                    if (!first) sb.Append(',');
                    item(items.Current);
                }
            }
            finally
            {
                (items as IDisposable)?.Dispose(); // as foreach does: an iterator's finally blocks run
            }
            sb.Append(close);
        }

        static void Quote(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }
    }
}
