using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// The Animate window: daemon status and balance, prompt, formats, size and fps, a
    /// quote before anything is spent, progress with Cancel (and Approve when a job is over
    /// budget). When the job is done the daemon has written the sprites, their metas and
    /// the clip under Assets/; the window refreshes the AssetDatabase and selects the clip.
    /// Size, fps, length and frame count are bounded by the limits the daemon reports, and
    /// the window says when a frame count is cut to the service's maximum. Every request
    /// runs through CompanionWindow.Run, which shows any failure in the window.
    /// </summary>
    public sealed class AnimateWindow : CompanionWindow
    {
        static readonly string[] OptionalFormats = { "unity_pack", "gif", "webm_alpha", "frames_zip" };
        const double PollSeconds = 0.5;

        Texture2D source;
        string prompt = "";
        readonly Dictionary<string, bool> formats = new Dictionary<string, bool> { ["unity_pack"] = true };
        int width = 256;
        int height = 256;
        float fps = 12f;
        float seconds = 2f;
        string status = "Daemon: not checked yet";
        string message = "";
        int quotedCredits = -1;
        // The daemon's id for the quote and the request it priced (as JSON): Animate sends
        // exactly that request, or quotes again.
        string quoteId = "";
        string quotedBody = "";
        string jobId = "";
        float progress;
        bool awaitingApproval;
        double nextPoll;
        Limits limits = new Limits();
        bool limitsReported;
        bool down;
        bool starting;
        double nextReconnect;
        double startDeadline;
        readonly ResultPlayer player = new ResultPlayer();
        readonly AdvancedOptions advanced = new AdvancedOptions();
        // A frame count set by hand instead of fps x seconds.
        bool setFrames;
        int frameCount = 12;
        // The animation's name (empty: the picture's), and a free one the daemon offered.
        string animationName = "";
        string suggestion = "";
        // The user agreed, for this quote, that their changed files are moved aside.
        bool replaceAgreed;
        // Pixel art: once the job is done its kept video is cut again (free) with
        // nearest-neighbour scaling into the same name. The export it uses, while it waits.
        bool pixelArt;
        Json pixelExport;
        const float PreviewSize = 128f;

        [MenuItem("Window/Companion/Animate")]
        static void OpenEmpty() => Open(null);

        public static void Open(Texture2D texture)
        {
            var window = GetWindow<AnimateWindow>("Animate");
            if (texture != null)
                window.Choose(texture);
            window.Show();
            window.Run(window.Refresh);
        }

        protected override void Say(string failure) => message = failure;

        /// <summary>Fills the form with a generation's settings (Generations > Use these settings).</summary>
        public static void UseSettings(GenerationReply row)
        {
            var window = GetWindow<AnimateWindow>("Animate");
            var settings = row.settings;
            // The daemon keeps the picture's full path; the project's pictures load by theirs.
            var full = settings.image == "" ? "" : Path.GetFullPath(settings.image).Replace('\\', '/');
            var root = Path.GetFullPath(ProjectRoot()).Replace('\\', '/').TrimEnd('/') + "/";
            var picture = full.StartsWith(root, StringComparison.OrdinalIgnoreCase)
                ? AssetDatabase.LoadAssetAtPath<Texture2D>(full.Substring(root.Length))
                : null;
            if (picture != null)
                window.source = picture;
            window.prompt = settings.prompt;
            window.width = settings.export.output_width;
            window.height = settings.export.output_height;
            window.seconds = settings.video.duration_seconds;
            window.setFrames = settings.export.frame_count > 0;
            window.frameCount = Mathf.Max(1, settings.export.frame_count);
            window.advanced.Use(row.model, row.seed, settings.negative_prompt);
            window.DropQuote();
            window.message = picture == null
                ? "Settings used; the picture is not in this project: choose one, then Quote."
                : "Settings used. Press Quote to see the price.";
            window.Show();
            window.Run(window.Refresh);
        }

        void Choose(Texture2D texture)
        {
            source = texture;
            DropQuote();
            message = "Press Quote to see the price.";
        }

        /// <summary>Any change of what would be sent makes the shown price stale.</summary>
        void DropQuote()
        {
            quotedCredits = -1;
            quoteId = "";
            quotedBody = "";
            replaceAgreed = false;
        }

        /// <summary>The job's end in words; a null or empty error adds nothing.</summary>
        public static string Ended(string state, string error) =>
            string.IsNullOrEmpty(error) ? $"The job {state}." : $"The job {state}: {error}";

        void OnEnable() => EditorApplication.update += Tick;

        void OnDisable() => EditorApplication.update -= Tick;

        /// <summary>
        /// The request as it will be sent (with the quote id when one is given): only what
        /// the user set goes, so an option left alone is the daemon's default.
        /// </summary>
        Json Body(string quote = "")
        {
            var body = new Json()
                .Add("project_root", ProjectRoot())
                .Add("image_path", AssetDatabase.GetAssetPath(source))
                .Add("prompt", prompt.Trim());
            // A one-click animation takes a frame count over the video's duration, one of
            // the lengths the model makes.
            var video = advanced.Video(seconds);
            advanced.AddTo(body, video);
            body.Add("video", video).Add("export", Export(advanced.Listed(seconds)));
            if (animationName.Trim() != "")
                body.Add("name", animationName.Trim());
            if (quote != "")
                body.Add("quote_id", quote);
            return body;
        }

        Json Export(float length)
        {
            var chosen = new List<string> { "spritesheet", "spritesheet_json" };
            foreach (var format in OptionalFormats)
                if (formats.TryGetValue(format, out var on) && on)
                    chosen.Add(format);
            return new Json()
                .Add("frame_count", setFrames ? frameCount : Frames(fps, length, limits, out _))
                .Add("output_width", width)
                .Add("output_height", height)
                .Add("output_formats", chosen);
        }

        /// <summary>What Frames says about the form's fps and seconds ("" when nothing is cut).</summary>
        string CutNote()
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

        void OnGUI()
        {
            using (new EditorGUILayout.HorizontalScope())
            {
                EditorGUILayout.LabelField(status, EditorStyles.wordWrappedLabel);
                if (down && !starting && GUILayout.Button("Start daemon", GUILayout.Width(100)))
                    StartDaemon();
                if (GUILayout.Button("Refresh", GUILayout.Width(70)))
                    Run(Refresh);
            }
            EditorGUI.BeginChangeCheck();
            var picked = (Texture2D)EditorGUILayout.ObjectField("Image", source, typeof(Texture2D), false);
            if (EditorGUI.EndChangeCheck())
                Choose(picked);
            using (new EditorGUILayout.HorizontalScope())
            {
                var box = GUILayoutUtility.GetRect(PreviewSize, PreviewSize, GUILayout.Width(PreviewSize));
                if (source != null)
                    GUI.DrawTexture(box, source, ScaleMode.ScaleToFit);
                player.Draw(GUILayoutUtility.GetRect(PreviewSize, PreviewSize, GUILayout.Width(PreviewSize)));
            }
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
            width = Mathf.RoundToInt(limits.size.Clamp(Mathf.Max(1, EditorGUILayout.IntField("Width", width))));
            height = Mathf.RoundToInt(limits.size.Clamp(Mathf.Max(1, EditorGUILayout.IntField("Height", height))));
            fps = limits.fps.Clamp(Mathf.Max(0.1f, EditorGUILayout.FloatField("FPS", fps)));
            // One of the chosen model's lengths; a model change that moves it drops the quote.
            var was = seconds;
            seconds = advanced.DrawSeconds(seconds, limits.seconds);
            if (seconds != was)
                DropQuote();
            setFrames = EditorGUILayout.Toggle("Set frame count", setFrames);
            if (setFrames)
                frameCount = Mathf.RoundToInt(limits.frame_count.Clamp(
                    Mathf.Max(1, EditorGUILayout.IntField("Frames", frameCount))));
            animationName = EditorGUILayout.TextField("Name (empty: the picture's)", animationName);
            if (suggestion != "" && suggestion != animationName &&
                GUILayout.Button($"Use the free name {suggestion}"))
            {
                animationName = suggestion;
                DropQuote();
            }
            advanced.Draw();
            if (EditorGUI.EndChangeCheck())
                DropQuote();
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

            using (new EditorGUI.DisabledScope(busy || source == null))
            using (new EditorGUILayout.HorizontalScope())
            {
                if (GUILayout.Button("Quote"))
                    Run(Quote);
                using (new EditorGUI.DisabledScope(quotedCredits < 0 || jobId != ""))
                    if (GUILayout.Button(quotedCredits < 0 ? "Animate" : $"Animate ({quotedCredits} credits)"))
                        Run(Animate);
            }
            using (new EditorGUILayout.HorizontalScope())
            {
                using (new EditorGUI.DisabledScope(jobId == ""))
                    if (GUILayout.Button("Cancel"))
                        Run(Cancel);
                if (awaitingApproval && GUILayout.Button("Approve"))
                    Run(Approve);
            }
            var bar = EditorGUILayout.GetControlRect(false, 18);
            EditorGUI.ProgressBar(bar, progress, jobId == "" ? "" : $"{progress * 100f:0}%");
            if (message != "")
                EditorGUILayout.HelpBox(message, MessageType.Info);
        }

        async Task Refresh()
        {
            var reply = await DaemonClient.Get("/api/v1/status");
            if (!reply.Ok)
            {
                status = "Daemon: not running";
                message = starting ? $"Starting the daemon ({DaemonStarter.Command} serve)..." : reply.Message;
                down = true;
            }
            else
            {
                var parsed = JsonUtility.FromJson<StatusReply>(reply.Body);
                var mode = parsed.mode == "sandbox" ? "Sandbox (no credits are spent)" : "Live";
                var balance = parsed.balance >= 0 ? parsed.balance.ToString() : "?";
                status = parsed.reachable
                    ? $"{mode} · balance {balance} credits"
                    : $"{mode} · service not answering: work waits for it";
                if (parsed.version != "" && parsed.version != DaemonClient.PluginVersion)
                    status += $"\ncompanion {parsed.version}, this package {DaemonClient.PluginVersion}: "
                        + $"run  companion plugin install unity \"{ProjectRoot()}\"";
                limits = parsed.limits ?? new Limits();
                limitsReported = limits.Known;
                if (await advanced.Refresh())
                    DropQuote(); // the chosen model's options changed under the quote
                if (down && (starting || message == DaemonClient.NotRunning))
                    message = "";
                down = false;
                starting = false;
            }
            Repaint();
        }

        /// <summary>
        /// Registers this project unless the daemon already lists it. The registration names
        /// only the folder and the engine, so even when the daemon's resolved path differs
        /// from ours in a way not normalised here (a symlinked folder), registering again
        /// leaves the project's target, inbox and defaults as they were.
        /// </summary>
        async Task<bool> EnsureProject()
        {
            var listed = await DaemonClient.Get("/api/v1/projects");
            if (!listed.Ok)
            {
                message = listed.Message;
                return false;
            }
            var root = SamePlace(ProjectRoot());
            foreach (var project in JsonUtility.FromJson<ProjectList>(listed.Body).data)
                if (SamePlace(project.root) == root)
                    return true;
            var added = await DaemonClient.Post("/api/v1/projects", new ProjectBody { root = ProjectRoot() });
            if (!added.Ok)
                message = added.Message;
            return added.Ok;
        }

        async Task Quote()
        {
            busy = true;
            try
            {
                if (!await EnsureProject())
                    return;
                var body = Body(); // what is priced is what was on screen when Quote was pressed
                var reply = await DaemonClient.Post("/api/v1/quote", body);
                if (!reply.Ok)
                {
                    message = reply.Message;
                    return;
                }
                var quoted = JsonUtility.FromJson<QuoteReply>(
                    Json.Unset(reply.Body, "balance", "per_job", "per_day"));
                suggestion = quoted.name_suggestion ?? "";
                if (quoted.conflicts.Length > 0 && !AgreeToReplace(quoted.conflicts))
                {
                    // Nothing is replaced unasked: say why and offer the free name.
                    message = "Nothing replaced, nothing spent:\n" +
                        string.Join("\n", quoted.conflicts.Select(c => c.reason)) +
                        (suggestion == "" ? "" : $"\nUse the free name {suggestion} to keep them.");
                    return;
                }
                replaceAgreed = quoted.conflicts.Length > 0;
                quotedCredits = quoted.credits;
                quoteId = quoted.quote_id ?? "";
                quotedBody = body.ToString();
                var cut = CutNote();
                message = $"This will cost {quotedCredits} credits. Press Animate to go ahead.";
                if (quoted.balance >= 0)
                    message += $"\nBalance {quoted.balance} credits";
                if (quoted.budget.per_job >= 0)
                    message += $"; budget {quoted.budget.per_job} a job";
                if (quoted.budget.per_day >= 0)
                    message += $", {quoted.budget.per_day} a day ({quoted.budget.spent_today} spent today)";
                if (replaceAgreed)
                    message += "\nYour changed files will be moved aside (.companion-replaced~), not deleted.";
                if (quoted.budget.over)
                    message += "\nThis is over your budget: the job will wait for your approval.";
                if (!setFrames && cut != "")
                    message += "\n" + cut;
            }
            finally
            {
                busy = false;
                Repaint();
            }
        }

        /// <summary>The install would replace files the user changed: ask, never replace unasked.</summary>
        static bool AgreeToReplace(KeptFile[] conflicts) =>
            EditorUtility.DisplayDialog("Replace your changed files?",
                string.Join("\n", conflicts.Select(c => c.reason)) +
                "\n\nReplace them? Yours are moved to .companion-replaced~ beside them, not deleted.",
                "Replace", "Keep mine");

        async Task Animate()
        {
            busy = true;
            try
            {
                if (quotedCredits < 0 || Body().ToString() != quotedBody)
                {
                    DropQuote();
                    busy = false;
                    await Quote();
                    return;
                }
                // The quote id goes with the body only when the daemon gave one.
                var sent = Body(quoteId);
                if (replaceAgreed)
                    sent.Add("replace", true); // not priced: the quote id still holds
                DropQuote(); // one quote, one job
                pixelExport = pixelArt ? Export(advanced.Listed(seconds)) : null;
                var reply = await DaemonClient.Post("/api/v1/animate", sent);
                if (!reply.Ok)
                {
                    message = reply.Message;
                    return;
                }
                jobId = JsonUtility.FromJson<JobReply>(reply.Body).id;
                progress = 0f;
                message = "Animating...";
                nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            }
            finally
            {
                busy = false;
                Repaint();
            }
        }

        async Task Cancel()
        {
            var reply = await DaemonClient.Post($"/api/v1/jobs/{jobId}/cancel", null);
            message = reply.Ok ? "Cancelling..." : reply.Message;
            Repaint();
        }

        async Task Approve()
        {
            var reply = await DaemonClient.Post($"/api/v1/jobs/{jobId}/approve", null);
            message = reply.Ok ? "Approved; animating..." : reply.Message;
            awaitingApproval = !reply.Ok;
            Repaint();
        }

        /// <summary>Runs the companion command from the preferences; Tick then reconnects.</summary>
        void StartDaemon()
        {
            var problem = DaemonStarter.Start();
            starting = problem == "";
            message = starting ? $"Starting the daemon ({DaemonStarter.Command} serve)..." : problem;
            startDeadline = EditorApplication.timeSinceStartup + DaemonStarter.WaitSeconds;
            Repaint();
        }

        void Tick()
        {
            player.Tick(this);
            // While the daemon is away, look for it every second: the window connects by
            // itself once it runs, started here or in a terminal.
            if (down && !busy && EditorApplication.timeSinceStartup >= nextReconnect)
            {
                nextReconnect = EditorApplication.timeSinceStartup + 1.0;
                if (starting && EditorApplication.timeSinceStartup > startDeadline)
                {
                    starting = false;
                    message = $"The daemon did not answer: run \"{DaemonStarter.Command} serve\" " +
                        "in a terminal to see why.";
                }
                Run(Refresh);
            }
            if (jobId == "" || busy || EditorApplication.timeSinceStartup < nextPoll)
                return;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            busy = true; // set before the request starts, so the next tick never overlaps it
            Run(Poll);
        }

        async Task Poll()
        {
            busy = true;
            try
            {
                var reply = await DaemonClient.Get($"/api/v1/jobs/{jobId}");
                if (!reply.Ok)
                {
                    message = reply.Message;
                    return;
                }
                var job = JsonUtility.FromJson<JobReply>(reply.Body);
                progress = job.progress;
                awaitingApproval = job.state == "awaiting_approval";
                message = awaitingApproval
                    ? "This job is over your budget. Press Approve to spend the credits."
                    : $"Animating... ({job.state})";
                if (job.Finished)
                    Finish(job);
            }
            finally
            {
                busy = false;
                Repaint();
            }
        }

        void Finish(JobReply job)
        {
            jobId = "";
            DropQuote();
            if (job.state != "done")
            {
                message = Ended(job.state, job.error);
                pixelExport = null;
                return;
            }
            if (pixelExport != null && !string.IsNullOrEmpty(job.resource))
            {
                var export = pixelExport;
                pixelExport = null;
                Run(() => CutAsPixelArt(job, export));
                return;
            }
            // The daemon wrote each .meta with its asset; one refresh imports them together.
            AssetDatabase.Refresh(ImportAssetOptions.ForceSynchronousImport);
            if (string.IsNullOrEmpty(job.resource))
            {
                // A project registered for another engine gets the pack as a file: import it.
                foreach (var output in job.outputs)
                    if (output.format == "unity_pack" && File.Exists(output.installed_path))
                        AssetDatabase.ImportPackage(output.installed_path, false);
                message = $"Done; the files are in {job.target_dir}";
                return;
            }
            player.Play(job.resource);
            var clip = AssetDatabase.LoadAssetAtPath<AnimationClip>(job.resource);
            if (clip != null)
            {
                Selection.activeObject = clip;
                EditorGUIUtility.PingObject(clip);
            }
            message = $"Done: {job.resource}. Drag the clip onto a SpriteRenderer to play it.";
            Run(Refresh);
        }

        /// <summary>The done job's kept video cut again as pixel art; polled like any job.</summary>
        async Task CutAsPixelArt(JobReply job, Json export)
        {
            var id = job.id;
            message = "Done; cutting it as pixel art from the kept video (free)...";
            var reply = await DaemonClient.Post($"/api/v1/generations/{id}/recut",
                new Json().Add("export", export).Add("pixel_art", true));
            if (!reply.Ok)
            {
                // The animation itself is there: show it, and say the cut did not start.
                Finish(job);
                message += $"\nThe pixel-art cut did not start: {reply.Message}";
                return;
            }
            jobId = JsonUtility.FromJson<JobReply>(reply.Body).id;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
        }
    }
}
