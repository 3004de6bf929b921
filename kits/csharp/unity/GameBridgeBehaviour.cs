// GameBridgeBehaviour: the C# kit (GameBridge.cs) in a Unity scene. NOT RUN HERE: this machine
// has no Unity; the kit file itself is tested under Mono. See docs/KITS.md.
//
// Put GameBridge.cs and this file under Assets/, add this component to one GameObject of your
// first scene, and start the player with `-- --debug-port 7820` (or `--debug-port=7820`); without
// the flag it serves nothing. From your own scripts:
//
//   var bridge = GameBridgeBehaviour.Bridge;           // null when no debug port was given
//   bridge.AddCommand("jump", args => player.Jump());  // applied in this component's Update
//   if (GameBridgeBehaviour.IsHeld("right")) ...       // held inputs, leases enforced here
//
// Update (first in the frame: the script execution order below) runs the kit's BeginFrame; the
// clock pauses through Time.timeScale, so what scales by Time.deltaTime stops. The publication
// and any screenshot happen at the end of the frame (WaitForEndOfFrame), after rendering. The UI
// tree is every active uGUI Selectable (Button, Toggle, Slider, InputField, Dropdown), with no
// game code: ids are hierarchy paths, rects are screen pixels from the top left, and ui.activate
// sends the pointer click a player's click would.
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using GameBridgeKit;
using UnityEngine;
using UnityEngine.EventSystems;
using UnityEngine.UI;

[DefaultExecutionOrder(-10000)]
public sealed class GameBridgeBehaviour : MonoBehaviour
{
    public string gameName = "";
    public string gameVersion = "";
    [Tooltip("The input names the game reads (held through input.hold)")]
    public string[] inputs = new string[0];
    [Tooltip("Objects published in GET /world")]
    public List<Transform> worldObjects = new List<Transform>();

    public static GameBridge Bridge { get; private set; }
    public static bool IsHeld(string input) => Bridge != null && Bridge.IsHeld(input);

    bool simulated;
    readonly WaitForEndOfFrame endOfFrame = new WaitForEndOfFrame();

    void Awake()
    {
        if (Bridge != null) { Destroy(gameObject); return; }
        DontDestroyOnLoad(gameObject);
        var bridge = new GameBridge(gameName != "" ? gameName : Application.productName,
            gameVersion != "" ? gameVersion : Application.version)
        {
            Inputs = inputs.Length > 0 ? inputs : null,
            Snapshot = () => new Dictionary<string, object> {
                { "ui", new Dictionary<string, object> { { "screen", UnityEngine.SceneManagement.SceneManager.GetActiveScene().name } } } },
            Ui = UiTree,
            Screen = () => UnityEngine.SceneManagement.SceneManager.GetActiveScene().name,
            World = WorldObjects,
            Screenshot = () => { var t = ScreenCapture.CaptureScreenshotAsTexture(); var png = t.EncodeToPNG(); Destroy(t); return png; },
            OnClose = reason => Application.Quit(),
        };
        if (!bridge.Listen(GameBridge.DebugPort(System.Environment.GetCommandLineArgs()))) return;
        Bridge = bridge;
        StartCoroutine(EndOfFrames());
    }

    bool holdingTime;          // the bridge's clock has Time.timeScale at 0
    float gameTimeScale = 1f;  // the game's own value, given back on resume

    void Update()
    {
        if (Bridge == null) return;
        simulated = Bridge.BeginFrame();
        // Only when the bridge's clock stops or starts: between those the game owns timeScale
        // (slow motion, its own pause), and gets its value back when the clock runs again.
        if (!simulated && !holdingTime)
        {
            gameTimeScale = Time.timeScale;
            Time.timeScale = 0f;
            holdingTime = true;
        }
        else if (simulated && holdingTime)
        {
            Time.timeScale = gameTimeScale;
            holdingTime = false;
        }
    }

    IEnumerator EndOfFrames()
    {
        while (true)
        {
            yield return endOfFrame;
            Bridge.EndFrame(simulated);
        }
    }

    void OnApplicationQuit()
    {
        if (Bridge != null) Bridge.Dispose();
        Bridge = null;
    }

