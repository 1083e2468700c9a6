using System.Linq;
using UnityEditor;
using UnityEngine;

namespace Companion.Animate
{
    /// <summary>Assets > Animate... on a Texture2D opens the window with it chosen.</summary>
    public static class AnimateMenu
    {
        const string Item = "Assets/Animate...";

        [MenuItem(Item, false, 1000)]
        static void Animate()
        {
            AnimateWindow.Open(Selection.activeObject as Texture2D);
        }

        [MenuItem(Item, true)]
        static bool CanAnimate()
        {
            return Selection.activeObject is Texture2D;
        }

        const string BatchItem = "Assets/Animate as a batch...";

        /// <summary>Several pictures selected: one batch, one quote, one cap.</summary>
        [MenuItem(BatchItem, false, 1001)]
        static void AnimateBatch()
        {
            AnimateWindow.OpenBatch(Selection.objects.OfType<Texture2D>().ToArray());
        }

        [MenuItem(BatchItem, true)]
        static bool CanAnimateBatch()
        {
            return Selection.objects.OfType<Texture2D>().Count() >= 2;
        }
    }
}
