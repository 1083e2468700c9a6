using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// A character's moves, made from the window's picture and settings: the list (common
    /// moves offered with a prompt to edit; added, removed, each looping or not), one quote
    /// of the whole set (each move's price and the total, against the budget), Animate all
    /// (one press, which is also the one approval when the set is over a budget), progress
    /// per move, and one move made again alone (priced first). The daemon's /character
    /// routes do the work.
    /// </summary>
    public sealed class MovesPanel
    {
        static readonly string[] Common = { "idle", "walk", "run", "attack", "jump", "hurt", "other" };
        static readonly string[] Prompts =
        {
            "idle breathing, loop", "walk cycle, side view", "run cycle, side view",
            "sword slash attack", "jump up and land", "recoil from a hit", "",
        };
        // Moves that loop unless told, as the daemon decides them.
        static readonly string[] Looping = { "idle", "walk", "run", "fly", "swim", "float" };
        const double PollSeconds = 0.5;

        public sealed class Move
        {
            public string name = "";
            public string prompt = "";
            public bool loop;
            public bool loopTouched;
            public string price = "";
            public string jobId = "";
            public string state = "";
            public float progress;
            public bool Ended => state == "done" || state == "failed" || state == "cancelled";
        }

        public readonly List<Move> moves = new List<Move>();
        public string message = "";
        public bool open;
        int common;
        string quoteId = "";
        string quotedBody = "";
        int total = -1;
        bool over;
        Move again;
        string againQuote = "";
        bool againOver;
        double nextPoll;
        bool polling;

        public static bool Loops(string name) => Looping.Contains(name.Trim().ToLowerInvariant());

        public Move Add(string name, string prompt)
        {
            var move = new Move { name = name, prompt = prompt, loop = Loops(name) };
            moves.Add(move);
            Drop();
            return move;
        }

        public void Drop()
        {
            quoteId = "";
            quotedBody = "";
            total = -1;
            foreach (var move in moves)
                move.price = "";
        }

        /// <summary>Draws the list; the action pressed, for the window to run.</summary>
        public Func<AnimateForm, Task> Draw(bool busy)
        {
            open = EditorGUILayout.Foldout(open, "Character moves", true);
            if (!open)
                return null;
            Func<AnimateForm, Task> pressed = null;
            Move removed = null;
            foreach (var move in moves)
            {
                using (new EditorGUILayout.HorizontalScope())
                {
                    EditorGUI.BeginChangeCheck();
                    var name = EditorGUILayout.TextField(move.name, GUILayout.Width(70));
                    move.prompt = EditorGUILayout.TextField(move.prompt);
                    if (name != move.name && !move.loopTouched)
                        move.loop = Loops(name);
                    move.name = name;
                    var loop = EditorGUILayout.ToggleLeft("Loop", move.loop, GUILayout.Width(50));
                    move.loopTouched |= loop != move.loop;
                    move.loop = loop;
                    if (EditorGUI.EndChangeCheck())
                        Drop();
                    EditorGUILayout.LabelField(move.price, GUILayout.Width(90));
                    var bar = EditorGUILayout.GetControlRect(false, 18, GUILayout.Width(60));
                    EditorGUI.ProgressBar(bar, move.progress, move.state);
                    using (new EditorGUI.DisabledScope(busy || !move.Ended))
                        if (GUILayout.Button(again == move && againQuote != "" ? "Make" : "Again", GUILayout.Width(50)))
                        {
                            var chosen = move;
                            pressed = form => Again(form, chosen);
                        }
                    if (GUILayout.Button("Remove", GUILayout.Width(60)))
                        removed = move;
                }
            }
            if (removed != null)
            {
                moves.Remove(removed);
                Drop();
            }
            using (new EditorGUILayout.HorizontalScope())
            {
                common = EditorGUILayout.Popup(common, Common);
                if (GUILayout.Button("Add move", GUILayout.Width(80)))
                    Add(Common[common] == "other" ? "" : Common[common], Prompts[common]);
            }
            using (new EditorGUI.DisabledScope(busy || moves.Count == 0))
            using (new EditorGUILayout.HorizontalScope())
            {
                if (GUILayout.Button("Quote set"))
                    pressed = Quote;
                var label = total < 0 ? "Animate all"
                    : over ? $"Approve and animate all ({total} credits)" : $"Animate all ({total} credits)";
                using (new EditorGUI.DisabledScope(total < 0))
                    if (GUILayout.Button(label))
                        pressed = AnimateAll;
            }
            if (message != "")
                EditorGUILayout.HelpBox(message, MessageType.Info);
            return pressed;
        }

        /// <summary>
        /// The set as sent: the window's request (picture, size, formats, model...) with the
        /// character's name and the moves; a fixed seed is the set's, shared by every move.
        /// </summary>
        public Json Body(AnimateForm form, IEnumerable<Move> which, string quote = "", bool anew = false)
        {
            var name = form.animationName.Trim() != "" ? form.animationName.Trim() : form.source.name;
            var list = which.Select(m => new Json().Add("name", m.name.Trim())
                .Add("prompt", m.prompt.Trim()).Add("loop", m.loop));
            var body = form.Body(quote, false).Add("name", name).Add("moves", list);
            if (anew)
                body.Add("again", true);
            return body;
        }

        async Task Quote(AnimateForm form)
        {
            var body = Body(form, moves);
            var reply = await DaemonClient.Post("/api/v1/character/quote", body);
            if (!reply.Ok)
            {
                message = reply.Message;
                return;
            }
            var quoted = JsonUtility.FromJson<SetQuoteReply>(
                Json.Unset(reply.Body, "balance", "per_job", "per_day"));
            for (var i = 0; i < Math.Min(quoted.moves.Length, moves.Count); i++)
                moves[i].price = quoted.moves[i].Shown();
            quoteId = quoted.quote_id;
            quotedBody = body.ToString();
            total = quoted.spends;
            over = quoted.budget.over;
            var balance = quoted.balance >= 0 ? $" (balance {quoted.balance})" : "";
            message = $"{moves.Count} moves: {total} credits in all{balance}."
                + (over ? "\nThe set is over your budget as a whole: Animate all approves it once."
                    : " Press Animate all to go ahead.");
        }

        async Task AnimateAll(AnimateForm form)
        {
            if (Body(form, moves).ToString() != quotedBody)
            {
                Drop();
                await Quote(form);
                return;
            }
            var sent = Body(form, moves, quoteId);
            if (over)
                sent.Add("approve", true); // the user saw "Approve and animate all"
            Drop();
            await Start(sent, moves.ToList());
        }

        async Task Start(Json sent, List<Move> which)
        {
            var reply = await DaemonClient.Post("/api/v1/character", sent);
            if (!reply.Ok)
            {
                message = reply.Message;
                return;
            }
            var started = JsonUtility.FromJson<SetReply>(reply.Body);
            for (var i = 0; i < Math.Min(started.moves.Length, which.Count); i++)
            {
                which[i].jobId = started.moves[i].job.id;
                which[i].state = started.moves[i].job.state;
                which[i].progress = started.moves[i].job.progress;
            }
            message = $"Animating {which.Count} moves...";
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
        }

        /// <summary>First press: this move alone, a new take, priced; second: made.</summary>
        async Task Again(AnimateForm form, Move move)
        {
            var one = new[] { move };
            if (again != move || againQuote == "")
            {
                var reply = await DaemonClient.Post("/api/v1/character/quote", Body(form, one, "", true));
                if (!reply.Ok)
                {
                    message = reply.Message;
                    return;
                }
                var quoted = JsonUtility.FromJson<SetQuoteReply>(Json.Unset(reply.Body, "balance", "per_job", "per_day"));
                again = move;
                againQuote = quoted.quote_id;
                againOver = quoted.budget.over;
                message = $"{move.name} again: {quoted.spends} credits. Press Make to go ahead.";
                return;
            }
            var sent = Body(form, one, againQuote, true);
            if (againOver)
                sent.Add("approve", true); // "Make" with its price shown is the approval
            again = null;
            againQuote = "";
            await Start(sent, one.ToList());
        }

        /// <summary>Whether a poll is due: a move runs and none is being read.</summary>
        public bool Due() => !polling && EditorApplication.timeSinceStartup >= nextPoll
            && moves.Any(m => m.jobId != "" && !m.Ended);

        /// <summary>Each running move's job read once; the resource of a done one when all ended.</summary>
        public async Task<string> Poll()
        {
            polling = true;
            nextPoll = EditorApplication.timeSinceStartup + PollSeconds;
            var resource = "";
            try
            {
                foreach (var move in moves.Where(m => m.jobId != "" && !m.Ended).ToList())
                {
                    var jobId = move.jobId;
                    var reply = await DaemonClient.Get($"/api/v1/jobs/{jobId}");
                    if (!reply.Ok)
                        continue;
                    var job = JsonUtility.FromJson<JobReply>(reply.Body);
                    move.state = job.state;
                    move.progress = job.progress;
                    if (job.state == "done" && !string.IsNullOrEmpty(job.resource))
                        resource = job.resource;
                }
            }
            finally
            {
                polling = false;
            }
            if (moves.Any(m => m.jobId != "" && !m.Ended))
                return "";
            var started = moves.Where(m => m.jobId != "").ToList();
            message = $"{started.Count(m => m.state == "done")} of {started.Count} moves done.";
            return resource;
        }
    }

    /// <summary>One move of a set's quote: its own quote, as /quote gives it for the move.</summary>
    [Serializable]
    public sealed class MoveQuote
    {
        public string move = "";
        public bool loop;
        public QuoteReply quote = new QuoteReply();

        public string Shown() => quote.spends == 0 && quote.credits > 0 ? "0 — already made" : $"{quote.spends} credits";
    }

    /// <summary>A character's quote: each move's, the set made anew (credits) and what
    /// Animate all spends now (spends), held to the budget once.</summary>
    [Serializable]
    public sealed class SetQuoteReply
    {
        public MoveQuote[] moves = new MoveQuote[0];
        public int credits;
        public int spends;
        public string quote_id = "";
        public int balance = -1;
        public BudgetReply budget = new BudgetReply();
    }

    /// <summary>One move of a started set: its job, as GET /api/v1/jobs/{id} shows it.</summary>
    [Serializable]
    public sealed class MoveStarted
    {
        public string move = "";
        public JobReply job = new JobReply();
    }

    [Serializable]
    public sealed class SetReply
    {
        public MoveStarted[] moves = new MoveStarted[0];
    }
}
