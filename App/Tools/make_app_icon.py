# Draws the app icon (App/Resources/Assets.xcassets/AppIcon.appiconset/AppIcon.png): an acorn, a scaly cap over a smooth nut, on a
# leaf-green field, 1024 x 1024 without transparency, as the App Store asks. Run: python3 App/Tools/make_app_icon.py
import math, struct, zlib
N = 1024
green_top, green_bottom = (46, 110, 62), (28, 74, 42)
nut, nut_shade = (214, 162, 92), (178, 124, 60)
cap, cap_dark = (112, 74, 42), (84, 54, 30)
stem = (84, 54, 30)
rows = []
for y in range(N):
    t = y / (N - 1)
    bg = tuple(round(a + (b - a) * t) for a, b in zip(green_top, green_bottom))
    row = bytearray([0])
    for x in range(N):
        c = bg
        dx = x - 512
        # The nut: an egg, wider at the top, pointed at the bottom.
        ny = (y - 600) / 300
        width = 230 * (1 - 0.25 * max(0, ny))
        if -1 <= ny <= 1 and abs(dx) <= width * math.sqrt(max(0, 1 - ny * ny)):
            light = 1 - 0.35 * max(0, (dx + 60) / 260)
            c = tuple(round(s + (n - s) * light) for n, s in zip(nut, nut_shade))
        # The cap: a dome over the nut's top, with rows of scales.
        cy = (y - 400) / 150
        if -1 <= cy <= 0.55 and abs(dx) <= 270 * math.sqrt(max(0, 1 - cy * cy)) + (10 if cy > 0 else 0):
            scale = (math.sin(dx / 22 + (y // 40) * 1.7) > 0.55) or (y % 40 < 5)
            c = cap_dark if scale else cap
        # The stem.
        if 200 <= y <= 262 and abs(dx - 10 - (262 - y) * 0.25) <= 18:
            c = stem
        row += bytes(c)
    rows.append(bytes(row))
raw = b"".join(rows)
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", N, N, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
open(__import__("os").path.join(__import__("os").path.dirname(__file__), "../Resources/Assets.xcassets/AppIcon.appiconset/AppIcon.png"), "wb").write(png)
