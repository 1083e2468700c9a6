using System;
using System.Linq;
using System.Threading.Tasks;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// A free re-cut of a generation's kept video: other frames, size, pixel art, padding or
    /// name, over the whole clip or a range picked on its contact sheet (click the first
    /// and the last cell). Nothing is spent; the daemon says when the video is no longer kept.
    /// </summary>
    public sealed class RecutPanel
    {
        public enum Press { None, Sheet, Recut }

        const int SheetCells = 8;
        const float SheetWidth = 360f;
        // Drawn up to 3 times bigger, so a frame's pose and time can be read.
        float zoom = 1f;

        string shownFor = "";
        int frames = 12;
        int width = 256;
        int height = 256;
        bool pixelArt;
        int padding;
        string name = "";
        ContactSheetReply sheet;
        Texture2D sheetTexture;
        int first = -1;
        int last = -1;

        /// <summary>Starts from the generation's own settings when another one is picked.</summary>
        public void Show(GenerationReply row)
        {
            if (row.id == shownFor)
                return;
            shownFor = row.id;
            if (row.settings.export.frame_count > 0)
                frames = row.settings.export.frame_count;
            width = row.settings.export.output_width;
            height = row.settings.export.output_height;
            name = row.name;
            pixelArt = false;
            padding = 0;
            DropSheet();
        }

        void DropSheet()
        {
            sheet = null;
            first = last = -1;
            if (sheetTexture != null)
                UnityEngine.Object.DestroyImmediate(sheetTexture);
            sheetTexture = null;
        }

        public Press Draw(GenerationReply row, bool busy)
        {
            Show(row);
            if (!row.clip.kept)
            {
                EditorGUILayout.HelpBox(
                    "The paid video of this generation is no longer kept, so it cannot be " +
                    "re-cut: Generate again makes it anew.", MessageType.None);
                return Press.None;
            }
            // Bounds are the daemon's: it names the field it refuses.
            frames = Mathf.Max(1, EditorGUILayout.IntField("Frames", frames));
            width = Mathf.Max(1, EditorGUILayout.IntField("Width", width));
            height = Mathf.Max(1, EditorGUILayout.IntField("Height", height));
            pixelArt = EditorGUILayout.Toggle("Pixel art", pixelArt);
            padding = Mathf.Max(0, EditorGUILayout.IntField("Padding", padding));
            name = EditorGUILayout.TextField("Name", name);
            if (sheetTexture != null)
                DrawSheet();
            using (new EditorGUILayout.HorizontalScope())
            {
                EditorGUILayout.LabelField(RangeText(row), EditorStyles.wordWrappedLabel);
                using (new EditorGUI.DisabledScope(first < 0))
                    if (GUILayout.Button("Whole clip", GUILayout.Width(80)))
                        first = last = -1;
            }
            var press = Press.None;
            using (new EditorGUI.DisabledScope(busy))
            using (new EditorGUILayout.HorizontalScope())
            {
                if (GUILayout.Button("Contact sheet"))
                    press = Press.Sheet;
                if (GUILayout.Button("Re-cut (free)"))
                    press = Press.Recut;
            }
            return press;
        }

        void DrawSheet()
        {
            zoom = EditorGUILayout.Slider("Zoom", zoom, 1f, 3f);
            var drawn = SheetWidth * zoom;
            var scale = drawn / Mathf.Max(1, sheet.width);
            var box = GUILayoutUtility.GetRect(drawn, sheet.height * scale, GUILayout.Width(drawn));
            GUI.DrawTexture(box, sheetTexture, ScaleMode.StretchToFill);
            for (var i = 0; i < sheet.cells.Length; i++)
            {
                var cell = CellRect(box, scale, sheet.cells[i]);
                if (first >= 0 && i >= Math.Min(first, last) && i <= Math.Max(first, last))
                    EditorGUI.DrawRect(cell, new Color(0.2f, 0.6f, 1f, 0.35f));
                var click = Event.current;
                if (click.type == EventType.MouseDown && cell.Contains(click.mousePosition))
                {
                    Pick(i);
                    click.Use();
                }
            }
        }

        static Rect CellRect(Rect box, float scale, ContactCell cell) =>
            cell.rect.Length < 4
                ? new Rect(0, 0, 0, 0)
                : new Rect(box.x + cell.rect[0] * scale, box.y + cell.rect[1] * scale,
                    cell.rect[2] * scale, cell.rect[3] * scale);

        /// <summary>The first click starts a range, the second ends it; a third starts anew.</summary>
        public void Pick(int cell)
        {
            if (first < 0 || first != last)
                first = last = cell;
            else
                last = cell;
        }

        /// <summary>Seconds into the clip the range starts at and lasts; null: the whole clip.</summary>
        public float[] Range(GenerationReply row)
        {
            if (sheet == null || first < 0)
                return null;
            var a = Math.Min(first, last);
            var b = Math.Max(first, last);
            var start = sheet.cells[a].source_time_seconds;
            var end = b + 1 < sheet.cells.Length ? sheet.cells[b + 1].source_time_seconds : Duration(row);
            return end > start ? new[] { start, end - start } : null;
        }

        string RangeText(GenerationReply row)
        {
            var range = Range(row);
            if (range == null)
                return sheet == null
                    ? "Range: the whole clip (make a contact sheet to pick one)"
                    : "Range: the whole clip (click a first and a last cell)";
            return $"Range: {range[0]:0.##} s for {range[1]:0.##} s";
        }

        static float Duration(GenerationReply row) =>
            row.clip.duration_seconds > 0f ? row.clip.duration_seconds : row.settings.video.duration_seconds;

        /// <summary>A labelled sheet of the kept clip at evenly spaced times (free, local).</summary>
        public async Task<string> MakeSheet(GenerationReply row)
        {
            var id = row.id;
            var step = Duration(row) / SheetCells;
            var times = Enumerable.Range(0, SheetCells).Select(i => (double)(i * step));
            var reply = await DaemonClient.Post($"/api/v1/generations/{id}/contact_sheet",
                new Json().Add("times", times));
            if (!reply.Ok)
                return reply.Message;
            var made = JsonUtility.FromJson<ContactSheetReply>(reply.Body);
            // Only the daemon's own picture of this generation is fetched.
            if (!made.image.StartsWith($"/api/v1/generations/{id}/contact_sheet.png"))
                return "The daemon gave no contact sheet.";
            var picture = await DaemonClient.Get(made.image);
            if (!picture.Ok)
                return picture.Message;
            DropSheet();
            sheet = made;
            sheetTexture = new Texture2D(2, 2);
            if (!ImageConversion.LoadImage(sheetTexture, picture.Data))
            {
                DropSheet();
                return "The contact sheet could not be read.";
            }
            return "Click the first and the last cell of the range to re-cut.";
        }

        /// <summary>The re-cut as the form says: the generation's formats, the range picked.</summary>
        public Json Body(GenerationReply row)
        {
            var export = new Json()
                .Add("frame_count", frames)
                .Add("output_width", width)
                .Add("output_height", height);
            if (row.settings.export.output_formats.Length > 0) // else the daemon's default
                export.Add("output_formats", row.settings.export.output_formats);
            var body = new Json()
                .Add("export", export)
                .Add("name", name.Trim() == "" ? row.name : name.Trim())
                .Add("pixel_art", pixelArt)
                .Add("padding", padding);
            var range = Range(row);
            if (range != null)
                body.Add("selection", new Json()
                    .Add("mode", "range")
                    .Add("start_seconds", range[0])
                    .Add("duration_seconds", range[1]));
            return body;
        }

        /// <summary>Re-cuts into the generation's folder; nothing is spent.</summary>
        public async Task<string> Recut(GenerationReply row)
        {
            var id = row.id;
            var body = Body(row);
            var reply = await DaemonClient.Post($"/api/v1/generations/{id}/recut", body);
            return reply.Ok
                ? "Re-cut started: the kept video is exported again here, nothing is spent."
                : reply.Message;
        }
    }
}