    static string PathOf(Transform t) => t.parent == null ? t.name : PathOf(t.parent) + "/" + t.name;

    static string Label(Selectable s)
    {
        var text = s.GetComponentInChildren<Text>();
        if (text != null && text.text != "") return text.text;
        var tmp = s.GetComponentsInChildren<Component>().FirstOrDefault(c => c.GetType().Name.StartsWith("TextMeshPro"));
        var prop = tmp?.GetType().GetProperty("text");
        var value = prop?.GetValue(tmp) as string;
        return string.IsNullOrEmpty(value) ? s.name : value;
    }

    static int[] ScreenRect(RectTransform rt)
    {
        var corners = new Vector3[4];
        rt.GetWorldCorners(corners);
        var canvas = rt.GetComponentInParent<Canvas>();
        var cam = canvas != null && canvas.renderMode != RenderMode.ScreenSpaceOverlay ? canvas.worldCamera : null;
        var a = RectTransformUtility.WorldToScreenPoint(cam, corners[0]);
        var b = RectTransformUtility.WorldToScreenPoint(cam, corners[2]);
        return new[] { Mathf.RoundToInt(a.x), Mathf.RoundToInt(Screen.height - b.y), Mathf.RoundToInt(b.x - a.x), Mathf.RoundToInt(b.y - a.y) };
    }

    static IList<UiNode> UiTree()
    {
        var nodes = new List<UiNode>();
        var selected = EventSystem.current != null ? EventSystem.current.currentSelectedGameObject : null;
        foreach (var s in Object.FindObjectsOfType<Selectable>())
        {
            var go = s.gameObject;
            var n = new UiNode { Id = PathOf(s.transform), Name = Label(s), Enabled = s.IsInteractable(),
                Rect = ScreenRect((RectTransform)s.transform), Focused = go == selected ? true : (bool?)null,
                Focus = () => EventSystem.current?.SetSelectedGameObject(go) };
            if (s is Button)
            {
                n.Role = "button";
                n.Activate = () => ExecuteEvents.Execute(go, new PointerEventData(EventSystem.current), ExecuteEvents.pointerClickHandler);
            }
            else if (s is Toggle)
            {
                var t = (Toggle)s;
                n.Role = "checkbox";
                n.Checked = t.isOn;
                n.Activate = () => ExecuteEvents.Execute(go, new PointerEventData(EventSystem.current), ExecuteEvents.pointerClickHandler);
                n.SetValue = v => t.isOn = (bool)v;
            }
            else if (s is Slider)
            {
                var sl = (Slider)s;
                n.Role = "slider";
                n.Name = s.name;
                n.Value = (double)sl.value;
                n.Min = sl.minValue;
                n.Max = sl.maxValue;
                n.SetValue = v => sl.value = (float)(double)v;
            }
            else if (s is InputField)
            {
                var f = (InputField)s;
                n.Role = "textbox";
                n.Name = f.placeholder is Text ? ((Text)f.placeholder).text : s.name;
                n.Value = f.text;
                n.SetValue = v => f.text = (string)v;
            }
            else if (s is Dropdown)
            {
                var d = (Dropdown)s;
                n.Role = "combobox";
                n.Name = s.name;
                // Its options as children, as every kit reads a combobox's choices.
                n.Children = d.options.Select((o, i) => new UiNode { Id = n.Id + "#option" + i, Role = "option", Name = o.text, Selected = i == d.value ? true : (bool?)null }).ToList();
                n.Value = d.options.Count > d.value ? d.options[d.value].text : "";
                n.SetValue = v => d.value = d.options.FindIndex(o => o.text == (string)v);
            }
            else n.Role = s.GetType().Name.ToLowerInvariant();
            nodes.Add(n);
        }
        return nodes.OrderBy(n => n.Rect[1]).ThenBy(n => n.Rect[0]).ToList();
    }

    IList<WorldObject> WorldObjects() => worldObjects.Where(t => t != null && t.gameObject.activeInHierarchy).Select(t => new WorldObject
    {
        Id = PathOf(t), Type = t.tag != "Untagged" ? t.tag : t.name, Name = t.name,
        Pos = new double[] { t.position.x, t.position.y, t.position.z }, Player = true,
    }).ToList();
}
