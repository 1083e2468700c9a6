// Compile-only stand-ins for the Unity API the package uses: each constructor's and
// method's parameters are Unity 6's own (tests/engines/unity/test_unity_compile.py holds every one to the
// unity-api-mcp database; defaults where Unity has them), so the package's calls are
// checked for argument types and overloads by a real C# compiler. Bodies do next to nothing
// (enough for tests/support/unity/BodyProbe.cs: an asset's path is its name, colours are hex).
using System;
namespace UnityEngine
{
    public class Object { public string name; public static void DestroyImmediate(Object o) {} public static implicit operator bool(Object o) => o != null; }
    public class ScriptableObject : Object {}
    public class Texture : Object { public int width; public int height; }
    public class Texture2D : Texture { public Texture2D(int w, int h) {} }
    public class Sprite : Object { public Texture2D texture; public Rect textureRect; }
    public class Motion : Object {}
    public class AnimationClip : Motion { public float frameRate; }
    public struct Vector2 { public float x, y; public Vector2(float x, float y) { this.x = x; this.y = y; }
        public static Vector2 operator -(Vector2 a, Vector2 b) => a; public static Vector2 operator +(Vector2 a, Vector2 b) => a;
        public static Vector2 operator /(Vector2 a, float d) => a; }
    public struct Rect { public Rect(float x, float y, float w, float h) { this.x = x; this.y = y; width = w; height = h; }
        public Rect(Vector2 p, Vector2 s) { x = p.x; y = p.y; width = s.x; height = s.y; }
        public float x, y, width, height; public Vector2 center => new Vector2(); public bool Contains(Vector2 p) => true; }
    public struct Color { public float r, g, b, a; public Color(float r, float g, float b, float a) { this.r = r; this.g = g; this.b = b; this.a = a; }
        public static Color green => new Color(0f, 1f, 0f, 1f); }
    public static class Mathf { public static int Max(int a, int b) => a; public static float Max(float a, float b) => a;
        public static int Min(int a, int b) => a; public static float Min(float a, float b) => a;
        public static int Clamp(int v, int a, int b) => v; public static float Clamp(float v, float a, float b) => v;
        public static int RoundToInt(float f) => 0; public static int FloorToInt(float f) => 0; }
    public static class Debug { public static void LogException(Exception e) {} }
    public enum RuntimePlatform { OSXEditor, WindowsEditor, LinuxEditor }
    public static class Application { public static string dataPath => "/game/Assets"; public static RuntimePlatform platform => RuntimePlatform.LinuxEditor; }
    public static class JsonUtility { public static T FromJson<T>(string json) => default(T); public static string ToJson(object o) => ""; }
    public static class ColorUtility { public static string ToHtmlStringRGB(Color c) =>
        ((int)(c.r * 255)).ToString("X2") + ((int)(c.g * 255)).ToString("X2") + ((int)(c.b * 255)).ToString("X2"); }
    public static class ImageConversion { public static bool LoadImage(Texture2D t, byte[] data, bool markNonReadable = false) => true; }
    public sealed class GUILayoutOption {}
    public class GUIStyle {}
    public class GUIContent { public GUIContent(string text, string tooltip) {} }
    public static class GUILayout { public static bool Button(string text, params GUILayoutOption[] o) => false;
        public static bool Button(GUIContent content, params GUILayoutOption[] o) => false;
        public static GUILayoutOption Width(float w) => null; public static GUILayoutOption MinHeight(float h) => null;
        public static bool Toggle(bool value, string text, params GUILayoutOption[] o) => value; }
    public static class GUILayoutUtility { public static Rect GetRect(float w, float h, params GUILayoutOption[] o) => new Rect(); }
    public enum ScaleMode { StretchToFill, ScaleAndCrop, ScaleToFit }
    public static class GUI { public static void DrawTexture(Rect r, Texture t, ScaleMode m) {} public static void DrawTextureWithTexCoords(Rect r, Texture t, Rect uv) {} }
    public enum EventType { MouseDown, MouseUp }
    public class Event { public static Event current; public EventType type; public Vector2 mousePosition; public void Use() {} }
    public static class GUIUtility { public static void ExitGUI() {} }
    public class AsyncOperation { public bool isDone; public event Action<AsyncOperation> completed; }
}
namespace UnityEngine.Networking
{
    public class DownloadHandler { public string text; public byte[] data; }
    public sealed class DownloadHandlerBuffer : DownloadHandler {}
    public class UploadHandler { public string contentType; }
    public sealed class UploadHandlerRaw : UploadHandler { public UploadHandlerRaw(byte[] data) {} }
    public class UnityWebRequestAsyncOperation : AsyncOperation {}
    public class UnityWebRequest : IDisposable { public const string kHttpVerbGET = "GET"; public const string kHttpVerbPOST = "POST";
        public UnityWebRequest(string url, string method) {} public DownloadHandler downloadHandler; public UploadHandler uploadHandler;
        public void SetRequestHeader(string n, string v) {} public int timeout; public UnityWebRequestAsyncOperation SendWebRequest() => null;
        public long responseCode; public string error; public void Dispose() {} }
}
namespace UnityEditor
{
    using UnityEngine;
    public class EditorWindow : ScriptableObject { public static T GetWindow<T>(string title) where T : EditorWindow => null; public void Show() {} public void Repaint() {} }
    public sealed class MenuItem : Attribute { public MenuItem(string p) {} public MenuItem(string p, bool v) {} public MenuItem(string p, bool v, int priority) {} }
    public enum ImportAssetOptions { Default, ForceSynchronousImport }
    public static class AssetDatabase { public static string GetAssetPath(Object o) => o == null ? "" : o.name; // the probe names assets by path public static string GetAssetPath(int id) => "";
        public static T LoadAssetAtPath<T>(string p) where T : Object => null; public static void Refresh() {} public static void Refresh(ImportAssetOptions o) {}
        public static void ImportPackage(string p, bool interactive) {} }
    public static class Selection { public static Object activeObject; public static Object[] objects; }
    public static class EditorGUIUtility { public static void PingObject(Object o) {} }
    public static class EditorApplication { public delegate void CallbackFunction(); public static CallbackFunction update; public static double timeSinceStartup => 0; }
    public enum MessageType { None, Info, Warning, Error }
    public static class EditorStyles { public static GUIStyle boldLabel, helpBox, wordWrappedLabel; }
    public static class EditorGUI { public static void BeginChangeCheck() {} public static bool EndChangeCheck() => false;
        public static void DrawRect(Rect r, Color c) {} public static void ProgressBar(Rect r, float v, string t) {}
        public class DisabledScope : IDisposable { public DisabledScope(bool d) {} public void Dispose() {} }
        public class IndentLevelScope : IDisposable { public IndentLevelScope() {} public void Dispose() {} } }
    public static class EditorGUILayout {
        public static Vector2 BeginScrollView(Vector2 p, params GUILayoutOption[] o) => p; public static void EndScrollView() {}
        public static Color ColorField(string l, Color c, params GUILayoutOption[] o) => c;
        public static float FloatField(string l, float v, params GUILayoutOption[] o) => v;
        public static bool Foldout(bool f, string c, bool toggleOnLabelClick, GUIStyle style = null) => f;
        public static Rect GetControlRect(bool hasLabel, float h, params GUILayoutOption[] o) => new Rect();
        public static void HelpBox(string m, MessageType t) {}
        public static int IntField(string l, int v, params GUILayoutOption[] o) => v;
        public static float Slider(string l, float v, float low, float high, params GUILayoutOption[] o) => v;
        public static int IntSlider(int v, int a, int b, params GUILayoutOption[] o) => v;
        public static int IntSlider(string l, int v, int a, int b, params GUILayoutOption[] o) => v;
        public static void LabelField(string l, params GUILayoutOption[] o) {}
        public static void LabelField(string l, GUIStyle s, params GUILayoutOption[] o) {}
        public static void LabelField(string l, string l2, params GUILayoutOption[] o) {}
        public static long LongField(string l, long v, params GUILayoutOption[] o) => v;
        public static Object ObjectField(string l, Object o, Type t, bool scene, params GUILayoutOption[] opts) => o;
        public static Object ObjectField(Object o, Type t, bool scene, params GUILayoutOption[] opts) => o;
        public static int Popup(string l, int i, string[] d, params GUILayoutOption[] o) => i;
        public static int Popup(int i, string[] d, params GUILayoutOption[] o) => i;
        public static string TextArea(string t, params GUILayoutOption[] o) => t;
        public static string TextField(string l, string t, params GUILayoutOption[] o) => t;
        public static string TextField(string t, params GUILayoutOption[] o) => t;
        public static bool Toggle(string l, bool v, params GUILayoutOption[] o) => v;
        public static bool Toggle(bool v, params GUILayoutOption[] o) => v;
        public static bool ToggleLeft(string l, bool v, params GUILayoutOption[] o) => v;
        public class HorizontalScope : IDisposable { public HorizontalScope(params GUILayoutOption[] o) {} public HorizontalScope(GUIStyle s, params GUILayoutOption[] o) {} public void Dispose() {} }
        public class VerticalScope : IDisposable { public VerticalScope(params GUILayoutOption[] o) {} public void Dispose() {} } }
    public static class EditorUtility { public static bool DisplayDialog(string t, string m, string ok, string cancel) => true;
        public static bool DisplayDialog(string t, string m, string ok) => true;
        public static int DisplayDialogComplex(string t, string m, string ok, string cancel, string alt) => 0;
        public static string OpenFolderPanel(string t, string f, string d) => ""; public static void RevealInFinder(string p) {} }
    public static class EditorPrefs { public static string GetString(string k, string d) => d; public static void SetString(string k, string v) {} }
    public enum SettingsScope { User, Project }
    public class SettingsProvider { public SettingsProvider(string path, SettingsScope scopes, System.Collections.Generic.IEnumerable<string> keywords = null) {} public string label; public Action<string> guiHandler; }
    public sealed class SettingsProviderAttribute : Attribute {}
    public struct EditorCurveBinding {}
    public struct ObjectReferenceKeyframe { public float time; public Object value; }
    public static class AnimationUtility { public static EditorCurveBinding[] GetObjectReferenceCurveBindings(AnimationClip c) => null;
        public static ObjectReferenceKeyframe[] GetObjectReferenceCurve(AnimationClip c, EditorCurveBinding b) => null; }
}
