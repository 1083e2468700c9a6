using System;
using System.IO;
using System.Text;
using System.Threading.Tasks;
using UnityEngine;
using UnityEngine.Networking;

namespace Companion.Animate
{
    /// <summary>One reply from the daemon: the status, the body, and a message to show.</summary>
    public sealed class DaemonReply
    {
        public bool Ok;
        public int Status;
        public string Body = "";
        public byte[] Data = new byte[0];
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
    /// Talks to the local companion daemon on loopback with UnityWebRequest, which every
    /// editor from 2021.3 to 6000.x references by default (System.Net.Http is not referenced
    /// by the editor's .NET Framework profile from 2023.1 on). Requests run on the editor's
    /// update loop and are awaited on its main thread, so the editor never blocks. Unity
    /// allows plain http:// to localhost and 127.0.0.1 whatever the project's "Allow
    /// downloads over HTTP" setting; should an editor refuse it anyway, the reply says which
    /// setting to change. The port and token come from daemon.json in the companion's home.
    /// Every failure comes back as a reply with a message; nothing is thrown.
    /// </summary>
    public static class DaemonClient
    {
        public const string NotRunning =
            "The companion daemon is not running. Start it in a terminal with:\n" +
            "    companion serve\nthen press Refresh.";

        public const string InsecureHttpRefused =
            "This editor refused plain HTTP to the daemon on 127.0.0.1. Set Edit > Project " +
            "Settings > Player > Other Settings > Configuration > Allow downloads over HTTP " +
            "to \"Always allowed\", then press Refresh.";

        const int TimeoutSeconds = 30;

        /// <summary>This package's version (package.json's, kept equal by a test); sent with
        /// every request so the daemon knows which plugin it serves.</summary>
        public const string PluginVersion = "0.1.0";

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

        public static Task<DaemonReply> Get(string path) => Send(UnityWebRequest.kHttpVerbGET, path, null);

        /// <summary>POSTs a Json body as built, any other object as JsonUtility writes it.</summary>
        public static Task<DaemonReply> Post(string path, object body) =>
            Send(UnityWebRequest.kHttpVerbPOST, path,
                body == null ? "{}" : body is Json json ? json.ToString() : JsonUtility.ToJson(body));

        static Task Completion(UnityWebRequestAsyncOperation operation)
        {
            var done = new TaskCompletionSource<bool>();
            if (operation.isDone)
                done.TrySetResult(true);
            else
                operation.completed += _ => done.TrySetResult(true);
            return done.Task;
        }

        static async Task<DaemonReply> Send(string method, string path, string json)
        {
            var daemon = ReadDaemonFile();
            if (daemon == null)
                return new DaemonReply { Message = NotRunning };
            var request = new UnityWebRequest($"http://127.0.0.1:{daemon.port}{path}", method);
            try
            {
                request.downloadHandler = new DownloadHandlerBuffer();
                if (json != null)
                {
                    request.uploadHandler = new UploadHandlerRaw(Encoding.UTF8.GetBytes(json))
                    {
                        contentType = "application/json",
                    };
                    request.SetRequestHeader("Content-Type", "application/json");
                }
                request.SetRequestHeader("Authorization", "Bearer " + daemon.token);
                request.SetRequestHeader("Accept", "application/json");
                request.SetRequestHeader("X-Companion-Plugin", "unity " + PluginVersion);
                request.timeout = TimeoutSeconds;
                await Completion(request.SendWebRequest());
                var status = (int)request.responseCode;
                if (status == 0)
                {
                    // No HTTP answer at all: refused, unreachable or timed out.
                    var why = request.error ?? "";
                    return new DaemonReply
                    {
                        Message = why.IndexOf("timeout", StringComparison.OrdinalIgnoreCase) >= 0
                            ? "The daemon did not answer in time."
                            : $"{NotRunning}\n({why})",
                    };
                }
                var body = request.downloadHandler.text ?? "";
                var reply = new DaemonReply
                {
                    Ok = status < 400,
                    Status = status,
                    Body = body,
                    Data = request.downloadHandler.data ?? new byte[0],
                };
                if (!reply.Ok)
                    reply.Message = Describe(body, status);
                return reply;
            }
            catch (InvalidOperationException error) when (error.Message.IndexOf(
                "insecure", StringComparison.OrdinalIgnoreCase) >= 0)
            {
                return new DaemonReply { Message = InsecureHttpRefused };
            }
            catch (Exception error)
            {
                Debug.LogException(error);
                return new DaemonReply { Message = $"Talking to the daemon failed: {error.Message}" };
            }
            finally
            {
                request.Dispose();
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
