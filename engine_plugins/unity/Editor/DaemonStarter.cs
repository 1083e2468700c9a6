using System;
using System.Diagnostics;
using System.IO;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// Starts `companion serve` for a user whose daemon is not running: the command set in
    /// Preferences > Companion when it is not the default "companion"; else the one
    /// `companion plugin install` recorded in the companion's home (command.json: the
    /// absolute command of the companion that installed the package, so one in a virtual
    /// environment off PATH starts); else "companion" on PATH. A start that fails says why
    /// at once: not found, or exited with its first line of error output.
    /// </summary>
    public static class DaemonStarter
    {
        public const string CommandKey = "Companion.DaemonCommand";
        public const string DefaultCommand = "companion";
        public const string RecordFile = "command.json";
        public const double WaitSeconds = 30.0;

        static Process started;
        static string firstError = "";

        [Serializable]
        sealed class Recorded
        {
            public string[] command = new string[0];
        }

        public static string Command
        {
            get
            {
                var value = EditorPrefs.GetString(CommandKey, DefaultCommand).Trim();
                return value == "" ? DefaultCommand : value;
            }
            set => EditorPrefs.SetString(CommandKey, value);
        }

        /// <summary>The program and its arguments before "serve".</summary>
        public static string[] LaunchCommand()
        {
            if (Command != DefaultCommand)
                return new[] { Command };
            var path = Path.Combine(DaemonClient.HomeFolder(), RecordFile);
            try
            {
                var recorded = JsonUtility.FromJson<Recorded>(File.ReadAllText(path));
                if (recorded != null && recorded.command != null && recorded.command.Length > 0)
                    return recorded.command;
            }
            catch (Exception)
            {
                // none recorded (or unreadable): companion on PATH
            }
            return new[] { DefaultCommand };
        }

        /// <summary>The command as a user would type it.</summary>
        public static string Shown() => string.Join(" ", Array.ConvertAll(
            LaunchCommand(), part => part.Contains(" ") ? $"\"{part}\"" : part));

        /// <summary>Starts the daemon; "" when it started, else why it could not.</summary>
        public static string Start()
        {
            var argv = LaunchCommand();
            var program = argv[0];
            if (Path.IsPathRooted(program) && !File.Exists(program))
                return $"Could not start the daemon: {program} was not found. Set the command " +
                    "in Preferences > Companion.";
            var arguments = "";
            for (var i = 1; i < argv.Length; i++)
                arguments += Quoted(argv[i]) + " ";
            try
            {
                var info = new ProcessStartInfo(program, arguments + "serve")
                {
                    UseShellExecute = false,
                    CreateNoWindow = true,
                    RedirectStandardError = true,
                };
                firstError = "";
                started = Process.Start(info);
                if (started == null)
                    return $"Could not start the daemon: {program} could not be run.";
                // Read as it comes (a pipe nobody reads would one day stop the daemon); the
                // first line says why when it exits at once.
                started.ErrorDataReceived += (_, line) =>
                {
                    if (firstError == "" && !string.IsNullOrWhiteSpace(line.Data))
                        firstError = line.Data.Trim();
                };
                started.BeginErrorReadLine();
                return "";
            }
            catch (Exception error)
            {
                return $"Could not start the daemon: {program} was not found or could not be " +
                    $"run ({error.Message}). Set the command in Preferences > Companion.";
            }
        }

        /// <summary>
        /// Why the daemon started last has exited before it answered ("" while it runs or
        /// once it answered and Forget was called).
        /// </summary>
        public static string Exited()
        {
            if (started == null)
                return "";
            try
            {
                if (!started.HasExited)
                    return "";
                var why = $"Could not start the daemon: {Shown()} serve exited with code {started.ExitCode}";
                started = null;
                return firstError == "" ? why + "." : $"{why}: {firstError}";
            }
            catch (InvalidOperationException)
            {
                started = null;
                return "";
            }
        }

        /// <summary>The daemon answered: its exit is no longer a failure to start.</summary>
        public static void Forget() => started = null;

        static string Quoted(string part) => part.Contains(" ") ? $"\"{part}\"" : part;

        [SettingsProvider]
        static SettingsProvider Preferences() =>
            new SettingsProvider("Preferences/Companion", SettingsScope.User)
            {
                label = "Companion",
                guiHandler = _ =>
                {
                    Command = EditorGUILayout.TextField("companion command", Command);
                    EditorGUILayout.HelpBox(
                        "What Start daemon runs with \"serve\". Left at \"companion\", it runs the " +
                        "companion that installed this package (recorded by companion plugin " +
                        "install); else give a name on PATH or a full path.",
                        MessageType.None);
                },
            };
    }
}
