"""Pixel art kept pixel art: the art recognised in a picture (its grid, its palette, where
it stands), palettes read from files, and each decoded frame brought back to that grid
and palette with hard alpha."""
