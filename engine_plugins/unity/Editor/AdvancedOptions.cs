using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// The options the chosen model takes, from the daemon's live model listing
    /// (GET /api/v1/models): model, fixed seed, resolution, style preset (a model's
    /// pixel-art style among them), transparency with a key colour, a last frame and
    /// reference pictures picked from the project's assets, and a negative prompt. Each is
    /// shown only when the model supports it, with the model's own choices and bounds;
    /// nothing here names a model or a bound. Only what the user set is sent.
    /// </summary>
    public sealed class AdvancedOptions
    {
        public readonly List<ModelInfo> Models = new List<ModelInfo>();
        public bool Open;
        int model;
        bool fixedSeed;
        long seed;
        int resolution; // 0: the model's default
        int style; // 0: none
        // Shown ticked: a picture with transparent pixels is keyed unasked (the daemon
        // decides it from the picture while the box is untouched); unticked asks for an
        // opaque result. The key colour, left unchosen, is the companion's: far from the
        // picture's hues.
        bool transparent = true;
        bool transparentChosen;
        bool chooseKey;
        Color key = Color.green;
        Texture2D lastFrame;
        readonly List<Texture2D> references = new List<Texture2D>();
        string negativePrompt = "";

        public ModelInfo Chosen => model >= 0 && model < Models.Count ? Models[model] : null;

        /// <summary>The lengths the chosen model makes, shortest first; empty when it lists none.</summary>
        public float[] Lengths()
        {
            var chosen = Chosen;
            return chosen == null ? new float[0] : chosen.durations_seconds.Distinct().OrderBy(l => l).ToArray();
        }

        /// <summary>
        /// The listed length nearest to `seconds` (the shorter of two as near), or `seconds`
        /// when the model lists none: the service refuses any length it does not list.
        /// </summary>
        public float Listed(float seconds) => Nearest(Lengths(), seconds);

        static float Nearest(float[] lengths, float seconds) =>
            lengths.Length == 0 ? seconds : lengths.OrderBy(l => Math.Abs(l - seconds)).First();

        /// <summary>The request's video options, starting with a length the model makes.</summary>
        public Json Video(float seconds) => new Json().Add("duration_seconds", (double)Listed(seconds));

        /// <summary>
        /// Seconds as a choice among the model's lengths within the service's bounds; a free
        /// field held to those bounds when the model lists none.
        /// </summary>
        public float DrawSeconds(float seconds, LimitRange bounds)
        {
            var lengths = Lengths();
            var shown = lengths.Where(l => bounds.Clamp(l) == l).ToArray();
            if (shown.Length == 0)
                shown = lengths; // the daemon's bounds and the listing disagree: the listing decides
            if (shown.Length == 0)
                return bounds.Clamp(Mathf.Max(0.1f, EditorGUILayout.FloatField("Seconds", seconds)));
            var index = Array.IndexOf(shown, Nearest(shown, seconds));
            return shown[EditorGUILayout.Popup("Seconds", index, shown.Select(l => $"{l:0.##} s").ToArray())];
        }

        /// <summary>Reads the listing; true when what would be sent changed (the quote goes).</summary>
        public async Task<bool> Refresh()
        {
            var reply = await DaemonClient.Get("/api/v1/models");
            if (!reply.Ok)
                return false;
            var before = Chosen == null ? "" : JsonUtility.ToJson(Chosen);
            var keep = Chosen == null ? "" : Chosen.id;
            Models.Clear();
            Models.AddRange(JsonUtility.FromJson<ModelList>(reply.Body).data.Where(m => m.id != ""));
            model = Mathf.Max(0, Models.FindIndex(m => m.id == keep));
            Fit();
            return (Chosen == null ? "" : JsonUtility.ToJson(Chosen)) != before;
        }

        /// <summary>Drops what the chosen model does not take.</summary>
        void Fit()
        {
            var chosen = Chosen;
            if (chosen == null)
                return;
            if (resolution > chosen.resolutions.Length)
                resolution = 0;
            if (style > Styles(chosen).Length)
                style = 0;
            if (!chosen.supports_last_frame)
                lastFrame = null;
            if (references.Count > chosen.max_reference_images)
                references.RemoveRange(chosen.max_reference_images,
                    references.Count - chosen.max_reference_images);
            if (!chosen.supports_negative_prompt)
                negativePrompt = "";
        }

        static string[] Styles(ModelInfo chosen) => chosen.style_presets.Where(s => s != "none").ToArray();

        static bool KeysColour(ModelInfo chosen) => chosen.transparency_modes.Contains("alpha_key");

        /// <summary>Draws the rows the chosen model takes; the caller's change check sees edits.</summary>
        public void Draw()
        {
            Open = EditorGUILayout.Foldout(Open, "Advanced", true);
            if (!Open)
                return;
            if (Models.Count == 0)
            {
                EditorGUILayout.HelpBox("The daemon has not listed its models yet.", MessageType.None);
                return;
            }
            using (new EditorGUI.IndentLevelScope())
            {
                model = EditorGUILayout.Popup("Model", model, Models.Select(m => m.Label).ToArray());
                Fit();
                var chosen = Chosen;
                fixedSeed = EditorGUILayout.Toggle("Fixed seed", fixedSeed);
                using (new EditorGUI.DisabledScope(!fixedSeed))
                {
                    seed = EditorGUILayout.LongField("Seed", seed);
                    seed = seed < 0 ? 0 : seed;
                }
                if (chosen.resolutions.Length > 0)
                    resolution = EditorGUILayout.Popup("Resolution", resolution,
                        new[] { "model default" }.Concat(chosen.resolutions).ToArray());
                var styles = Styles(chosen);
                if (styles.Length > 0)
                    style = EditorGUILayout.Popup("Style preset", style, new[] { "none" }.Concat(styles).ToArray());
                if (KeysColour(chosen))
                {
                    var ticked = EditorGUILayout.Toggle("Transparent background", transparent);
                    transparentChosen |= ticked != transparent;
                    transparent = ticked;
                    using (new EditorGUI.DisabledScope(!transparent))
                    {
                        chooseKey = EditorGUILayout.Toggle("Choose key colour", chooseKey);
                        using (new EditorGUI.DisabledScope(!chooseKey))
                            key = EditorGUILayout.ColorField("Key colour", key);
                    }
                }
                if (chosen.supports_last_frame)
                    lastFrame = (Texture2D)EditorGUILayout.ObjectField("Last frame", lastFrame, typeof(Texture2D), false);
                if (chosen.max_reference_images > 0)
                    DrawReferences(chosen.max_reference_images);
                if (chosen.supports_negative_prompt)
                    negativePrompt = EditorGUILayout.TextField("Negative prompt", negativePrompt);
                if (chosen.requires_prompt)
                    EditorGUILayout.HelpBox("This model needs a prompt.", MessageType.None);
            }
        }

        void DrawReferences(int most)
        {
            EditorGUILayout.LabelField($"References ({references.Count} of at most {most})");
            for (var i = 0; i < references.Count; i++)
            {
                using (new EditorGUILayout.HorizontalScope())
                {
                    references[i] = (Texture2D)EditorGUILayout.ObjectField(references[i], typeof(Texture2D), false);
                    if (GUILayout.Button("-", GUILayout.Width(22)))
                    {
                        references.RemoveAt(i);
                        GUIUtility.ExitGUI();
                    }
                }
            }
            using (new EditorGUI.DisabledScope(references.Count >= most))
                if (GUILayout.Button("Add reference"))
                    references.Add(null);
        }

        /// <summary>Adds what the user set and the model takes to the request.</summary>
        public void AddTo(Json body, Json video)
        {
            var chosen = Chosen;
            if (chosen == null)
                return;
            video.Add("model", chosen.id);
            if (fixedSeed)
                video.Add("seed", seed);
            if (resolution > 0 && resolution <= chosen.resolutions.Length)
                video.Add("resolution", chosen.resolutions[resolution - 1]);
            var styles = Styles(chosen);
            if (style > 0 && style <= styles.Length)
                video.Add("style_preset", styles[style - 1]);
            if (KeysColour(chosen) && !transparent)
                video.Add("transparency", new Json().Add("mode", "standard")); // opaque, asked for
            else if (KeysColour(chosen) && (transparentChosen || chooseKey))
            {
                var transparency = new Json().Add("mode", "alpha_key");
                if (chooseKey)
                    transparency.Add("key_color", "#" + ColorUtility.ToHtmlStringRGB(key))
                        .Add("key_selection", "manual");
                video.Add("transparency", transparency);
            }
            if (chosen.supports_last_frame && lastFrame != null)
                body.Add("last_frame_path", AssetDatabase.GetAssetPath(lastFrame));
            var picked = references.Where(r => r != null).Select(r => AssetDatabase.GetAssetPath(r)).ToArray();
            if (picked.Length > 0)
                body.Add("reference_paths", picked.Take(chosen.max_reference_images));
            if (chosen.supports_negative_prompt && negativePrompt.Trim() != "")
                body.Add("negative_prompt", negativePrompt.Trim());
        }

        /// <summary>A generation's model and seed, as "use these settings" would set them.</summary>
        public void Use(string modelId, long fixedTo, string negative)
        {
            negativePrompt = negative ?? "";
            var index = Models.FindIndex(m => m.id == modelId);
            if (index >= 0)
                model = index;
            if (fixedTo >= 0)
            {
                fixedSeed = true;
                seed = fixedTo;
            }
            Fit();
        }
    }
}
