// Walker (C#): a console game on the C# kit (kits/csharp/GameBridge.cs), compiled with mcs and
// run with mono by run.sh. The walker moves while `left`/`right` is held, jumps on `jump` and
// collects coins along a track; `reset` starts a new run (a new session epoch). Its HUD (coins,
// Jump, Menu) and pause menu (Resume, New run, a disabled Options, a Volume slider) are published
// as the UI tree, as a game with a real screen would publish its widgets; the walker and the
// coins left are world objects. It reads the kit's input state too: the analog `walk` axis
// (it walks at that fraction of its speed), the pointer and touch (a left press or a tap, in
// its 5-pixels-a-unit view from x = 100, walks it there) and typed text (the runner's name).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using GameBridgeKit;

static class Walker
{
    const int Fps = 60;
    const double Speed = 2, JumpSpeed = 6, Gravity = 0.5, TrackEnd = 200;
    static readonly int[] CoinsAt = { 20, 45, 80, 120, 160 };

    static int run, jumps;
    static double x, y, vy, volume = 0.8;
    static bool menuOpen;
    static double walk;
    static double? target;
    static string name = "";
    static double[] lastClick, lastTap;
    static List<int> coins = new List<int>();
    static List<object> events = new List<object>();
    static GameBridge bridge;

    static void Event(string m)
    {
        events.Add(new Dictionary<string, object> { { "m", m } });
        if (events.Count > 20) events.RemoveAt(0);
    }

    static void NewRun()
    {
        run++;
        x = y = vy = 0;
        jumps = 0;
        coins = new List<int>();
        events = new List<object>();
        menuOpen = false;
    }

    static bool OnGround() => y == 0 && vy == 0;

    // Throws in the air: the kit turns it into the command's failed result, with these words.
    static void Jump()
    {
        if (!OnGround()) throw new InvalidOperationException("the walker is in the air (jump again once it lands)");
        vy = JumpSpeed;
        jumps++;
        Event("jump:" + jumps);
    }

    static void Reset()
    {
        NewRun();
        bridge.NewEpoch();
    }

    static void Simulate()
    {
        walk = bridge.Axis("walk");
        if (menuOpen) return; // the pause menu stops the walk
        double dx = (bridge.IsHeld("right") ? Speed : 0) - (bridge.IsHeld("left") ? Speed : 0) + Speed * walk;
        if (target.HasValue) // walking to where the player pressed or tapped
        {
            dx += Math.Max(-Speed, Math.Min(Speed, target.Value - x));
            if (Math.Abs(target.Value - x) <= Speed) target = null;
        }
        x = Math.Min(Math.Max(x + dx, 0), TrackEnd);
        if (y > 0 || vy > 0)
        {
            y = Math.Max(y + vy, 0);
            vy -= Gravity;
            if (y == 0) vy = 0;
        }
        foreach (int c in CoinsAt)
            if (!coins.Contains(c) && Math.Abs(x - c) < Speed)
            {
                coins.Add(c);
                Event("coin:" + c);
            }
    }

    // The kit's input changes, on the game thread: a press or a tap walks the walker there.
    static void OnInput(InputEvent e)
    {
        if (e.Type == "pointerdown" && e.Button == 1) lastClick = new[] { e.X, e.Y };
        else if (e.Type == "touchdown") lastTap = new[] { e.X, e.Y };
        else return;
        if (!menuOpen) target = Math.Min(Math.Max((e.X - 100) / 5, 0), TrackEnd);
    }

    static string Screen() => menuOpen ? "MenuScreen" : x >= TrackEnd ? "FinishScreen" : "GameScreen";

