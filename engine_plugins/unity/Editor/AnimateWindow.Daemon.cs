using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// The Animate window's line to the daemon: the status line with the balance and the
    /// limits, Start daemon, a look every second while it is away (so the window connects
    /// by itself), and this project's registration.
    /// </summary>
    public sealed partial class AnimateWindow
    {
        const string Offline = "Offline: the companion daemon is not running";
        string status = "Daemon: not checked yet";
        double nextLook;
        bool down;
        bool starting;
        double nextReconnect;
        double startDeadline;

        async Task Refresh()
        {
            var reply = await DaemonClient.Get("/api/v1/status");
            if (!reply.Ok)
            {
                status = Offline;
                if (!message.StartsWith("Could not start"))
                    message = starting ? $"Starting the daemon ({DaemonStarter.Shown()} serve)..." : reply.Message;
                down = true;
            }
            else
            {
                var parsed = JsonUtility.FromJson<StatusReply>(reply.Body);
                var mode = parsed.mode == "sandbox" ? "Sandbox (no credits are spent)" : "Live";
                var balance = parsed.balance >= 0 ? parsed.balance.ToString() : "?";
                status = parsed.reachable
                    ? $"{mode} · balance {balance} credits"
                    : $"{mode} · service not answering: work waits for it";
                if (parsed.version != "" && parsed.version != DaemonClient.PluginVersion)
                    status += $"\ncompanion {parsed.version}, this package {DaemonClient.PluginVersion}: "
                        + $"run  companion plugin install unity \"{ProjectRoot()}\"";
                form.limits = parsed.limits ?? new Limits();
                form.limitsReported = form.limits.Known;
                if (await form.advanced.Refresh())
                    DropQuote(); // the chosen model's options changed under the quote
                if (down && (starting || message == DaemonClient.NotRunning))
                    message = "";
                down = false;
                starting = false;
                DaemonStarter.Forget();
            }
            Repaint();
        }

        /// <summary>
        /// Registers this project unless the daemon already lists it. The registration names
        /// only the folder and the engine, so even when the daemon's resolved path differs
        /// from ours in a way not normalised here (a symlinked folder), registering again
        /// leaves the project's target, inbox and defaults as they were.
        /// </summary>
        async Task<bool> EnsureProject()
        {
            var listed = await DaemonClient.Get("/api/v1/projects");
            if (!listed.Ok)
            {
                message = listed.Message;
                return false;
            }
            var root = SamePlace(ProjectRoot());
            foreach (var project in JsonUtility.FromJson<ProjectList>(listed.Body).data)
                if (SamePlace(project.root) == root)
                    return true;
            var added = await DaemonClient.Post("/api/v1/projects", new ProjectBody { root = ProjectRoot() });
            if (!added.Ok)
                message = added.Message;
            return added.Ok;
        }

        /// <summary>
        /// Runs the recorded companion (or the one set in the preferences); Tick then
        /// reconnects, and a start that exits at once is said with its reason.
        /// </summary>
        void StartDaemon()
        {
            var problem = DaemonStarter.Start();
            starting = problem == "";
            message = starting ? $"Starting the daemon ({DaemonStarter.Shown()} serve)..." : problem;
            startDeadline = EditorApplication.timeSinceStartup + DaemonStarter.WaitSeconds;
            Repaint();
        }

        /// <summary>
        /// While the daemon is away, look for it every second: the window connects by
        /// itself once it runs, started here or in a terminal.
        /// </summary>
        void LookForDaemon()
        {
            if (starting)
            {
                var exited = DaemonStarter.Exited();
                if (exited != "")
                {
                    starting = false;
                    message = exited;
                    Repaint();
                }
            }
            if (!down)
            {
                WatchDaemon();
                return;
            }
            if (busy || EditorApplication.timeSinceStartup < nextReconnect)
                return;
            nextReconnect = EditorApplication.timeSinceStartup + 1.0;
            if (starting && EditorApplication.timeSinceStartup > startDeadline)
            {
                starting = false;
                message = $"The daemon did not answer: run \"{DaemonStarter.Shown()} serve\" " +
                    "in a terminal to see why.";
            }
            Run(Refresh);
        }

        /// <summary>
        /// While the daemon runs, a look at its health every 2 s (no Refresh needed): gone,
        /// the window says Offline at once, hides the balance and offers Start daemon.
        /// </summary>
        void WatchDaemon()
        {
            if (busy || EditorApplication.timeSinceStartup < nextLook)
                return;
            nextLook = EditorApplication.timeSinceStartup + 2.0;
            Run(async () =>
            {
                var health = await DaemonClient.Get("/api/v1/health");
                if (health.Ok || down)
                    return;
                status = Offline;
                message = DaemonClient.NotRunning;
                down = true;
                Repaint();
            });
        }
    }
}
