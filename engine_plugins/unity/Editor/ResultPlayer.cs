using System.Collections.Generic;
using System.Linq;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>
    /// Plays the latest result in the window: the clip's sprites in order, at the clip's
    /// frame rate, drawn from their sheet, so the user sees it move without a scene.
    /// </summary>
    public sealed class ResultPlayer
    {
        readonly List<Sprite> sprites = new List<Sprite>();
        float frameRate = 12f;
        double started;

        public int FrameCount => sprites.Count;

        public void Stop() => sprites.Clear();

        public void Play(string clipPath)
        {
            sprites.Clear();
            if (string.IsNullOrEmpty(clipPath))
                return;
            var clip = AssetDatabase.LoadAssetAtPath<AnimationClip>(clipPath);
            if (clip == null)
                return;
            frameRate = clip.frameRate > 0f ? clip.frameRate : 12f;
            foreach (var binding in AnimationUtility.GetObjectReferenceCurveBindings(clip))
            {
                var keys = AnimationUtility.GetObjectReferenceCurve(clip, binding);
                sprites.AddRange(keys.Select(k => k.value).OfType<Sprite>());
                break;
            }
            started = EditorApplication.timeSinceStartup;
        }

        public void Tick(EditorWindow window)
        {
            if (sprites.Count > 1)
                window.Repaint();
        }

        public void Draw(Rect box)
        {
            if (sprites.Count == 0)
                return;
            var index = (int)((EditorApplication.timeSinceStartup - started) * frameRate) % sprites.Count;
            var sprite = sprites[index];
            var texture = sprite.texture;
            var r = sprite.textureRect;
            var uv = new Rect(r.x / texture.width, r.y / texture.height, r.width / texture.width,
                r.height / texture.height);
            var scale = Mathf.Min(box.width / r.width, box.height / r.height);
            var size = new Vector2(r.width * scale, r.height * scale);
            var drawn = new Rect(box.center - size / 2f, size);
            GUI.DrawTextureWithTexCoords(drawn, texture, uv);
        }
    }
}