    static IList<UiNode> Ui()
    {
        if (!menuOpen)
            return new List<UiNode> {
                new UiNode { Id = "coins", Role = "text", Name = $"Coins {coins.Count}/{CoinsAt.Length}" },
                new UiNode { Id = "jump", Role = "button", Name = "Jump", Enabled = OnGround(), Activate = Jump },
                new UiNode { Id = "open-menu", Role = "button", Name = "Menu", Activate = () => menuOpen = true },
            };
        return new List<UiNode> { new UiNode { Id = "menu", Role = "dialog", Name = "Paused", Children = new List<UiNode> {
            new UiNode { Id = "resume", Role = "button", Name = "Resume", Activate = () => menuOpen = false },
            new UiNode { Id = "new-run", Role = "button", Name = "New run", Activate = Reset },
            new UiNode { Id = "options", Role = "button", Name = "Options", Enabled = false },
            new UiNode { Id = "volume", Role = "slider", Name = "Volume", Value = volume, Min = 0, Max = 1, SetValue = v => volume = (double)v },
        } } };
    }

    static IList<WorldObject> World()
    {
        var objects = new List<WorldObject> { new WorldObject { Id = "walker", Type = "player", Name = "Walker", Pos = new[] { x, y }, Player = true } };
        foreach (int c in CoinsAt)
            if (!coins.Contains(c))
                objects.Add(new WorldObject { Id = "coin-" + c, Type = "coin", Name = "Coin at " + c, Pos = new double[] { c, 0 }, Tags = new[] { "coin" }, Player = true });
        return objects;
    }

    static object Manifest() => new Dictionary<string, object> { { "toolsets", new List<object> { new Dictionary<string, object> {
        { "name", "play" }, { "description", "Walk the track (hold left/right with the bridge's hold tool)" }, { "tools", new List<object> {
            Tool("jump", "Jump, if on the ground"),
            Tool("reset", "Start a new run from x=0 (a new session epoch)"),
            Tool("teleport", "Put the walker at x", Arg("x", "number", "Track position, 0-" + TrackEnd, true)),
        } } } } } };

    static object Tool(string name, string description, params object[] args) =>
        new Dictionary<string, object> { { "name", name }, { "description", description }, { "args", args } };

    static object Arg(string name, string type, string description, bool required) =>
        new Dictionary<string, object> { { "name", name }, { "type", type }, { "description", description }, { "required", required } };

    static int Main(string[] argv)
    {
        NewRun();
        bridge = new GameBridge("Walker (C#)", "1.0.0")
        {
            Inputs = new[] { "left", "right" },
            Axes = new[] { new InputAxis("walk", -1, 1) },
            TakesPointer = true,
            TakesTouch = true,
            TakesText = true,
            OnInput = OnInput,
            StepFramesPerTick = 1000,  // its frames read no wall clock
            Snapshot = () => new Dictionary<string, object> {
                { "ui", new Dictionary<string, object> { { "screen", Screen() } } },
                { "events", events.ToList() },
                { "game", new Dictionary<string, object> { { "run", run }, { "x", x }, { "y", y }, { "jumps", jumps },
                    { "coins", coins.ToList() }, { "volume", volume }, { "walk", walk }, { "name", name },
                    { "lastClick", lastClick }, { "lastTap", lastTap } } } },
            Ui = Ui,
            Screen = Screen,
            World = World,
            Manifest = Manifest(),
        };
        bridge.AddCommand("jump", a => Jump());
        bridge.AddCommand("reset", a => Reset());
        bridge.AddCommand("teleport", a => x = a.Number("x"),
            a => a.Number("x") < 0 || a.Number("x") > TrackEnd ? "x must be within 0-" + TrackEnd : null);
        bridge.Listen(GameBridge.DebugPort(argv));

        var clock = Stopwatch.StartNew();
        long frames = 0;
        while (bridge.Running)
        {
            bridge.Tick(Simulate);
            string typed = bridge.TakeText(); // the runner's name, 12 characters at most
            if (typed != "") name = (name + typed).Length > 12 ? (name + typed).Substring(0, 12) : name + typed;
            frames++;
            long wait = frames * 1000 / Fps - clock.ElapsedMilliseconds;
            if (wait > 0) Thread.Sleep((int)wait);
        }
        bridge.Dispose();
        Console.WriteLine($"walker: bye after {frames} frames");
        return 0;
    }
}
