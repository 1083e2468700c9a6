using System.IO;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// The Animate window's quote and job: Quote prices the form's request, Animate sends
    /// exactly that (or quotes again), then the job is polled, cancelled or approved, and
    /// once done its clip is selected and played (cut again as pixel art first, when asked).
    /// </summary>
    public sealed partial class AnimateWindow
    {
        const double PollSeconds = 0.5;

        string jobId = "";
        float progress;
        bool awaitingApproval;
        double nextPoll;
        // The export a pixel-art cut uses, while the job it follows runs.
        Json pixelExport;

        /// <summary>The job's end in words; a null or empty error adds nothing.</summary>
        public static string Ended(string state, string error) =>
            string.IsNullOrEmpty(error) ? $"The job {state}." : $"The job {state}: {error}";

        async Task Quote()
        {
            busy = true;
            try
            {
                if (!await EnsureProject())
                    return;
                var body = form.Body(); // what is priced is what was on screen when Quote was pressed
                var reply = await DaemonClient.Post("/api/v1/quote", body);
                if (!reply.Ok)
                {
                    message = reply.Message;
                    return;
                }
                message = quote.Take(reply.Body, body, form.setFrames ? "" : form.CutNote());
                if (quote.taken != "")
                {
                    // The free name taken in the replace question: priced at once.
                    form.animationName = quote.taken;
                    busy = false;
                    await Quote();
                }
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
                if (!quote.Prices(form.Body()))
                {
                    DropQuote();
                    busy = false;
                    await Quote();
                    return;
                }
                // The quote id goes with the body only when the daemon gave one.
                var sent = form.Body(quote.id);
                if (quote.replaceAgreed)
                    sent.Add("replace", true); // not priced: the quote id still holds
                DropQuote(); // one quote, one job
                pixelExport = form.pixelArt ? form.Export() : null;
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

        /// <summary>A character's moves polled; once all ended, its clip is shown and played.</summary>
        async Task PollMoves() => Landed(await moves.Poll());

        /// <summary>A batch's jobs polled; once all ended, its last clip is shown and played.</summary>
        async Task PollBatch() => Landed(await batch.Poll());

        void Landed(string resource)
        {
            if (resource != "")
            {
                AssetDatabase.Refresh(ImportAssetOptions.ForceSynchronousImport);
                player.Play(resource);
                var clip = AssetDatabase.LoadAssetAtPath<AnimationClip>(resource);
                if (clip != null)
                    Selection.activeObject = clip;
                Run(Refresh);
            }
            Repaint();
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
