using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// This project's generations, newest first, as the daemon keeps them (so they are
    /// there after the editor or the daemon restarts): when, state, name, credits, model,
    /// seed and prompt where the daemon gives them. Show in Explorer/Finder opens a
    /// generation's folder; Select picks its clip in the Project window. A daemon without
    /// GET /api/v1/generations gives its job list, narrowed to this project's folder.
    /// </summary>
    public sealed class GenerationsWindow : CompanionWindow
    {
        readonly List<GenerationReply> rows = new List<GenerationReply>();
        string summary = "Not listed yet";
        Vector2 scroll;

        [MenuItem("Window/Companion/Generations")]
        static void Open()
        {
            var window = GetWindow<GenerationsWindow>("Generations");
            window.Show();
            window.Run(window.Refresh);
        }

        protected override void Say(string failure) => summary = failure;

        async Task Refresh()
        {
            busy = true;
            try
            {
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
                rows.AddRange(found.OrderByDescending(g => g.created_at, StringComparer.Ordinal));
                summary = $"{rows.Count} generations of this project, newest first";
            }
            finally
            {
                busy = false;
                Repaint();
            }
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
            scroll = EditorGUILayout.BeginScrollView(scroll);
            foreach (var row in rows)
            {
                using (new EditorGUILayout.HorizontalScope(EditorStyles.helpBox))
                {
                    var when = row.created_at.Replace('T', ' ');
                    var cost = row.cost_credits >= 0 ? row.cost_credits : row.quote;
                    var seed = row.seed >= 0 ? $" / {row.seed}" : "";
                    EditorGUILayout.LabelField(
                        $"{when.Substring(0, Math.Min(19, when.Length))}  {row.state}  {row.name}  " +
                        $"{cost} credits  {row.model}{seed}  {row.prompt}",
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
                    using (new EditorGUI.DisabledScope(string.IsNullOrEmpty(row.target_dir)))
                        if (GUILayout.Button("Show", GUILayout.Width(50)))
                            EditorUtility.RevealInFinder(row.target_dir);
                }
            }
            EditorGUILayout.EndScrollView();
        }
    }
}
