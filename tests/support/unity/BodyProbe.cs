// Prints, one JSON object a line, what the package's own code writes for a request:
// run by tests/engines/unity/test_unity_compile.py under Mono, which holds each to the daemon's schema.
using System;
using System.Linq;
using System.Reflection;
using Companion.Animate;
using UnityEngine;

public static class BodyProbe
{
    static void Set(object target, string field, object value) =>
        target.GetType().GetField(field, BindingFlags.NonPublic | BindingFlags.Instance).SetValue(target, value);

    static void Call(object target, string method) =>
        target.GetType().GetMethod(method, BindingFlags.NonPublic | BindingFlags.Instance).Invoke(target, null);

    static Texture2D Picture(string path) => new Texture2D(2, 2) { name = path };

    static void Print(AdvancedOptions options, float seconds = 2f)
    {
        var body = new Json();
        var video = options.Video(seconds); // as the window writes it
        options.AddTo(body, video);
        Console.WriteLine(body.Add("video", video).ToString());
    }

    public static void Main()
    {
        Console.WriteLine(new Json()
            .Add("text", "a \"quote\", a \\ back, \n\r\t, a bell \u0007, é and 飛")
            .Add("tenth", 0.1).Add("big", 4294967295L).Add("yes", true)
            .Add("list", new[] { "x", "y" }).Add("seeds", new long[] { 1, 2 })
            .Add("inner", new Json().Add("k", "v")).ToString());
        Console.WriteLine(Json.Unset("{\"balance\": null, \"budget\": {\"per_job\": null, \"per_day\": 5}}",
            "balance", "per_job", "per_day"));

        var full = new ModelInfo
        {
            id = "sandbox-motion-1", supports_last_frame = true, max_reference_images = 2,
            supports_negative_prompt = true, durations_seconds = new[] { 10f, 1f, 2f, 3f, 4f, 5f, 6f, 8f },
            resolutions = new[] { "360p", "480p" }, transparency_modes = new[] { "standard", "alpha_key" },
            style_presets = new[] { "none", "pixel_art", "cartoon" },
        };
        var lite = new ModelInfo
        {
            id = "sandbox-motion-lite", max_reference_images = 1, durations_seconds = new[] { 1f, 2f, 3f, 4f },
            resolutions = new[] { "360p" }, transparency_modes = new[] { "standard" },
            style_presets = new[] { "none" },
        };
        var options = new AdvancedOptions();
        Print(options); // no listing yet: nothing added
        options.Models.Add(full);
        options.Models.Add(lite);
        Print(options); // the listing's first model, nothing else set
        Set(options, "fixedSeed", true);
        Set(options, "seed", 7L);
        Set(options, "resolution", 2);
        Set(options, "style", 1);
        Set(options, "transparent", true);
        Set(options, "chooseKey", true);
        Set(options, "key", Color.green);
        Set(options, "lastFrame", Picture("Assets/Art/hero.png"));
        var references = (System.Collections.Generic.List<Texture2D>)options.GetType()
            .GetField("references", BindingFlags.NonPublic | BindingFlags.Instance).GetValue(options);
        references.Add(Picture("Assets/Art/coin.png"));
        references.Add(null); // an empty row the user added
        references.Add(Picture("Assets/Art/slime.png"));
        Set(options, "negativePrompt", "  blurry ");
        Print(options); // every option of the full model
        Print(options, 7f); // a length the model does not list: the nearest listed is written
        Print(options, 9f);
        Set(options, "model", 1);
        Call(options, "Fit"); // as Draw does when the user picks the lite model
        Print(options);
        Print(options, 7f);
        Console.WriteLine(new Json().Add("lengths", options.Lengths().Select(l => (double)l)));

        // The re-cut form of a generation: its own settings first, then a range clicked on
        // a contact sheet of four cells over a 2 s clip.
        var row = new GenerationReply { id = "g1", name = "hero", clip = new ClipReply { kept = true, duration_seconds = 2f } };
        row.settings.export = new ExportBody
        {
            frame_count = 8, output_width = 128, output_height = 96,
            output_formats = new[] { "spritesheet", "spritesheet_json", "unity_pack" },
        };
        var recut = new RecutPanel();
        recut.Show(row);
        Console.WriteLine(recut.Body(row)); // the whole clip, as it was made
        var cells = new ContactCell[4];
        for (var i = 0; i < cells.Length; i++)
            cells[i] = new ContactCell { index = i, rect = new[] { i * 10, 0, 10, 10 }, source_time_seconds = i * 0.5f };
        Set(recut, "sheet", new ContactSheetReply { width = 40, height = 10, cells = cells });
        recut.Pick(1);
        recut.Pick(2);
        Console.WriteLine(recut.Body(row)); // cells 1 to 2: 0.5 s for 1 s
        recut.Pick(3);
        Console.WriteLine(recut.Body(row)); // a third click starts anew: the last cell to the end

        // The Animate form with a name in another script (as the user typed it, spaces trimmed).
        var form = new AnimateForm { source = Picture("Assets/Art/hero.png"), prompt = "walk", animationName = " héros_飛 " };
        Console.WriteLine(form.Body());
        // In place unticked, Loop ticked: sent as set (the Trim box left as it was shown).
        form.ChooseFinishing(false, true, true);
        Console.WriteLine(form.Body());

        // The quote's replaces, as the window says them under the price (plain lines).
        var earlier = new[] { "hero.png", "hero.anim", "hero.png.meta" }.Select(n => new ReplacedFile
            { path = "/game/Assets/Animations/" + n, job = "abcdef1234567890", name = "hero" }).ToArray();
        Console.WriteLine(AnimateQuote.ReplacesNote(earlier));
        Console.WriteLine(AnimateQuote.ReplacesNote(earlier.Take(1).ToArray()));
        Console.WriteLine("[" + AnimateQuote.ReplacesNote(new ReplacedFile[0]) + "]");

        // A character's set (the form's Name names it) and a batch of two pictures.
        var moves = new MovesPanel();
        moves.Add("idle", "idle breathing");
        moves.Add("attack", " sword slash ");
        Console.WriteLine(moves.Body(form, moves.moves));
        var batch = new BatchPanel();
        batch.Choose(new[] { Picture("Assets/Art/hero.png"), Picture("Assets/Art/coin.png") });
        Console.WriteLine(batch.Body(form));
    }
}
