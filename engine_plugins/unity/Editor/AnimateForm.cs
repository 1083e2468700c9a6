using System.Collections.Generic;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// The Animate window's form: the picture, prompt, formats, size, fps, length, frame
    /// count, name and the model's options, drawn bounded by the limits the daemon reports,
    /// and the request built from them exactly as it is priced and sent.
    /// </summary>
    public sealed class AnimateForm
    {
        static readonly string[] OptionalFormats = { "unity_pack", "gif", "webm_alpha", "frames_zip" };
        const float PreviewSize = 128f;

        public Texture2D source;
        public string prompt = "";
        readonly Dictionary<string, bool> formats = new Dictionary<string, bool> { ["unity_pack"] = true };
        public int width = 256;
        public int height = 256;
        // Whether the user set the size (or a generation's settings did); until then the
        // fields show the picture's own size and the daemon decides it (nothing is sent).
        public bool sizeChosen;
        public float fps = 12f;
        public float seconds = 2f;
        public Limits limits = new Limits();
        public bool limitsReported;
        public readonly AdvancedOptions advanced = new AdvancedOptions();
        // A frame count set by hand instead of fps x seconds.
        public bool setFrames;
        public int frameCount = 12;
        // The animation's name (empty: the picture's).
        public string animationName = "";
        // The user took the daemon's free name: the window quotes it at once.
        public bool nameTaken;
        // Pixel art: once the job is done its kept video is cut again (free) with
        // nearest-neighbour scaling into the same name.
        public bool pixelArt;
        // The local finishing (never sent to the service: changed after a generation, it
        // is a free re-cut of its kept clip). Until the user sets them, In place and Trim
        // show what the daemon does for the formats (on with the Unity pack) and are not
        // sent; once set, they are sent as set.
        public bool inPlace = true;
        public bool loop;
        public bool trim = true;
        public bool finishingChosen;

        /// <summary>The finishing as the user set it (sent from now on).</summary>
        public void ChooseFinishing(bool holdInPlace, bool seamlessLoop, bool trimFrames)
        {
            finishingChosen |= holdInPlace != inPlace || trimFrames != trim;
            inPlace = holdInPlace;
            loop = seamlessLoop;
            trim = trimFrames;
        }

        /// <summary>
        /// The request as it will be sent (with the quote id when one is given): only what
        /// the user set goes, so an option left alone is the daemon's default. Without the
        /// prompt (and name) for a character's set, whose moves each have theirs.
        /// </summary>
        public Json Body(string quote = "", bool single = true)
        {
            var body = new Json()
                .Add("project_root", CompanionWindow.ProjectRoot())
                .Add("image_path", AssetDatabase.GetAssetPath(source));
            if (single)
                body.Add("prompt", prompt.Trim());
            // A one-click animation takes a frame count over the video's duration, one of
            // the lengths the model makes.
            var video = advanced.Video(seconds);
            advanced.AddTo(body, video);
            body.Add("video", video).Add("export", Export());
            if (finishingChosen)
                body.Add("in_place", inPlace).Add("trim", trim);
            if (loop)
                body.Add("loop", true);
            if (single && animationName.Trim() != "")
                body.Add("name", animationName.Trim());
            if (quote != "")
                body.Add("quote_id", quote);
            return body;
        }

        /// <summary>The export the request asks for, at the model's length nearest the form's.</summary>
        public Json Export()
        {
            var length = advanced.Listed(seconds);
            var chosen = new List<string> { "spritesheet", "spritesheet_json" };
            foreach (var format in OptionalFormats)
                if (formats.TryGetValue(format, out var on) && on)
                    chosen.Add(format);
            var export = new Json()
                .Add("frame_count", setFrames ? frameCount : Frames(fps, length, limits, out _));
            if (sizeChosen)
                export.Add("output_width", width).Add("output_height", height);
            return export.Add("output_formats", chosen);
        }

        /// <summary>What Frames says about the form's fps and seconds ("" when nothing is cut).</summary>
        public string CutNote()
        {
            Frames(fps, seconds, limits, out var note);
            return note;
        }

        /// <summary>
        /// fps x seconds frames, cut to the daemon's maximum; `note` says so when it is cut
        /// (60 fps for 10 s would otherwise play at a quarter of the speed asked for, silently).
        /// </summary>
        public static int Frames(float fps, float seconds, Limits limits, out string note)
        {
            var wanted = Mathf.Max(1, Mathf.RoundToInt(fps * seconds));
            note = "";
            if (!limits.frame_count.HasMax || wanted <= limits.frame_count.max)
                return wanted;
            var most = Mathf.FloorToInt(limits.frame_count.max);
            note = $"{fps:0.##} fps for {seconds:0.##} s is {wanted} frames, but the service " +
                $"makes at most {most}: the animation will have {most} frames and play at " +
                $"{most / seconds:0.##} fps. Lower the fps or the length to keep every frame.";
            return most;
        }

        /// <summary>The picture field with the picture and the latest result beside it; the
        /// picture chosen there, or null when it did not change.</summary>
        public Texture2D DrawPicture(ResultPlayer player)
        {
            EditorGUI.BeginChangeCheck();
            var picked = (Texture2D)EditorGUILayout.ObjectField("Image", source, typeof(Texture2D), false);
            var changed = EditorGUI.EndChangeCheck();
            using (new EditorGUILayout.HorizontalScope())
            {
                var box = GUILayoutUtility.GetRect(PreviewSize, PreviewSize, GUILayout.Width(PreviewSize));
                if (source != null)
                    GUI.DrawTexture(box, source, ScaleMode.ScaleToFit);
                player.Draw(GUILayoutUtility.GetRect(PreviewSize, PreviewSize, GUILayout.Width(PreviewSize)));
            }
            return changed ? picked : null;
        }

        /// <summary>
        /// The rest of the form; true when anything priced changed (the shown price is then
        /// stale). A free name the daemon offered is a button that takes it.
        /// </summary>
        public bool Draw(string suggestion)
        {
            var stale = false;
            EditorGUI.BeginChangeCheck();
            EditorGUILayout.LabelField("Prompt");
            prompt = EditorGUILayout.TextArea(prompt, GUILayout.MinHeight(48));
            EditorGUILayout.LabelField("Formats (spritesheet + JSON always)");
            foreach (var format in OptionalFormats)
            {
                formats.TryGetValue(format, out var on);
                formats[format] = EditorGUILayout.ToggleLeft(format, on);
            }
            // Bounded by what the daemon says the service takes; unknown bounds are left to
            // the daemon, which names the field it refuses.
            if (!sizeChosen && source != null)
            {
                width = source.width;
                height = source.height;
            }
            var typedWidth = EditorGUILayout.IntField("Width", width);
            var typedHeight = EditorGUILayout.IntField("Height", height);
            sizeChosen |= typedWidth != width || typedHeight != height;
            width = Mathf.RoundToInt(limits.size.Clamp(Mathf.Max(1, typedWidth)));
            height = Mathf.RoundToInt(limits.size.Clamp(Mathf.Max(1, typedHeight)));
            fps = limits.fps.Clamp(Mathf.Max(0.1f, EditorGUILayout.FloatField("FPS", fps)));
            // One of the chosen model's lengths; a model change that moves it drops the quote.
            var was = seconds;
            seconds = advanced.DrawSeconds(seconds, limits.seconds);
            stale |= seconds != was;
            setFrames = EditorGUILayout.Toggle("Set frame count", setFrames);
            if (setFrames)
                frameCount = Mathf.RoundToInt(limits.frame_count.Clamp(
                    Mathf.Max(1, EditorGUILayout.IntField("Frames", frameCount))));
            animationName = EditorGUILayout.TextField("Name (empty: the picture's)", animationName);
            if (suggestion != "" && suggestion != animationName &&
                GUILayout.Button($"Use name {suggestion}"))
            {
                animationName = suggestion;
                stale = true;
                nameTaken = true;
            }
            if (!finishingChosen)
                inPlace = trim = formats.TryGetValue("unity_pack", out var pack) && pack;
            ChooseFinishing(
                EditorGUILayout.Toggle("In place (shake and drift taken out)", inPlace),
                EditorGUILayout.Toggle("Loop (the seamless span)", loop),
                EditorGUILayout.Toggle("Trim sheet frames (positions kept)", trim));
            advanced.Draw();
            stale |= EditorGUI.EndChangeCheck();
            // Not part of what is priced: the cut after the job is local and free.
            pixelArt = EditorGUILayout.Toggle("Pixel art (a free re-cut once done)", pixelArt);
            Frames(fps, seconds, limits, out var cut);
            if (cut != "" && !setFrames)
                EditorGUILayout.HelpBox(cut, MessageType.Warning);
            if (!limitsReported)
                EditorGUILayout.HelpBox(
                    "The daemon has not reported the service's limits (not reached yet, or an " +
                    "older companion): size, fps and length are checked when you press Quote.",
                    MessageType.None);
            return stale;
        }

        /// <summary>Fills the form with a generation's settings; its picture when given.</summary>
        public void Use(GenerationReply row, Texture2D picture)
        {
            var settings = row.settings;
            if (picture != null)
                source = picture;
            prompt = settings.prompt;
            width = settings.export.output_width;
            height = settings.export.output_height;
            sizeChosen = true;
            seconds = settings.video.duration_seconds;
            setFrames = settings.export.frame_count > 0;
            frameCount = Mathf.Max(1, settings.export.frame_count);
            advanced.Use(row.model, row.seed, settings.negative_prompt);
        }
    }
}
