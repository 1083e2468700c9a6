using System;

namespace Companion.Animate
{
    // The daemon's JSON, as JsonUtility reads and writes it: field names are the wire names.

    [Serializable]
    public sealed class StatusReply
    {
        public string mode = "";
        public string service = "";
        public string tier = "";
        public int balance = -1;
    }

    [Serializable]
    public sealed class ProjectBody
    {
        public string root = "";
        public string engine = "unity";
        public string target = "Assets/Animations";
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
        public int frame_count = 24;
        public int output_width = 256;
        public int output_height = 256;
        public string[] output_formats = new string[0];
    }

    [Serializable]
    public sealed class AnimateBody
    {
        public string project_root = "";
        public string image_path = "";
        public string prompt = "";
        public VideoBody video = new VideoBody();
        public ExportBody export = new ExportBody();
    }

    [Serializable]
    public sealed class QuoteReply
    {
        public int credits;
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
}
