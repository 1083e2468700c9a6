using System;
using System.Diagnostics;
using UnityEditor;

namespace Companion.Animate
{
    /// <summary>
    /// Starts `companion serve` for a user whose daemon is not running. The command is a
    /// preference (Preferences > Companion), "companion" by default, found on PATH.
    /// </summary>
    public static class DaemonStarter
    {
        public const string CommandKey = "Companion.DaemonCommand";
        public const string DefaultCommand = "companion";
        public const double WaitSeconds = 30.0;

        public static string Command
        {
            get
            {
                var value = EditorPrefs.GetString(CommandKey, DefaultCommand).Trim();
                return value == "" ? DefaultCommand : value;
            }
            set => EditorPrefs.SetString(CommandKey, value);
        }

        /// <summary>Starts the daemon; "" when it started, else what went wrong.</summary>
        public static string Start()
        {
            try
            {
                var info = new ProcessStartInfo(Command, "serve")
                {
                    UseShellExecute = false,
                    CreateNoWindow = true,
                };
                using (Process.Start(info))
                    return "";
            }
            catch (Exception error)
            {
                return $"Could not run \"{Command} serve\" ({error.Message}). Set the command " +
                    "in Preferences > Companion.";
            }
        }

        [SettingsProvider]
        static SettingsProvider Preferences() =>
            new SettingsProvider("Preferences/Companion", SettingsScope.User)
            {
                label = "Companion",
                guiHandler = _ =>
                {
                    Command = EditorGUILayout.TextField("companion command", Command);
                    EditorGUILayout.HelpBox(
                        "What Start daemon runs with \"serve\": a name on PATH or a full path.",
                        MessageType.None);
                },
            };
    }
}
