using System.Collections.Generic;
using System.IO;
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
    /// </summary>
    public sealed class AnimateWindow : EditorWindow
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
        string jobId = "";
        float progress;
        bool busy;
        bool awaitingApproval;
        double nextPoll;

        [MenuItem("Window/Companion/Animate")]
        static void OpenEmpty() => Open(null);

        public static void Open(Texture2D texture)
        {
            var window = GetWindow<AnimateWindow>("Animate");
            if (texture != null)
                window.Choose(texture);
            window.Show();
            _ = window.Refresh();
        }

        void Choose(Texture2D texture)
        {
            source = texture;
            quotedCredits = -1;
            message = "Press Quote to see the price.";
        }

        void OnEnable() => EditorApplication.update += Tick;

        void OnDisable() => EditorApplication.update -= Tick;

        static string ProjectRoot() => Path.GetDirectoryName(Application.dataPath);

        AnimateBody Body()
        {
            var chosen = new List<string> { "spritesheet", "spritesheet_json" };
            foreach (var format in OptionalFormats)
                if (formats.TryGetValue(format, out var on) && on)
                    chosen.Add(format);
            return new AnimateBody
            {
                project_root = ProjectRoot(),
                image_path = AssetDatabase.GetAssetPath(source),
                prompt = prompt.Trim(),
                // A one-click animation takes a frame count over the video's duration.
                video = new VideoBody { duration_seconds = seconds },
                export = new ExportBody
                {
                    frame_count = Mathf.Clamp(Mathf.RoundToInt(fps * seconds), 1, 240),
                    output_width = width,
                    output_height = height,
                    output_formats = chosen.ToArray(),
                },
            };
        }

        void OnGUI()
        {
            using (new EditorGUILayout.HorizontalScope())
            {
                EditorGUILayout.LabelField(status, EditorStyles.wordWrappedLabel);
                if (GUILayout.Button("Refresh", GUILayout.Width(70)))
                    _ = Refresh();
            }
            EditorGUI.BeginChangeCheck();
            var picked = (Texture2D)EditorGUILayout.ObjectField("Image", source, typeof(Texture2D), false);
            if (EditorGUI.EndChangeCheck())
                Choose(picked);
            EditorGUILayout.LabelField("Prompt");
            prompt = EditorGUILayout.TextArea(prompt, GUILayout.MinHeight(48));
            EditorGUILayout.LabelField("Formats (spritesheet + JSON always)");
            foreach (var format in OptionalFormats)
            {
                formats.TryGetValue(format, out var on);
                formats[format] = EditorGUILayout.ToggleLeft(format, on);
            }
            width = Mathf.Clamp(EditorGUILayout.IntField("Width", width), 64, 2048);
            height = Mathf.Clamp(EditorGUILayout.IntField("Height", height), 64, 2048);
            fps = Mathf.Clamp(EditorGUILayout.FloatField("FPS", fps), 1f, 60f);
            seconds = Mathf.Clamp(EditorGUILayout.FloatField("Seconds", seconds), 1f, 10f);

            using (new EditorGUI.DisabledScope(busy || source == null))
            using (new EditorGUILayout.HorizontalScope())
            {
                if (GUILayout.Button("Quote"))
                    _ = Quote();
                using (new EditorGUI.DisabledScope(quotedCredits < 0 || jobId != ""))
                    if (GUILayout.Button(quotedCredits < 0 ? "Animate" : $"Animate ({quotedCredits} credits)"))
                        _ = Animate();
            }
            using (new EditorGUILayout.HorizontalScope())
            {
                using (new EditorGUI.DisabledScope(jobId == ""))
                    if (GUILayout.Button("Cancel"))
                        _ = Cancel();
                if (awaitingApproval && GUILayout.Button("Approve"))
                    _ = Approve();
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
                message = reply.Message;
            }
            else
            {
                var parsed = JsonUtility.FromJson<StatusReply>(reply.Body);
                var mode = parsed.mode == "sandbox" ? "Sandbox (no credits are spent)" : "Live";
                var balance = parsed.balance >= 0 ? parsed.balance.ToString() : "?";
                status = $"{mode} · balance {balance} credits";
            }
            Repaint();
        }

        /// <summary>Registers this project once; an existing registration is kept.</summary>
        async Task<bool> EnsureProject()
        {
            var listed = await DaemonClient.Get("/api/v1/projects");
            if (!listed.Ok)
            {
                message = listed.Message;
                return false;
            }
            var root = Path.GetFullPath(ProjectRoot()).TrimEnd('/', '\\');
            foreach (var project in JsonUtility.FromJson<ProjectList>(listed.Body).data)
                if (Path.GetFullPath(project.root).TrimEnd('/', '\\') == root)
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
                var reply = await DaemonClient.Post("/api/v1/quote", Body());
                if (!reply.Ok)
                {
                    message = reply.Message;
                    return;
                }
                quotedCredits = JsonUtility.FromJson<QuoteReply>(reply.Body).credits;
                message = $"This will cost {quotedCredits} credits. Press Animate to go ahead.";
            }
            finally
            {
                busy = false;
                Repaint();
            }
        }

        async Task Animate()
        {
            busy = true;
            try
            {
                var reply = await DaemonClient.Post("/api/v1/animate", Body());
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

        void Tick()
        {
            if (jobId == "" || busy || EditorApplication.timeSinceStartup < nextPoll)
                return;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            _ = Poll();
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
            quotedCredits = -1;
            if (job.state != "done")
            {
                message = $"The job {job.state}: {job.error}";
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
            var clip = AssetDatabase.LoadAssetAtPath<AnimationClip>(job.resource);
            if (clip != null)
            {
                Selection.activeObject = clip;
                EditorGUIUtility.PingObject(clip);
            }
            message = $"Done: {job.resource}. Drag the clip onto a SpriteRenderer to play it.";
            _ = Refresh();
        }
    }
}
