using System;
using System.IO;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Threading.Tasks;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>One reply from the daemon: the status, the body, and a message to show.</summary>
    public sealed class DaemonReply
    {
        public bool Ok;
        public int Status;
        public string Body = "";
        public string Message = "";
    }

    [Serializable]
    internal sealed class DaemonFile
    {
        public int port;
        public string token = "";
    }

    [Serializable]
    internal sealed class ErrorDetail
    {
        public string code = "";
        public string message = "";
    }

    [Serializable]
    internal sealed class ErrorReply
    {
        public ErrorDetail error = new ErrorDetail();
    }

    /// <summary>
    /// Talks to the local companion daemon on loopback. It uses .NET's HttpClient, which
    /// Unity's "insecure HTTP" player setting does not govern (that rule is for
    /// UnityWebRequest), and awaits on the editor's main-thread context, so the editor never
    /// blocks. The port and token come from daemon.json in the companion's home folder.
    /// </summary>
    public static class DaemonClient
    {
        public const string NotRunning =
            "The companion daemon is not running. Start it in a terminal with:\n" +
            "    companion serve\nthen press Refresh.";

        static readonly HttpClient Http = new HttpClient { Timeout = TimeSpan.FromSeconds(30) };

        /// <summary>COMPANION_HOME, or the platform's user data folder for "companion".</summary>
        public static string HomeFolder()
        {
            var overridden = Environment.GetEnvironmentVariable("COMPANION_HOME");
            if (!string.IsNullOrEmpty(overridden))
                return overridden;
            var home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            switch (Application.platform)
            {
                case RuntimePlatform.WindowsEditor:
                    return Path.Combine(
                        Environment.GetFolderPath(Environment.SpecialFolder.LocalApplicationData),
                        "companion");
                case RuntimePlatform.OSXEditor:
                    return Path.Combine(home, "Library", "Application Support", "companion");
                default:
                    var data = Environment.GetEnvironmentVariable("XDG_DATA_HOME");
                    if (string.IsNullOrEmpty(data))
                        data = Path.Combine(home, ".local", "share");
                    return Path.Combine(data, "companion");
            }
        }

        static DaemonFile ReadDaemonFile()
        {
            var path = Path.Combine(HomeFolder(), "daemon.json");
            if (!File.Exists(path))
                return null;
            try
            {
                var file = JsonUtility.FromJson<DaemonFile>(File.ReadAllText(path));
                return file != null && file.port > 0 && !string.IsNullOrEmpty(file.token)
                    ? file
                    : null;
            }
            catch (Exception)
            {
                return null;
            }
        }

        public static Task<DaemonReply> Get(string path) => Send(HttpMethod.Get, path, null);

        public static Task<DaemonReply> Post(string path, object body) =>
            Send(HttpMethod.Post, path, body == null ? "{}" : JsonUtility.ToJson(body));

        static async Task<DaemonReply> Send(HttpMethod method, string path, string json)
        {
            var daemon = ReadDaemonFile();
            if (daemon == null)
                return new DaemonReply { Message = NotRunning };
            using (var request = new HttpRequestMessage(method, $"http://127.0.0.1:{daemon.port}{path}"))
            {
                request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", daemon.token);
                request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue("application/json"));
                if (json != null)
                    request.Content = new StringContent(json, Encoding.UTF8, "application/json");
                try
                {
                    using (var response = await Http.SendAsync(request))
                    {
                        var body = await response.Content.ReadAsStringAsync();
                        var status = (int)response.StatusCode;
                        var reply = new DaemonReply { Ok = status < 400, Status = status, Body = body };
                        if (!reply.Ok)
                            reply.Message = Describe(body, status);
                        return reply;
                    }
                }
                catch (HttpRequestException)
                {
                    return new DaemonReply { Message = NotRunning };
                }
                catch (TaskCanceledException)
                {
                    return new DaemonReply { Message = "The daemon did not answer in time." };
                }
            }
        }

        static string Describe(string body, int status)
        {
            try
            {
                var parsed = JsonUtility.FromJson<ErrorReply>(body);
                if (parsed != null && !string.IsNullOrEmpty(parsed.error.message))
                    return $"{parsed.error.message} ({status})";
            }
            catch (Exception)
            {
                // Not JSON: fall through to the bare status.
            }
            return $"The daemon refused the request ({status}).";
        }
    }
}
