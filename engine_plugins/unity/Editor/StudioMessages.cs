using System;

namespace Companion.Animate
{
    // The daemon's replies for the Generations window and the model options, as
    // JsonUtility reads them (bodies are written with Json, which leaves out what is unset).

    /// <summary>One model of the live listing (GET /api/v1/models); absent: false, empty.</summary>
    [Serializable]
    public sealed class ModelInfo
    {
        public string id = "";
        public string name = "";
        public bool supports_last_frame;
        public int max_reference_images;
        public bool requires_prompt;
        public bool supports_negative_prompt;
        public float[] durations_seconds = new float[0];
        public string[] resolutions = new string[0];
        public string[] transparency_modes = new string[0];
        public string[] style_presets = new string[0];

        public string Label => string.IsNullOrEmpty(name) ? id : $"{name} ({id})";
    }

    [Serializable]
    public sealed class ModelList
    {
        public ModelInfo[] data = new ModelInfo[0];
    }

    [Serializable]
    public sealed class ClipReply
    {
        public bool kept;
        public float duration_seconds = -1f;
    }

    /// <summary>What made a generation, as much of it as the windows use.</summary>
    [Serializable]
    public sealed class GenerationSettings
    {
        public string image = "";
        public string prompt = "";
        public string negative_prompt = "";
        public VideoBody video = new VideoBody();
        public ExportBody export = new ExportBody();
    }

    [Serializable]
    public sealed class AgainReply
    {
        public int credits = -1;
        public string quote_id = "";
        public long seed = -1;
    }

    [Serializable]
    public sealed class VariationsReply
    {
        public int count;
        public int credits_each = -1;
        public int credits_total = -1;
        public string quote_id = "";
        public long[] seeds = new long[0];
    }

    [Serializable]
    public sealed class JobList
    {
        public JobReply[] data = new JobReply[0];
    }

    [Serializable]
    public sealed class ContactCell
    {
        public int index;
        public int[] rect = new int[0];
        public float requested_time_seconds;
        public float source_time_seconds;
    }

    [Serializable]
    public sealed class ContactSheetReply
    {
        public string image = "";
        public int width;
        public int height;
        public ContactCell[] cells = new ContactCell[0];
    }

    [Serializable]
    public sealed class KeptFile
    {
        public string path = "";
        public string reason = "";
    }

    [Serializable]
    public sealed class RemoveReply
    {
        public string[] removed = new string[0];
        public KeptFile[] kept = new KeptFile[0];
    }

    // The variation count's bounds, from the daemon's own API description.

    [Serializable]
    public sealed class CountSchema
    {
        public int minimum = -1;
        public int maximum = -1;
    }

    [Serializable]
    public sealed class VariationsProperties
    {
        public CountSchema count = new CountSchema();
    }

    [Serializable]
    public sealed class VariationsSchema
    {
        public VariationsProperties properties = new VariationsProperties();
    }

    [Serializable]
    public sealed class ApiSchemas
    {
        public VariationsSchema VariationsIn = new VariationsSchema();
    }

    [Serializable]
    public sealed class ApiComponents
    {
        public ApiSchemas schemas = new ApiSchemas();
    }

    [Serializable]
    public sealed class ApiDescription
    {
        public ApiComponents components = new ApiComponents();
    }
}
