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
    /// Several pictures selected in the Project window (Assets > Animate as a batch...),
    /// each animated with the window's settings and named after itself: one quote (each
    /// picture's price and the total, 0 for one made already) and one cap (the daemon holds
    /// the total to the budget; over it, Animate batch approves the whole batch once). The
    /// daemon's /batch routes do the work.
    /// </summary>
    public sealed class BatchPanel
    {
        const double PollSeconds = 0.5;

        public readonly List<Texture2D> pictures = new List<Texture2D>();
        public string message = "";
        string quoteId = "";
        string quotedBody = "";
        int total = -1;
        bool over;
        readonly List<JobReply> jobs = new List<JobReply>();
        double nextPoll;
        bool polling;

        public bool Active => pictures.Count >= 2;

        public void Choose(IEnumerable<Texture2D> chosen)
        {
            pictures.Clear();
            pictures.AddRange(chosen);
            Drop();
            message = $"A batch of {pictures.Count} pictures, each animated with these settings. Press Quote batch.";
        }

        public void Drop()
        {
            quoteId = "";
            quotedBody = "";
            total = -1;
        }

        /// <summary>The window's request for every picture: each named after itself.</summary>
        public Json Body(AnimateForm form, string quote = "") =>
            form.Body(quote).Without("image_path").Without("name")
                .Add("image_paths", pictures.Select(p => AssetDatabase.GetAssetPath(p)));

        /// <summary>Draws the batch; the action pressed, for the window to run.</summary>
        public Func<AnimateForm, Task> Draw(bool busy)
        {
            if (!Active)
                return null;
            Func<AnimateForm, Task> pressed = null;
            EditorGUILayout.LabelField($"Batch of {pictures.Count}: " + string.Join(", ", pictures.Select(p => p.name)),
                EditorStyles.wordWrappedLabel);
            using (new EditorGUI.DisabledScope(busy))
            using (new EditorGUILayout.HorizontalScope())
            {
                if (GUILayout.Button("Quote batch"))
                    pressed = Quote;
                var label = total < 0 ? "Animate batch"
                    : over ? $"Approve and animate batch ({total} credits)" : $"Animate batch ({total} credits)";
                using (new EditorGUI.DisabledScope(total < 0))
                    if (GUILayout.Button(label))
                        pressed = Start;
                if (GUILayout.Button("Clear", GUILayout.Width(60)))
                {
                    pictures.Clear();
                    message = "";
                }
            }
            if (jobs.Count > 0)
            {
                var bar = EditorGUILayout.GetControlRect(false, 18);
                var ended = jobs.Count(j => j.Finished);
                EditorGUI.ProgressBar(bar, (float)ended / jobs.Count, $"{ended} of {jobs.Count}");
            }
            if (message != "")
                EditorGUILayout.HelpBox(message, MessageType.Info);
            return pressed;
        }

        async Task Quote(AnimateForm form)
        {
            var body = Body(form);
            var reply = await DaemonClient.Post("/api/v1/batch/quote", body);
            if (!reply.Ok)
            {
                message = reply.Message;
                return;
            }
            var quoted = JsonUtility.FromJson<BatchQuoteReply>(Json.Unset(reply.Body, "balance", "per_job", "per_day"));
            quoteId = quoted.quote_id;
            quotedBody = body.ToString();
            total = quoted.spends_total;
            over = quoted.budget.over;
            var lines = quoted.data.Select(q => Path.GetFileName(q.image_path) + ": "
                + (q.spends == 0 && q.credits > 0 ? "0 — already made" : $"{q.spends} credits"));
            var balance = quoted.balance >= 0 ? $" (balance {quoted.balance})" : "";
            message = string.Join("\n", lines) + $"\nBatch of {pictures.Count}: {total} credits in all{balance}."
                + (over ? "\nThe batch is over your budget as a whole: Animate batch approves it once." : "");
        }

        async Task Start(AnimateForm form)
        {
            if (Body(form).ToString() != quotedBody)
            {
                Drop();
                await Quote(form);
                return;
            }
            var sent = Body(form, quoteId);
            if (over)
                sent.Add("approve", true); // the user saw "Approve and animate batch"
            Drop();
            var reply = await DaemonClient.Post("/api/v1/batch", sent);
            if (!reply.Ok)
            {
                message = reply.Message;
                return;
            }
            jobs.Clear();
            jobs.AddRange(JsonUtility.FromJson<BatchReply>(reply.Body).data);
            message = $"Animating a batch of {jobs.Count}...";
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
        }

        /// <summary>Whether a poll is due: a job of the batch runs and none is being read.</summary>
        public bool Due() => !polling && EditorApplication.timeSinceStartup >= nextPoll && jobs.Any(j => !j.Finished);

        /// <summary>Each running job read once; the last done one's resource when all ended.</summary>
        public async Task<string> Poll()
        {
            polling = true;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            try
            {
                for (var i = 0; i < jobs.Count; i++)
                {
                    if (jobs[i].Finished)
                        continue;
                    var jobId = jobs[i].id;
                    var reply = await DaemonClient.Get($"/api/v1/jobs/{jobId}");
                    if (reply.Ok)
                        jobs[i] = JsonUtility.FromJson<JobReply>(reply.Body);
                }
            }
            finally
            {
                polling = false;
            }
            if (jobs.Any(j => !j.Finished))
                return "";
            message = $"Batch: {jobs.Count(j => j.state == "done")} of {jobs.Count} done.";
            var done = jobs.LastOrDefault(j => j.state == "done" && !string.IsNullOrEmpty(j.resource));
            return done == null ? "" : done.resource;
        }
    }

    /// <summary>One picture of a batch's quote: its /quote reply and its picture.</summary>
    [Serializable]
    public sealed class BatchMemberQuote
    {
        public string image_path = "";
        public string name = "";
        public int credits;
        public int spends;
    }

    [Serializable]
    public sealed class BatchQuoteReply
    {
        public BatchMemberQuote[] data = new BatchMemberQuote[0];
        public int credits_total;
        public int spends_total;
        public string quote_id = "";
        public int balance = -1;
        public BudgetReply budget = new BudgetReply();
    }

    [Serializable]
    public sealed class BatchReply
    {
        public JobReply[] data = new JobReply[0];
    }
}
