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
    /// This project's generations, newest first, as the daemon keeps them (so they are
    /// there after the editor or the daemon restarts): when, state, name, credits, model,
    /// seed and prompt where the daemon gives them. The one picked plays, and can be made
    /// again with a new seed or as N variations (each priced first: the first press
    /// quotes, the second spends), re-cut for free (RecutPanel), imported again here or
    /// into another folder, shown in Explorer/Finder, or have its files removed (asked
    /// first; only the companion's own unchanged files go). One paid for whose files never
    /// went in reads "paid · not installed" and offers Install (free) instead of re-cut and
    /// import, which the daemon refuses until its files are in. A daemon without
    /// GET /api/v1/generations gives its job list, narrowed to this project's folder.
    /// </summary>
    public sealed class GenerationsWindow : CompanionWindow
    {
        const double PollSeconds = 1.0;
        /// <summary>The state of a job paid for whose files never went in: unlike a plain
        /// "failed" (which cost nothing) its credits are spent, and Install (free) puts
        /// its files in.</summary>
        public const string PaidNotInstalled = "paid · not installed";

        static readonly GUIContent InstallButton = new GUIContent("Install (free)",
            "Paid for already: installs its outputs without paying again");

        readonly List<GenerationReply> rows = new List<GenerationReply>();
        readonly Dictionary<string, string> states = new Dictionary<string, string>();
        readonly ResultPlayer player = new ResultPlayer();
        readonly RecutPanel recut = new RecutPanel();
        string summary = "Not listed yet";
        string message = "";
        string picked = "";
        Vector2 scroll;
        double nextPoll;
        // What a first press priced: the second press spends exactly that.
        AgainReply againQuote;
        VariationsReply variationsQuote;
        int variations = 2;
        int fewest = 2;
        int most = 2;
        // The job whose free install runs: what came of it is said when it ends.
        string installing = "";

        [MenuItem("Window/Companion/Generations")]
        static void Open()
        {
            var window = GetWindow<GenerationsWindow>("Generations");
            window.Show();
            window.Run(window.Refresh);
        }

        protected override void Say(string failure) => message = failure;

        void OnEnable() => EditorApplication.update += Tick;

        void OnDisable() => EditorApplication.update -= Tick;

        GenerationReply Picked() => rows.FirstOrDefault(r => r.id == picked);

        void Pick(GenerationReply row)
        {
            picked = row.id;
            DropQuotes();
            player.Play(row.state == "done" ? row.resource : "");
        }

        void DropQuotes()
        {
            againQuote = null;
            variationsQuote = null;
        }

        async Task Refresh()
        {
            busy = true;
            try
            {
                if (most <= fewest)
                    await VariationBounds();
                var root = ProjectRoot();
                var reply = await DaemonClient.Get(
                    "/api/v1/generations?project=" + Uri.EscapeDataString(root));
                GenerationReply[] found;
                if (reply.Ok)
                    found = JsonUtility.FromJson<GenerationList>(reply.Body).data;
                else if (reply.Status == 404)
                {
                    var jobs = await DaemonClient.Get("/api/v1/jobs");
                    if (!jobs.Ok)
                    {
                        summary = jobs.Message;
                        return;
                    }
                    var inside = SamePlace(root) + "/";
                    found = JsonUtility.FromJson<GenerationList>(jobs.Body).data
                        .Where(g => g.target_dir != "" && SamePlace(g.target_dir).StartsWith(inside))
                        .ToArray();
                }
                else
                {
                    summary = reply.Message;
                    return;
                }
                rows.Clear();
                rows.AddRange(Nested(found.OrderByDescending(g => g.created_at, StringComparer.Ordinal)));
                summary = $"{rows.Count} generations of this project, newest first";
                Landed();
            }
            finally
            {
                busy = false;
                Repaint();
            }
        }

        /// <summary>A job that finished since the last listing: Unity imports what it wrote.</summary>
        void Landed()
        {
            var imported = false;
            foreach (var row in rows)
            {
                if (states.TryGetValue(row.id, out var before) && before != row.state && row.state == "done"
                    && !imported)
                {
                    AssetDatabase.Refresh(ImportAssetOptions.ForceSynchronousImport);
                    imported = true;
                }
                states[row.id] = row.state;
            }
            var install = rows.FirstOrDefault(r => r.id == installing);
            if (install != null && install.Finished)
            {
                message = InstallOutcome(install);
                installing = "";
            }
            var shown = Picked();
            if (imported && shown != null)
                player.Play(shown.state == "done" ? shown.resource : "");
        }

        /// <summary>How many variations the daemon takes at once, from its API description.</summary>
        async Task VariationBounds()
        {
            var reply = await DaemonClient.Get("/api/v1/openapi.json");
            if (!reply.Ok)
                return;
            var count = JsonUtility.FromJson<ApiDescription>(reply.Body).components.schemas.VariationsIn
                .properties.count;
            if (count.maximum > 0)
            {
                fewest = Math.Max(1, count.minimum);
                most = count.maximum;
                variations = Mathf.Clamp(variations, fewest, most);
            }
        }

        void Tick()
        {
            player.Tick(this);
            // While a job of this project runs, the list follows it.
            if (busy || !rows.Any(r => !r.Finished) || EditorApplication.timeSinceStartup < nextPoll)
                return;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            busy = true;
            Run(Refresh);
        }

        /// <summary>
        /// Generations newest first, each re-cut (or import) right under the generation it
        /// was cut from (the selection is kept by id, so it stays on the one acted on).
        /// </summary>
        static List<GenerationReply> Nested(IEnumerable<GenerationReply> newest)
        {
            var all = newest.ToList();
            var ids = new HashSet<string>(all.Select(g => g.id));
            var ordered = new List<GenerationReply>();
            foreach (var row in all.Where(g => SourceId(g, ids) == ""))
            {
                ordered.Add(row);
                ordered.AddRange(all.Where(g => SourceId(g, ids) == row.id));
            }
            return ordered;
        }

        /// <summary>The listed generation a re-cut was cut from, or "".</summary>
        static string SourceId(GenerationReply row, HashSet<string> listed) =>
            row.kind == "recut" && !string.IsNullOrEmpty(row.parent) && listed.Contains(row.parent)
                ? row.parent
                : "";

        /// <summary>How a row is named in the list: a re-cut names its source.</summary>
        string ListedName(GenerationReply row)
        {
            var source = row.kind == "recut" && !string.IsNullOrEmpty(row.parent)
                ? rows.FirstOrDefault(g => g.id == row.parent)
                : null;
            return source == null ? row.name : $"    {row.name} · re-cut of {source.name}";
        }

        void OnGUI()
        {
            using (new EditorGUILayout.HorizontalScope())
            {
                EditorGUILayout.LabelField(summary);
                using (new EditorGUI.DisabledScope(busy))
                    if (GUILayout.Button("Refresh", GUILayout.Width(70)))
                        Run(Refresh);
            }
            scroll = EditorGUILayout.BeginScrollView(scroll, GUILayout.MinHeight(120));
            foreach (var row in rows)
                DrawRow(row);
            EditorGUILayout.EndScrollView();
            var chosen = Picked();
            if (chosen != null)
                DrawPicked(chosen);
            if (message != "")
                EditorGUILayout.HelpBox(message, MessageType.Info);
        }

        void DrawRow(GenerationReply row)
        {
            using (new EditorGUILayout.HorizontalScope(EditorStyles.helpBox))
            {
                if (GUILayout.Toggle(row.id == picked, "", GUILayout.Width(16)) && row.id != picked)
                    Pick(row);
                var when = row.created_at.Replace('T', ' ');
                var cost = row.cost_credits >= 0 ? row.cost_credits : row.quote;
                var seed = row.seed >= 0 ? $" / {row.seed}" : "";
                // The whole name, wrapped when long, never cut.
                EditorGUILayout.LabelField(
                    $"{when.Substring(0, Math.Min(19, when.Length))}  {StateText(row)}  " +
                    $"{ListedName(row)}  {cost} credits  {row.model}{seed}  {row.prompt}",
                    EditorStyles.wordWrappedLabel);
                using (new EditorGUI.DisabledScope(string.IsNullOrEmpty(row.resource)))
                    if (GUILayout.Button("Select", GUILayout.Width(60)))
                    {
                        var clip = AssetDatabase.LoadAssetAtPath<AnimationClip>(row.resource);
                        if (clip != null)
                        {
                            Selection.activeObject = clip;
                            EditorGUIUtility.PingObject(clip);
                        }
                    }
            }
        }

        void DrawPicked(GenerationReply row)
        {
            EditorGUILayout.LabelField($"{row.name} ({StateText(row)})", EditorStyles.boldLabel);
            using (new EditorGUILayout.HorizontalScope())
            {
                player.Draw(GUILayoutUtility.GetRect(96f, 96f, GUILayout.Width(96f)));
                using (new EditorGUILayout.VerticalScope())
                using (new EditorGUI.DisabledScope(busy))
                {
                    if (row.installable)
                        using (new EditorGUI.DisabledScope(installing == row.id)) // one at a time
                            if (GUILayout.Button(InstallButton))
                                Run(() => Install(row));
                    if (GUILayout.Button("Use these settings"))
                        AnimateWindow.UseSettings(row);
                    if (GUILayout.Button(againQuote == null
                        ? "Generate again (new seed)"
                        : $"Generate again ({againQuote.credits} credits)"))
                        Run(() => Again(row));
                    using (new EditorGUILayout.HorizontalScope())
                    {
                        EditorGUI.BeginChangeCheck();
                        variations = EditorGUILayout.IntSlider(variations, fewest, Math.Max(fewest, most));
                        if (EditorGUI.EndChangeCheck())
                            variationsQuote = null;
                        if (GUILayout.Button(variationsQuote == null
                            ? "Variations"
                            : $"Make {variationsQuote.count} ({variationsQuote.credits_total} credits)"))
                            Run(() => Variations(row));
                    }
                    // The daemon refuses to import a generation whose files never went in.
                    using (new EditorGUI.DisabledScope(row.installable))
                    using (new EditorGUILayout.HorizontalScope())
                    {
                        if (GUILayout.Button("Import again"))
                            Run(() => Import(row, ""));
                        if (GUILayout.Button("Import into..."))
                        {
                            var folder = ChooseFolder();
                            if (folder != "")
                                Run(() => Import(row, folder));
                            GUIUtility.ExitGUI(); // a modal panel opened mid-layout: start this pass over
                        }
                    }
                    using (new EditorGUILayout.HorizontalScope())
                    {
                        using (new EditorGUI.DisabledScope(string.IsNullOrEmpty(row.target_dir)))
                            if (GUILayout.Button("Show in file browser"))
                                Reveal(row);
                        if (GUILayout.Button("Remove files..."))
                        {
                            if (AgreeToRemove(row))
                                Run(() => RemoveFiles(row));
                            GUIUtility.ExitGUI();
                        }
                    }
                }
            }
            EditorGUILayout.LabelField("Re-cut for free", EditorStyles.boldLabel);
            if (row.installable)
            {
                // The daemon refuses re-cuts (and their contact sheet) until its files are in.
                EditorGUILayout.HelpBox(
                    "Paid for, but its files never went in: press Install (free) first, then " +
                    "re-cut or import it.", MessageType.None);
                return;
            }
            var press = recut.Draw(row, busy);
            if (press == RecutPanel.Press.Sheet)
                Run(async () => message = await recut.MakeSheet(row));
            else if (press == RecutPanel.Press.Recut)
                Run(async () =>
                {
                    message = await recut.Recut(row);
                    await Refresh();
                });
        }

        /// <summary>The daemon's state, except for a job paid for whose files never went in,
        /// which is not the same as a failure that cost nothing.</summary>
        static string StateText(GenerationReply row) => row.installable ? PaidNotInstalled : row.state;

        /// <summary>A folder of this project, relative to its root; "" when none or outside.</summary>
        static string ChooseFolder()
        {
            var chosen = EditorUtility.OpenFolderPanel("Import into", Application.dataPath, "");
            if (string.IsNullOrEmpty(chosen))
                return "";
            var full = Path.GetFullPath(chosen).Replace('\\', '/').TrimEnd('/');
            var root = Path.GetFullPath(ProjectRoot()).Replace('\\', '/').TrimEnd('/');
            if (!full.StartsWith(root + "/Assets", StringComparison.OrdinalIgnoreCase))
            {
                EditorUtility.DisplayDialog("Import into", "Choose a folder inside this project's Assets.", "OK");
                return "";
            }
            return full.Substring(root.Length + 1);
        }

        /// <summary>First press: the price of the same settings with a new seed. Second: made.</summary>
        async Task Again(GenerationReply row)
        {
            var id = row.id;
            if (againQuote == null)
            {
                var quoted = await DaemonClient.Post($"/api/v1/generations/{id}/again",
                    new Json().Add("quote_only", true));
                if (!quoted.Ok)
                {
                    message = quoted.Message;
                    return;
                }
                againQuote = JsonUtility.FromJson<AgainReply>(quoted.Body);
                message = $"Seed {againQuote.seed}: this costs {againQuote.credits} credits. " +
                    "Press Generate again to go ahead.";
                return;
            }
            var quote = againQuote;
            againQuote = null; // one quote, one job
            var made = await DaemonClient.Post($"/api/v1/generations/{id}/again",
                new Json().Add("quote_id", quote.quote_id).Add("seed", quote.seed));
            message = made.Ok ? $"Generating again with seed {quote.seed}..." : made.Message;
            await Refresh();
        }

        /// <summary>First press: the total for N. Second: N jobs, each with its own seed.</summary>
        async Task Variations(GenerationReply row)
        {
            var id = row.id;
            if (variationsQuote == null)
            {
                var quoted = await DaemonClient.Post($"/api/v1/generations/{id}/variations",
                    new Json().Add("count", variations).Add("quote_only", true));
                if (!quoted.Ok)
                {
                    message = quoted.Message;
                    return;
                }
                variationsQuote = JsonUtility.FromJson<VariationsReply>(quoted.Body);
                message = $"{variationsQuote.count} variations cost {variationsQuote.credits_total} " +
                    $"credits in all ({variationsQuote.credits_each} each). Press Make to go ahead.";
                return;
            }
            var quote = variationsQuote;
            variationsQuote = null;
            var made = await DaemonClient.Post($"/api/v1/generations/{id}/variations",
                new Json().Add("count", quote.count).Add("quote_id", quote.quote_id)
                    .Add("seeds", quote.seeds));
            message = made.Ok
                ? $"{JsonUtility.FromJson<JobList>(made.Body).data.Length} variations started."
                : made.Message;
            await Refresh();
        }

        /// <summary>The generation's own settings, made again from the kept video (free).</summary>
        async Task Import(GenerationReply row, string folder)
        {
            var id = row.id;
            var body = new Json();
            if (folder != "")
                body.Add("target_folder", folder);
            var reply = await DaemonClient.Post($"/api/v1/generations/{id}/import", body);
            message = reply.Ok
                ? $"Importing {row.name} {(folder == "" ? "again" : "into " + folder)}: nothing is spent."
                : reply.Message;
            await Refresh();
        }

        /// <summary>
        /// Paid for already, its files never went in (a full disk, a folder that could not
        /// be written, a cancel while downloading): the daemon fetches and installs them
        /// again, nothing spent, nothing made again. The list follows the job; what came
        /// of it is said when it ends (Landed).
        /// </summary>
        async Task Install(GenerationReply row)
        {
            var id = row.id;
            var reply = await DaemonClient.Post($"/api/v1/jobs/{id}/retry", null);
            if (!reply.Ok)
            {
                message = reply.Message;
                return;
            }
            installing = id;
            message = $"Installing {row.name} (free)...";
            await Refresh();
        }

        /// <summary>What a free install came to: where its files went, or why they did not
        /// (the first sentence of the daemon's error: the rest names command-line fixes).</summary>
        static string InstallOutcome(GenerationReply row)
        {
            if (row.state == "done")
                return "Installed, nothing spent: " +
                    (string.IsNullOrEmpty(row.resource) ? row.target_dir : row.resource);
            var why = row.error ?? "";
            var cut = why.IndexOf(". ", StringComparison.Ordinal);
            var text = $"The install {row.state}, nothing spent: " +
                $"{(cut >= 0 ? why.Substring(0, cut) : why).TrimEnd('.')}.";
            return row.installable ? text + " Fix that, then press Install (free) again." : text;
        }

        static void Reveal(GenerationReply row)
        {
            // The clip itself where it is there, so the file browser shows it selected.
            var clip = string.IsNullOrEmpty(row.resource)
                ? ""
                : Path.Combine(ProjectRoot(), row.resource);
            EditorUtility.RevealInFinder(clip != "" && File.Exists(clip) ? clip : row.target_dir);
        }

        static bool AgreeToRemove(GenerationReply row) =>
            EditorUtility.DisplayDialog("Remove files",
                $"Remove the files {row.name} put in {row.target_dir}? Only the companion's own " +
                "files, unchanged since it wrote them, are removed; the generation stays listed.",
                "Remove", "Cancel");

        /// <summary>Removes the generation's files, once the user agreed.</summary>
        async Task RemoveFiles(GenerationReply row)
        {
            var id = row.id;
            var reply = await DaemonClient.Post($"/api/v1/generations/{id}/remove_files", null);
            if (!reply.Ok)
            {
                message = reply.Message;
                return;
            }
            var result = JsonUtility.FromJson<RemoveReply>(reply.Body);
            AssetDatabase.Refresh();
            message = $"Removed {result.removed.Length} files.";
            foreach (var kept in result.kept)
                message += $"\nKept {kept.path}: {kept.reason}";
            player.Stop();
        }
    }
}
