#!/usr/bin/env python3
"""Rewrite PNG plots as 256-colour palette images (Pillow), in place.

Usage: python3 bench/compact_png.py FILE.png ... (or no arguments: every PNG git tracks)

Matplotlib's RGBA plots shrink to about a third this way with no visible change. The device
tool copies the working tree only up to 64 MiB, so committed plots are kept small. A file that is
already a palette image, or that would not get smaller, is left as it is.
"""
import io
import os
import subprocess
import sys

from PIL import Image


def compact(path):
    """Bytes saved (0 when the file is left alone)."""
    with Image.open(path) as im:
        if im.mode == "P":
            return 0
        buf = io.BytesIO()
        im.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(
            buf, "PNG", optimize=True
        )
    before = os.path.getsize(path)
    if buf.tell() >= before:
        return 0
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return before - buf.tell()


def main(paths):
    if not paths:
        paths = subprocess.check_output(["git", "ls-files", "*.png"], text=True).split()
    saved = sum(compact(p) for p in paths)
    print(f"compact_png: {len(paths)} files, {saved / 1e6:.1f} MB saved")


if __name__ == "__main__":
    main(sys.argv[1:])
