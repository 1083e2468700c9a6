using System;
using System.IO;
using System.Linq;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// The Animate window's quote: the price of exactly the request shown, the daemon's id
    /// for it and the request it priced (as JSON), and the user's say on files the install
    /// would replace. Animate sends exactly that request, or quotes again.
    /// </summary>
    public sealed class AnimateQuote
    {
        /// <summary>The price, or -1 when there is no quote for what is shown.</summary>
        public int credits = -1;
        /// <summary>What pressing Animate spends now: credits, or 0 when an earlier job of
        /// exactly this request answers it (then free says why).</summary>
        public int spends = -1;
        public string free = "";
        public string id = "";
        public string body = "";
        // The user agreed, for this quote, that their changed files are moved aside.
        public bool replaceAgreed;
        // A free name the daemon offered with the last quote.
        public string suggestion = "";
        // The free name the user took in the replace question ("" when they did not): the
        // window puts it in Name and quotes again.
        public string taken = "";

        /// <summary>Any change of what would be sent makes the shown price stale.</summary>
        public void Drop()
        {
            credits = -1;
            spends = -1;
            free = "";
            id = "";
            body = "";
            replaceAgreed = false;
        }

        /// <summary>Whether this quote priced exactly that request.</summary>
        public bool Prices(Json request) => credits >= 0 && request.ToString() == body;

        /// <summary>
        /// Keeps the daemon's quote of the request (when the user lets it replace their
        /// changed files) and returns what the window says about it.
        /// </summary>
        public string Take(string replyBody, Json request, string cutNote)
        {
            var quoted = JsonUtility.FromJson<QuoteReply>(
                Json.Unset(replyBody, "balance", "per_job", "per_day"));
            suggestion = quoted.name_suggestion ?? "";
            taken = "";
            var answer = quoted.conflicts.Length > 0 ? AskReplace(quoted.conflicts, suggestion) : Replace;
            if (answer == UseName)
            {
                taken = suggestion;
                return $"Named {suggestion}: quoting it.";
            }
            if (answer == Keep)
            {
                // Nothing is replaced unasked: say why and offer the free name.
                return "Nothing replaced, nothing spent:\n" +
                    string.Join("\n", quoted.conflicts.Select(c => c.reason)) +
                    (suggestion == "" ? "" : $"\nUse the free name {suggestion} to keep them.");
            }
            replaceAgreed = quoted.conflicts.Length > 0;
            credits = quoted.credits;
            var earlier = quoted.earlier != null && quoted.earlier.id != "" ? quoted.earlier : null;
            spends = quoted.spends >= 0 ? quoted.spends : credits;
            free = earlier != null && spends != credits ? FreeBecause(earlier.why) : "";
            id = quoted.quote_id ?? "";
            body = request.ToString();
            var message = free != ""
                ? EarlierNote(earlier, credits)
                : $"This will cost {spends} credits. Press Animate to go ahead.";
            if (quoted.balance >= 0)
                message += $"\nBalance {quoted.balance} credits";
            if (quoted.budget.per_job >= 0)
                message += $"; budget {quoted.budget.per_job} a job";
            if (quoted.budget.per_day >= 0)
                message += $", {quoted.budget.per_day} a day ({quoted.budget.spent_today} spent today)";
            if (replaceAgreed)
                message += "\nYour changed files will be moved aside (.companion-replaced~), not deleted.";
            var replaced = ReplacesNote(quoted.replaces ?? new ReplacedFile[0]);
            if (replaced != "")
                message += "\n" + replaced;
            if (quoted.budget.over)
                message += "\nThis is over your budget: the job will wait for your approval.";
            if (cutNote != "")
                message += "\n" + cutNote;
            return message;
        }

        /// <summary>The Animate button's label: its spend, "free: already made" when an
        /// earlier job answers it, or the price.</summary>
        public string ButtonLabel() =>
            credits < 0 ? "Animate" : free != "" ? $"Animate (free: {free})" : $"Animate ({spends} credits)";

        /// <summary>Why Animate spends nothing (the daemon's earlier.why), for the button.</summary>
        public static string FreeBecause(string why) =>
            why == "made" ? "already made"
            : why == "under_way" ? "under way"
            : why == "paid_not_installed" ? "install what was paid for"
            : why == "recut" ? "re-cut of the kept clip"
            : "nothing spent";

        /// <summary>
        /// Which earlier job answers Animate, free, and what a new one costs: "Nothing is
        /// spent: job abc12345 already made exactly this ... Generations > Generate again
        /// makes a new one at 9 credits."
        /// </summary>
        public static string EarlierNote(EarlierJob earlier, int price)
        {
            var job = earlier.id.Length > 8 ? earlier.id.Substring(0, 8) : earlier.id;
            var what = earlier.why == "made"
                ? "already made exactly this, and its files are still in place. Press Animate to show it"
                : earlier.why == "under_way"
                ? "is making exactly this now. Press Animate to follow it"
                : earlier.why == "paid_not_installed"
                ? "was paid for, but its files did not all go in. Press Animate to install them, free"
                : earlier.why == "recut"
                ? "generated this picture, prompt and video options, and its clip is kept. Press " +
                    "Animate to re-cut it with these frames, size and formats, free"
                : "answers exactly this. Press Animate to show it";
            return $"Nothing is spent: job {job} {what}.\nGenerations > Generate again makes a new one " +
                $"at {price} credits.";
        }

        /// <summary>
        /// The files of an earlier job of this name the install replaces unasked (unchanged
        /// since), said before anything is paid: "Replaces Assets/Animations/knight.anim and
        /// 2 more files (job abc12345, ...)"; "" when none.
        /// </summary>
        public static string ReplacesNote(ReplacedFile[] replaces)
        {
            if (replaces.Length == 0)
                return "";
            // The playable clip (or SpriteFrames) names it best.
            var first = replaces.FirstOrDefault(r => r.path.EndsWith(".anim") || r.path.EndsWith(".tres"))
                ?? replaces[0];
            var full = Path.GetFullPath(first.path).Replace('\\', '/');
            var root = Path.GetFullPath(CompanionWindow.ProjectRoot()).Replace('\\', '/').TrimEnd('/') + "/";
            var shown = full.StartsWith(root, StringComparison.OrdinalIgnoreCase)
                ? full.Substring(root.Length)
                : Path.GetFileName(full);
            var others = replaces.Length - 1;
            var more = others == 0 ? "" : $" and {others} more file{(others == 1 ? "" : "s")}";
            var job = first.job.Length > 8 ? first.job.Substring(0, 8) : first.job;
            return $"Replaces {shown}{more} (job {job}, from an earlier generation; " +
                "Generations > Import brings it back)";
        }

        const int Replace = 0, Keep = 1, UseName = 2;

        /// <summary>
        /// The install would replace files the user changed: ask, never replace unasked;
        /// the free name, when the daemon found one, is the third answer.
        /// </summary>
        static int AskReplace(KeptFile[] conflicts, string free)
        {
            var text = string.Join("\n", conflicts.Select(c => c.reason)) +
                "\n\nReplace them? Yours are moved to .companion-replaced~ beside them, not deleted.";
            if (free == "")
                return EditorUtility.DisplayDialog("Replace your changed files?", text, "Replace", "Keep mine")
                    ? Replace : Keep;
            return EditorUtility.DisplayDialogComplex("Replace your changed files?",
                text + $"\nOr name this animation {free}: that name is free.",
                "Replace", "Keep mine", $"Use name {free}");
        }
    }
}
