#!/usr/bin/python3
"""SVG of tools/ddp_bucket_check.py results: measured DDP iteration time per bucket_cap_mb (median
and 95% CI over rounds) against the planner's predictions (measured gloo AllReduce, and the link
model from point-to-point numbers).

    /usr/bin/python3 tools/plot_bucket_check.py DIR/results.json OUT.svg "title"
"""
import json
import math
import sys


def main():
    results, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = sorted(json.load(open(results))["rows"], key=lambda r: r["cap_mb"])
    values = [v for r in rows for v in (r["ci95_s"][1], r["predicted_s"], r["predicted_link_s"])]
    top = max(values) * 1.1
    w, h, left, bottom = 760, 360, 70, 300
    x = lambda i: left + (i + 0.5) * (w - left - 20) / len(rows)  # noqa: E731
    y = lambda s: bottom - (bottom - 40) * s / top  # noqa: E731
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>', f'<text x="10" y="20" font-size="14">{title}</text>']
    for k in range(6):
        s = top * k / 5
        svg.append(f'<line x1="{left}" x2="{w - 20}" y1="{y(s):.1f}" y2="{y(s):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y(s) + 4:.1f}" text-anchor="end">{s * 1e3:.0f} ms</text>')
    for i, r in enumerate(rows):
        lo, hi = r["ci95_s"]
        svg.append(f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(lo):.1f}" y2="{y(hi):.1f}" stroke="black" stroke-width="2"/>')
        svg.append(f'<circle cx="{x(i):.1f}" cy="{y(r["median_s"]):.1f}" r="5" fill="black"/>')
        svg.append(f'<rect x="{x(i) - 12:.1f}" y="{y(r["predicted_s"]) - 1.5:.1f}" width="24" height="3" fill="#e6550d"/>')
        svg.append(f'<rect x="{x(i) - 12:.1f}" y="{y(r["predicted_link_s"]) - 1.5:.1f}" width="24" height="3" fill="#3182bd"/>')
        label = f'{r["cap_mb"]:g}' + (" (plan)" if r.get("planner") else "")
        svg.append(f'<text x="{x(i):.1f}" y="{bottom + 18}" text-anchor="middle">{label}</text>')
    svg.append(f'<text x="{(w + left) / 2:.0f}" y="{bottom + 38}" text-anchor="middle">bucket_cap_mb</text>')
    svg.append(f'<text x="{left}" y="{h - 8}">black: measured median, 95% CI over rounds; orange: predicted (measured '
               'gloo AllReduce); blue: predicted (link profile)</text>')
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
