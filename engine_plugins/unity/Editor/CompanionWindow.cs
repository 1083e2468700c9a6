using System;
using System.IO;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// What the Animate and Generations windows share: this project's folder, paths as the
    /// daemon stores them, and Run, which starts a request and shows whatever goes wrong in
    /// it (an exception is never left in an unobserved task).
    /// </summary>
    public abstract class CompanionWindow : EditorWindow
    {
        /// <summary>A request is under way: buttons that would start another wait.</summary>
        protected bool busy;

        /// <summary>Shows a failure where the window shows its messages.</summary>
        protected abstract void Say(string failure);

        protected async void Run(Func<Task> work)
        {
            try
            {
                await work();
            }
            catch (Exception error)
            {
                Debug.LogException(error);
                busy = false;
                Say($"Something went wrong: {error.Message}");
                Repaint();
            }
        }

        public static string ProjectRoot() => Path.GetDirectoryName(Application.dataPath);

        /// <summary>
        /// A path as the daemon may have stored it: full, '/' separators, no trailing
        /// separator, without macOS's /private prefix, and case-folded where the file system
        /// usually ignores case (Windows, macOS).
        /// </summary>
        public static string SamePlace(string path)
        {
            var full = Path.GetFullPath(path).Replace('\\', '/').TrimEnd('/');
            if (Application.platform == RuntimePlatform.OSXEditor && full.StartsWith("/private/"))
                full = full.Substring("/private".Length);
            var folded = Application.platform == RuntimePlatform.WindowsEditor ||
                Application.platform == RuntimePlatform.OSXEditor;
            return folded ? full.ToLowerInvariant() : full;
        }
    }
}
