using System;
using System.IO;
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
    /// Each job has its file: the form and the request (AnimateForm), the quote
    /// (AnimateQuote), the daemon's status (AnimateWindow.Daemon) and the job
    /// (AnimateWindow.Job).
    /// </summary>
    public sealed partial class AnimateWindow : CompanionWindow
    {
        readonly AnimateForm form = new AnimateForm();
        readonly AnimateQuote quote = new AnimateQuote();
        readonly ResultPlayer player = new ResultPlayer();
        readonly MovesPanel moves = new MovesPanel();
        readonly BatchPanel batch = new BatchPanel();
        string message = "";

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

        /// <summary>Several pictures (Assets > Animate as a batch...): the first sets the form.</summary>
        public static void OpenBatch(Texture2D[] textures)
        {
            var window = GetWindow<AnimateWindow>("Animate");
            if (textures.Length > 0)
                window.Choose(textures[0]);
            window.batch.Choose(textures);
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
            window.form.Use(row, picture);
            window.DropQuote();
            window.message = picture == null
                ? "Settings used; the picture is not in this project: choose one, then Quote."
                : "Settings used. Press Quote to see the price.";
            window.Show();
            window.Run(window.Refresh);
        }

        void Choose(Texture2D texture)
        {
            form.source = texture;
            DropQuote();
            message = "Press Quote to see the price.";
        }

        /// <summary>Any change of what would be sent makes the shown price stale.</summary>
        void DropQuote() => quote.Drop();

        void OnEnable() => EditorApplication.update += Tick;

        void OnDisable() => EditorApplication.update -= Tick;

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
            var picked = form.DrawPicture(player);
            if (picked != null)
                Choose(picked);
            if (form.Draw(quote.suggestion))
            {
                DropQuote();
                batch.Drop();
            }
            var batchPressed = batch.Draw(busy);
            if (batchPressed != null)
                Run(async () =>
                {
                    if (await EnsureProject())
                        await batchPressed(form);
                    Repaint();
                });
            if (form.nameTaken)
            {
                form.nameTaken = false;
                Run(Quote); // a new name is a new request: its price, before anything is spent
            }

            using (new EditorGUI.DisabledScope(busy || form.source == null))
            using (new EditorGUILayout.HorizontalScope())
            {
                if (GUILayout.Button("Quote"))
                    Run(Quote);
                using (new EditorGUI.DisabledScope(quote.credits < 0 || jobId != ""))
                    if (GUILayout.Button(quote.ButtonLabel()))
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
            using (new EditorGUI.DisabledScope(form.source == null))
            {
                var pressed = moves.Draw(busy);
                if (pressed != null)
                    Run(async () =>
                    {
                        if (await EnsureProject())
                            await pressed(form);
                        Repaint();
                    });
            }
        }

        void Tick()
        {
            player.Tick(this);
            LookForDaemon();
            if (moves.Due())
                Run(PollMoves);
            if (batch.Due())
                Run(PollBatch);
            if (jobId == "" || busy || EditorApplication.timeSinceStartup < nextPoll)
                return;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            busy = true; // set before the request starts, so the next tick never overlaps it
            Run(Poll);
        }
    }
}
