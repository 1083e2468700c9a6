using System;

namespace Companion.Animate
{
    // The daemon's JSON, as JsonUtility reads and writes it: field names are the wire names.

    /// <summary>One bound pair from the daemon; -1 where the daemon gives none.</summary>
    [Serializable]
    public sealed class LimitRange
    {
        public float min = -1f;
        public float max = -1f;

        public bool HasMin => min >= 0f;
        public bool HasMax => max > 0f;

        public float Clamp(float value)
        {
            if (HasMin && value < min)
                value = min;
            if (HasMax && value > max)
                value = max;
            return value;
        }
    }

    /// <summary>
    /// The service's limits as the daemon states them in GET /api/v1/status, so the window
    /// never carries its own copy. JsonUtility leaves the -1 defaults where a field is absent.
    /// </summary>
    [Serializable]
    public sealed class Limits
    {
        public LimitRange size = new LimitRange();
        public LimitRange frame_count = new LimitRange();
        public LimitRange fps = new LimitRange();
        public LimitRange seconds = new LimitRange();

        public bool Known => size.HasMax && frame_count.HasMax;
    }

    [Serializable]
    public sealed class StatusReply
    {
        public string version = "";
        public string mode = "";
        public string service = "";
        public string tier = "";
        public int balance = -1;
        public bool reachable = true;
        public Limits limits = new Limits();
    }

    /// <summary>
    /// A registration names only the folder and the engine: a project the daemon already
    /// knows keeps its target, inbox and defaults.
    /// </summary>
    [Serializable]
    public sealed class ProjectBody
    {
        public string root = "";
        public string engine = "unity";
    }

    [Serializable]
    public sealed class ProjectReply
    {
        public string root = "";
        public string engine = "";
    }

    [Serializable]
    public sealed class ProjectList
    {
        public ProjectReply[] data = new ProjectReply[0];
    }

    [Serializable]
    public sealed class VideoBody
    {
        public float duration_seconds = 2f;
    }

    [Serializable]
    public sealed class ExportBody
    {
        public int frame_count = -1; // -1: not given (the request gave fps instead)
        public int output_width = 256;
        public int output_height = 256;
        public string[] output_formats = new string[0];
    }

    [Serializable]
    public sealed class QuoteReply
    {
        public int credits;
        // What Animate with this request spends now: credits, or 0 when earlier answers it
        // (-1: a daemon that does not say; then it is credits).
        public int spends = -1;
        public EarlierJob earlier = new EarlierJob();
        public string quote_id = "";
        public int balance = -1; // -1: the service did not say (see Json.Unset)
        public BudgetReply budget = new BudgetReply();
        public KeptFile[] conflicts = new KeptFile[0];
        public ReplacedFile[] replaces = new ReplacedFile[0];
        public string name_suggestion = "";
    }

    /// <summary>
    /// The earlier job of exactly the quoted request that Animate answers instead of paying
    /// again (id "" when none): why is "made" (its files in place), "under_way" or
    /// "paid_not_installed" (installed again, free).
    /// </summary>
    [Serializable]
    public sealed class EarlierJob
    {
        public string id = "";
        public string state = "";
        public string why = "";
    }

    /// <summary>
    /// A file of an earlier job of the same name, unchanged since, that the quoted job
    /// replaces unasked (as a re-import would); job is that earlier job's id.
    /// </summary>
    [Serializable]
    public sealed class ReplacedFile
    {
        public string path = "";
        public string job = "";
        public string name = "";
    }

    /// <summary>The budgets a quote is held to; per_job and per_day are -1 for none.</summary>
    [Serializable]
    public sealed class BudgetReply
    {
        public int per_job = -1;
        public int per_day = -1;
        public int spent_today;
        public bool over;
    }

    [Serializable]
    public sealed class OutputReply
    {
        public string format = "";
        public string file = "";
        public string installed_path = "";
    }

    [Serializable]
    public sealed class JobReply
    {
        public string id = "";
        public string state = "";
        public float progress;
        public string error = "";
        public string resource = "";
        public string target_dir = "";
        public OutputReply[] outputs = new OutputReply[0];

        public bool Finished => state == "done" || state == "failed" || state == "cancelled";
    }

    /// <summary>
    /// One generation (GET /api/v1/generations) or job (GET /api/v1/jobs): what the
    /// daemon does not give keeps its default (-1: not given).
    /// </summary>
    [Serializable]
    public sealed class GenerationReply
    {
        public string id = "";
        public string state = "";
        public string name = "";
        public string error = "";
        public string resource = "";
        public string target_dir = "";
        public string created_at = "";
        public string prompt = "";
        public string model = "";
        public long seed = -1;
        public int quote = -1;
        public int cost_credits = -1;
        public string kind = "";
        // The generation a re-cut or import was cut from ("" for a generation of its own).
        public string parent = "";
        public ClipReply clip = new ClipReply();
        public GenerationSettings settings = new GenerationSettings();
        // Paid for at the service, its outputs never went in: POST /api/v1/jobs/{id}/retry
        // installs them without paying again.
        public bool installable;

        public bool Finished => state == "done" || state == "failed" || state == "cancelled";
    }

    [Serializable]
    public sealed class GenerationList
    {
        public GenerationReply[] data = new GenerationReply[0];
    }
}
