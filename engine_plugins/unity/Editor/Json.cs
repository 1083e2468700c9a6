using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

namespace Companion.Animate
{
    /// <summary>
    /// A JSON object written field by field. JsonUtility writes every field of a class, so
    /// an option the user left unset would reach the daemon as set (a seed of 0, an empty
    /// model); a body built here carries only what was added.
    /// </summary>
    public sealed class Json
    {
        readonly List<string> fields = new List<string>();

        public Json Add(string key, string value) => Raw(key, Quote(value));

        public Json Add(string key, bool value) => Raw(key, value ? "true" : "false");

        public Json Add(string key, long value) => Raw(key, value.ToString(CultureInfo.InvariantCulture));

        public Json Add(string key, double value) => Raw(key, Number(value));

        public Json Add(string key, Json value) => Raw(key, value.ToString());

        public Json Add(string key, IEnumerable<string> values) =>
            Raw(key, "[" + string.Join(",", values.Select(Quote)) + "]");

        public Json Add(string key, IEnumerable<long> values) =>
            Raw(key, "[" + string.Join(",", values.Select(v => v.ToString(CultureInfo.InvariantCulture))) + "]");

        public Json Add(string key, IEnumerable<Json> values) =>
            Raw(key, "[" + string.Join(",", values.Select(v => v.ToString())) + "]");

        public Json Add(string key, IEnumerable<double> values) =>
            Raw(key, "[" + string.Join(",", values.Select(Number)) + "]");

        /// <summary>This object without key (a field it holds is taken out).</summary>
        public Json Without(string key)
        {
            fields.RemoveAll(field => field.StartsWith(Quote(key) + ":"));
            return this;
        }

        Json Raw(string key, string json)
        {
            fields.Add(Quote(key) + ":" + json);
            return this;
        }

        public override string ToString() => "{" + string.Join(",", fields) + "}";

        /// <summary>
        /// A reply with these numbers' nulls as -1: JsonUtility has no null for a number, so
        /// the fields keep -1 for "not given".
        /// </summary>
        public static string Unset(string reply, params string[] keys)
        {
            foreach (var key in keys)
                reply = Regex.Replace(reply, "\"" + Regex.Escape(key) + "\"\\s*:\\s*null", "\"" + key + "\": -1");
            return reply;
        }

        static string Number(double value) => value.ToString("R", CultureInfo.InvariantCulture);

        public static string Quote(string text)
        {
            var quoted = new StringBuilder("\"");
            foreach (var c in text ?? "")
            {
                switch (c)
                {
                    case '"': quoted.Append("\\\""); break;
                    case '\\': quoted.Append("\\\\"); break;
                    case '\n': quoted.Append("\\n"); break;
                    case '\r': quoted.Append("\\r"); break;
                    case '\t': quoted.Append("\\t"); break;
                    default:
                        if (c < ' ')
                            quoted.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else
                            quoted.Append(c);
                        break;
                }
            }
            return quoted.Append('"').ToString();
        }
    }
}
