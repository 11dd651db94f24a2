// A small hand-written SVG line chart: linear or log axes, lines, point markers, labelled
// vertical and horizontal rules, and a legend. Enough for the cost-model explorer, with no
// library to ship.
import { svg } from './common.js';

const W = 720, H = 400;
const M = { left: 74, right: 18, top: 16, bottom: 52 };

function scale(lo, hi, log, a, b) {
  const f = log ? Math.log10 : (v) => v;
  const l = f(lo), h = f(hi);
  return (v) => a + ((f(v) - l) / (h - l || 1)) * (b - a);
}

// Ticks for a log axis: powers of `base` whose exponent is a multiple of a step chosen so that at
// most about eight appear.
function logTicks(lo, hi, base) {
  const first = Math.ceil(Math.log(lo) / Math.log(base) - 1e-9);
  const last = Math.floor(Math.log(hi) / Math.log(base) + 1e-9);
  const steps = base === 2 ? [1, 2, 5, 10] : [1, 2, 3];
  const step = steps.find((s) => (last - first) / s <= 8) || steps[steps.length - 1];
  const ticks = [];
  for (let e = Math.ceil(first / step) * step; e <= last; e += step) ticks.push(base ** e);
  return ticks;
}

function linearTicks(lo, hi) {
  const span = hi - lo || 1;
  const raw = span / 6;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((s) => s * mag).find((s) => span / s <= 7);
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

// options: {x: {log, base, label, format, min, max}, y: {...}, series: [{name, color, dash,
// points: [[x, y]], marker: 'circle'|'square'|undefined, line: bool}], vlines: [{x, label, color}],
// hlines: [{y, label, color}], title}
export function drawChart(root, options) {
  root.replaceChildren();
  root.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const all = options.series.flatMap((s) => s.points);
  const range = (axis, i, extra) => {
    const values = all.map((p) => p[i]).concat(extra).filter((v) => Number.isFinite(v) && (!axis.log || v > 0));
    let lo = axis.min ?? Math.min(...values);
    let hi = axis.max ?? Math.max(...values);
    if (axis.log) { lo /= axis.pad ?? 1; hi *= axis.pad ?? 1; }
    if (lo === hi) { lo = axis.log ? lo / 2 : lo - 1; hi = axis.log ? hi * 2 : hi + 1; }
    return [lo, hi];
  };
  const [x0, x1] = range(options.x, 0, (options.vlines || []).map((v) => v.x));
  const [y0, y1] = range(options.y, 1, (options.hlines || []).map((h) => h.y));
  const sx = scale(x0, x1, options.x.log, M.left, W - M.right);
  const sy = scale(y0, y1, options.y.log, H - M.bottom, M.top);

  const grid = svg('g', { class: 'grid' });
  const xt = options.x.log ? logTicks(x0, x1, options.x.base || 10) : linearTicks(x0, x1);
  for (const t of xt) {
    grid.append(svg('line', { x1: sx(t), x2: sx(t), y1: M.top, y2: H - M.bottom }));
    grid.append(svg('text', { x: sx(t), y: H - M.bottom + 16, 'text-anchor': 'middle', class: 'tick' }, options.x.format(t)));
  }
  const yt = options.y.log ? logTicks(y0, y1, options.y.base || 10) : linearTicks(y0, y1);
  for (const t of yt) {
    grid.append(svg('line', { x1: M.left, x2: W - M.right, y1: sy(t), y2: sy(t) }));
    grid.append(svg('text', { x: M.left - 6, y: sy(t) + 4, 'text-anchor': 'end', class: 'tick' }, options.y.format(t)));
  }
  root.append(grid);
  root.append(svg('rect', { x: M.left, y: M.top, width: W - M.left - M.right, height: H - M.top - M.bottom, class: 'frame' }));
  root.append(svg('text', { x: (M.left + W - M.right) / 2, y: H - 10, 'text-anchor': 'middle', class: 'axis-label' }, options.x.label));
  root.append(svg('text', { x: 14, y: (M.top + H - M.bottom) / 2, 'text-anchor': 'middle', class: 'axis-label',
    transform: `rotate(-90 14 ${(M.top + H - M.bottom) / 2})` }, options.y.label));

  (options.vlines || []).forEach((v, i) => {
    const g = svg('g', { class: 'vline' });
    g.append(svg('line', { x1: sx(v.x), x2: sx(v.x), y1: M.top, y2: H - M.bottom, stroke: v.color || '#555' }));
    const right = sx(v.x) < W - 200;
    g.append(svg('text', { x: sx(v.x) + (right ? 4 : -4), y: M.top + 14 + 14 * (i % 3), 'text-anchor': right ? 'start' : 'end' }, v.label));
    root.append(g);
  });
  for (const h of options.hlines || []) {
    const g = svg('g', { class: 'hline' });
    g.append(svg('line', { x1: M.left, x2: W - M.right, y1: sy(h.y), y2: sy(h.y), stroke: h.color || '#555' }));
    g.append(svg('text', { x: W - M.right - 4, y: sy(h.y) - 5, 'text-anchor': 'end' }, h.label));
    root.append(g);
  }
  for (const s of options.series) {
    const inside = s.points.filter((p) => p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1);
    if (s.line !== false && s.points.length > 1) {
      const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join('');
      root.append(svg('path', { d, class: 'series', stroke: s.color, 'stroke-dasharray': s.dash || 'none', 'data-series': s.name }));
    }
    for (const p of s.marker ? inside : []) {
      const attrs = { fill: s.color, class: 'marker', 'data-series': s.name };
      root.append(s.marker === 'square'
        ? svg('rect', { ...attrs, x: sx(p[0]) - 3.5, y: sy(p[1]) - 3.5, width: 7, height: 7, fill: 'none', stroke: s.color, 'stroke-width': 1.6 })
        : svg('circle', { ...attrs, cx: sx(p[0]), cy: sy(p[1]), r: 3.8 }));
    }
  }
  if (options.title) root.setAttribute('aria-label', options.title);
}

// The legend as HTML next to the chart: a swatch and a name per series.
export function legend(container, entries) {
  container.replaceChildren();
  for (const e of entries) {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch ${e.kind || 'line'}`;
    swatch.style.setProperty('--c', e.color);
    if (e.dash) swatch.classList.add('dashed');
    item.append(swatch, document.createTextNode(e.name));
    container.append(item);
  }
}
