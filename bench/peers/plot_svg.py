"""Draws bench/peers results as SVG, on the standard library only (no plotting package).

  plot_svg.py RESULTS.csv OUT.svg

One panel per p: bus bandwidth (GB/s, nccl-tests' convention) against message size, both
axes logarithmic, one line per variant (ringlab's out-of-place results solid, peers dashed).
A point whose result had wrong elements is drawn as a red cross, never left out.
"""

import csv
import math
import statistics
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

# ringlab's transports in strong colours, solid; each peer library in a colour of its own, its
# variants told apart by the dash pattern.
RINGLAB_COLOURS = {"inproc": "#1f77b4", "shm": "#2ca02c", "tcp": "#d62728", "mpi": "#9467bd"}
PEER_COLOURS = {"openmpi": "#17becf", "mpich": "#8c8c00", "gloo": "#ff7f0e", "torch": "#000000"}
OTHER_COLOURS = ["#8c564b", "#e377c2", "#7f7f7f", "#393b79"]
DASHES = ["6,3", "2,2", "9,3,2,3", "1,4"]
PANEL_W, PANEL_H = 520, 380
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 70, 20, 40, 60
LEGEND_W = 300


def size_text(n):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale:
            return f"{n // scale}{unit}"
    return f"{n}B"


def load(path):
    rounds = defaultdict(list)  # (p, label, size) -> [(time_us, right)], one per round (PEERS_ROUNDS)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r["time_us"] or not r["size_bytes"] or r["variant"].endswith("/in-place"):
                continue
            rounds[(int(r["p"]), f"{r['peer']}:{r['variant']}", int(r["size_bytes"]))].append(
                (float(r["time_us"]), r["wrong"] == "0"))
    series = defaultdict(list)  # (p, label) -> [(size, busbw, right)]
    for (p, label, size), times in sorted(rounds.items()):
        # The median over rounds, as the table's times; wrong if any round was.
        time_us = statistics.median(t for t, _ in times)
        # From the time rather than the rounded CSV column; p = 1 has no bus bandwidth.
        busbw = size / (time_us * 1e3) * 2 * (p - 1) / p if time_us > 0 else 0
        if busbw > 0:
            series[(p, label)].append((size, busbw, all(right for _, right in times)))
    return series


def draw(series, out_path, title):
    ps = sorted({p for p, _ in series})
    labels = sorted({label for _, label in series}, key=lambda s: (not s.startswith("ringlab:"), s))
    color, dash = {}, {}
    seen = {}
    for label in labels:
        peer, variant = label.split(":", 1)
        if peer == "ringlab":
            color[label] = RINGLAB_COLOURS.get(variant, OTHER_COLOURS[len(color) % len(OTHER_COLOURS)])
            dash[label] = ""
        else:
            color[label] = PEER_COLOURS.get(peer, OTHER_COLOURS[len(color) % len(OTHER_COLOURS)])
            dash[label] = f' stroke-dasharray="{DASHES[seen.get(peer, 0) % len(DASHES)]}"'
            seen[peer] = seen.get(peer, 0) + 1
    points = [pt for pts in series.values() for pt in pts]
    if not points:
        sys.exit("plot_svg.py: no measured rows to draw")
    x_lo = math.log2(min(s for s, _, _ in points))
    x_hi = max(math.log2(max(s for s, _, _ in points)), x_lo + 1)
    y_lo = math.floor(math.log10(min(b for _, b, _ in points)))
    y_hi = max(math.ceil(math.log10(max(b for _, b, _ in points))), y_lo + 1)
    width = PANEL_W * len(ps) + LEGEND_W
    height = PANEL_H + 30
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="18" font-size="13" font-weight="bold">{escape(title)}</text>']
    plot_w = PANEL_W - MARGIN_L - MARGIN_R
    plot_h = PANEL_H - MARGIN_T - MARGIN_B
    for k, p in enumerate(ps):
        ox, oy = k * PANEL_W + MARGIN_L, 30 + MARGIN_T

        def px(size):
            return ox + (math.log2(size) - x_lo) / (x_hi - x_lo) * plot_w

        def py(bw):
            return oy + plot_h - (math.log10(bw) - y_lo) / (y_hi - y_lo) * plot_h

        svg.append(f'<text x="{ox + plot_w / 2}" y="{oy - 10}" text-anchor="middle" font-size="12" '
                   f'font-weight="bold">p = {p}</text>')
        svg.append(f'<rect x="{ox}" y="{oy}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444"/>')
        for e in range(y_lo, y_hi + 1):
            y = py(10.0 ** e)
            svg.append(f'<line x1="{ox}" y1="{y:.1f}" x2="{ox + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
            svg.append(f'<text x="{ox - 6}" y="{y + 4:.1f}" text-anchor="end">{10.0 ** e:g}</text>')
        tick = math.ceil(x_lo)
        while tick <= x_hi:
            x = px(2 ** tick)
            svg.append(f'<line x1="{x:.1f}" y1="{oy}" x2="{x:.1f}" y2="{oy + plot_h}" stroke="#eee"/>')
            svg.append(f'<text x="{x:.1f}" y="{oy + plot_h + 16}" text-anchor="middle">{size_text(2 ** tick)}</text>')
            tick += 4 if x_hi - x_lo > 12 else 2
        svg.append(f'<text x="{ox + plot_w / 2}" y="{oy + plot_h + 36}" text-anchor="middle">'
                   'message size (bytes, log)</text>')
        svg.append(f'<text transform="translate({ox - 52},{oy + plot_h / 2}) rotate(-90)" text-anchor="middle">'
                   'busbw GB/s (algbw x 2(p-1)/p, log)</text>')
        for label in labels:
            pts = sorted(series.get((p, label), []))
            if not pts:
                continue
            wide = 2.2 if label.startswith("ringlab:") else 1.6
            path = " ".join(f"{px(s):.1f},{py(b):.1f}" for s, b, _ in pts)
            svg.append(f'<polyline points="{path}" fill="none" stroke="{color[label]}" stroke-width="{wide}"{dash[label]}>'
                       f'<title>{escape(label)}</title></polyline>')
            for s, b, right in pts:
                x, y = px(s), py(b)
                if right:
                    svg.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.2" fill="{color[label]}"/>')
                else:
                    svg.append(f'<path d="M{x - 5:.1f},{y - 5:.1f}L{x + 5:.1f},{y + 5:.1f}M{x - 5:.1f},{y + 5:.1f}'
                               f'L{x + 5:.1f},{y - 5:.1f}" stroke="red" stroke-width="2"/>')
    lx, ly = PANEL_W * len(ps) + 10, 30 + MARGIN_T
    for i, label in enumerate(labels):
        y = ly + i * 18
        svg.append(f'<line x1="{lx}" y1="{y}" x2="{lx + 28}" y2="{y}" stroke="{color[label]}" stroke-width="2"{dash[label]}/>')
        svg.append(f'<text x="{lx + 34}" y="{y + 4}">{escape(label)}</text>')
    y = ly + len(labels) * 18 + 10
    svg.append(f'<text x="{lx}" y="{y}" fill="red">x = result had wrong elements</text>')
    svg.append("</svg>")
    with open(out_path, "w") as f:
        f.write("\n".join(svg) + "\n")


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    draw(load(argv[0]), argv[1], "AllReduce float32 sum, one host: ringlab and its peers")


if __name__ == "__main__":
    main(sys.argv[1:])
