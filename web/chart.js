// A small hand-written SVG line chart: linear or log axes, lines, point markers, labelled
// vertical and horizontal rules, and a legend. Enough for the cost-model explorer, with no
// library to ship. The chart is drawn at the size it is shown (one SVG unit is one CSS pixel), so
// its text keeps its size in lab.css on a phone; ticks are thinned until their labels keep apart,
// and it is redrawn when its width changes.
import { svg } from './common.js';

const fontPx = 12;  // tick labels (lab.css .chart .tick); axis titles are 13 px
const gapPx = 10;   // the least room between two tick labels

// The colour of every registered algorithm, from /api/info (the palette of the CLI's pictures).
let palette = {};
export function setPalette(colours) { palette = { ...colours }; }
export function colourOf(algorithm) { return palette[algorithm] || '#555'; }

let measureContext = null;
function textWidth(text, px = fontPx) {
  measureContext ??= document.createElement('canvas').getContext('2d');
  measureContext.font = `${px}px ${getComputedStyle(document.documentElement).fontFamily}`;
  return measureContext.measureText(text).width;
}

function scale(lo, hi, log, a, b) {
  const f = log ? Math.log10 : (v) => v;
  const l = f(lo), h = f(hi);
  return (v) => a + ((f(v) - l) / (h - l || 1)) * (b - a);
}

// Candidate tick sets, densest first: powers of `base` every 1, 2, 3, 5, 10 ... exponents on a
// log axis; 1-2-5 steps on a linear one.
function* tickSets(lo, hi, axis) {
  if (axis.log) {
    const base = axis.base || 10;
    const first = Math.ceil(Math.log(lo) / Math.log(base) - 1e-9);
    const last = Math.floor(Math.log(hi) / Math.log(base) + 1e-9);
    for (const step of [1, 2, 3, 5, 10, 20, 50]) {
      const ticks = [];
      for (let e = Math.ceil(first / step) * step; e <= last; e += step) ticks.push(base ** e);
      yield ticks;
      if (ticks.length <= 2) return;
    }
    return;
  }
  const span = hi - lo || 1;
  const mag = 10 ** Math.floor(Math.log10(span / 20));
  for (const step of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map((s) => s * mag)) {
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) ticks.push(+v.toPrecision(12));
    yield ticks;
    if (ticks.length <= 2) return;
  }
}

// The densest tick set whose labels do not overlap: side by side on a horizontal axis, one text
// line apart on a vertical one.
function thinnedTicks(lo, hi, axis, position, horizontal) {
  let chosen = [];
  for (const ticks of tickSets(lo, hi, axis)) {
    chosen = ticks;
    const fits = ticks.every((t, i) => {
      if (i === 0) return true;
      const room = Math.abs(position(t) - position(ticks[i - 1]));
      const need = horizontal ? (textWidth(axis.format(t)) + textWidth(axis.format(ticks[i - 1]))) / 2 + gapPx : fontPx * 2.5;
      return room >= need;
    });
    if (fits) break;
  }
  return chosen;
}

// options: {x: {log, base, label, format, min, max, pad}, y: {...}, series: [{name, color, dash,
// algorithm, role, points: [[x, y]], marker: 'circle'|undefined, line: bool}], vlines: [{x,
// label, color, algorithm}], hlines: [{y, label, color, dash}], title}. Redrawn at the new width
// whenever the chart's box is resized.
export function drawChart(root, options) {
  root.chartOptions = options;
  if (!root.chartObserver) {
    let lastWidth = 0;
    root.chartObserver = new ResizeObserver(() => {
      const width = Math.floor(root.parentElement.clientWidth);
      if (width !== lastWidth) { lastWidth = width; render(root, root.chartOptions); }
    });
    root.chartObserver.observe(root.parentElement);
  }
  render(root, options);
}

function axisRange(axis, values) {
  const usable = values.filter((v) => Number.isFinite(v) && (!axis.log || v > 0));
  let lo = axis.min ?? Math.min(...usable);
  let hi = axis.max ?? Math.max(...usable);
  if (axis.log) { lo /= axis.pad ?? 1; hi *= axis.pad ?? 1; }
  if (lo === hi) { lo = axis.log ? lo / 2 : lo - 1; hi = axis.log ? hi * 2 : hi + 1; }
  return [lo, hi];
}

function render(root, options) {
  const W = Math.max(260, Math.min(900, Math.floor(root.parentElement.clientWidth)));
  const H = Math.round(Math.max(250, Math.min(400, W * 0.56)));
  root.replaceChildren();
  root.setAttribute('viewBox', `0 0 ${W} ${H}`);
  root.setAttribute('width', W);
  root.setAttribute('height', H);
  const all = options.series.flatMap((s) => s.points);
  const [x0, x1] = axisRange(options.x, all.map((p) => p[0]).concat((options.vlines || []).map((v) => v.x)));
  const [y0, y1] = axisRange(options.y, all.map((p) => p[1]).concat((options.hlines || []).map((h) => h.y)));
  const top = 12, bottom = 46;
  const plotHeight = H - top - bottom;
  const sy = scale(y0, y1, options.y.log, H - bottom, top);
  const yt = thinnedTicks(y0, y1, options.y, sy, false);
  const left = Math.ceil(30 + Math.max(0, ...yt.map((t) => textWidth(options.y.format(t)))));
  const right = 14 + textWidth(options.x.format(x1)) / 2;
  const sx = scale(x0, x1, options.x.log, left, W - right);
  const xt = thinnedTicks(x0, x1, options.x, sx, true);

  const grid = svg('g', { class: 'grid' });
  for (const t of xt) {
    grid.append(svg('line', { x1: sx(t), x2: sx(t), y1: top, y2: H - bottom }));
    grid.append(svg('text', { x: sx(t), y: H - bottom + 16, 'text-anchor': 'middle', class: 'tick' }, options.x.format(t)));
  }
  for (const t of yt) {
    grid.append(svg('line', { x1: left, x2: W - right, y1: sy(t), y2: sy(t) }));
    grid.append(svg('text', { x: left - 6, y: sy(t) + 4, 'text-anchor': 'end', class: 'tick' }, options.y.format(t)));
  }
  root.append(grid);
  root.append(svg('rect', { x: left, y: top, width: W - left - right, height: plotHeight, class: 'frame' }));
  root.append(svg('text', { x: (left + W - right) / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis-label' }, options.x.label));
  root.append(svg('text', { x: 14, y: top + plotHeight / 2, 'text-anchor': 'middle', class: 'axis-label',
    transform: `rotate(-90 14 ${top + plotHeight / 2})` }, options.y.label));

  (options.vlines || []).forEach((v, i) => {
    const g = svg('g', { class: 'vline', 'data-algorithm': v.algorithm || '' });
    g.append(svg('line', { x1: sx(v.x), x2: sx(v.x), y1: top, y2: H - bottom, stroke: v.color || '#555' }));
    const toRight = sx(v.x) < (left + W - right) / 2;
    g.append(svg('text', { x: sx(v.x) + (toRight ? 4 : -4), y: top + 14 + 15 * (i % 3), 'text-anchor': toRight ? 'start' : 'end' }, v.label));
    root.append(g);
  });
  for (const h of options.hlines || []) {
    const g = svg('g', { class: 'hline' });
    g.append(svg('line', { x1: left, x2: W - right, y1: sy(h.y), y2: sy(h.y), stroke: h.color || '#555', 'stroke-dasharray': h.dash || '6 4' }));
    g.append(svg('text', { x: W - right - 4, y: sy(h.y) - 5, 'text-anchor': 'end' }, h.label));
    root.append(g);
  }
  for (const s of options.series) {
    const common = { 'data-series': s.name, 'data-algorithm': s.algorithm || '', 'data-role': s.role || 'model' };
    if (s.line !== false && s.points.length > 1) {
      const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join('');
      root.append(svg('path', { ...common, d, class: 'series', stroke: s.color, 'stroke-dasharray': s.dash || 'none' }));
    }
    const inside = s.points.filter((p) => p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1);
    for (const p of s.marker ? inside : []) {
      root.append(svg('circle', { ...common, class: 'marker', fill: s.color, cx: sx(p[0]), cy: sy(p[1]), r: 4.5 }));
    }
  }
  if (options.title) root.setAttribute('aria-label', options.title);
}

// The legend as HTML next to the chart: per entry, a swatch drawn as the chart draws the series
// (its colour, its dash, a marker for measured points) and its name; it wraps on a narrow screen.
// entries: [{name, color, dash, kind: 'line'|'marker', algorithm}].
export function legend(container, entries) {
  container.replaceChildren();
  for (const e of entries) {
    const item = document.createElement('li');
    item.dataset.algorithm = e.algorithm || '';
    item.dataset.kind = e.kind || 'line';
    const swatch = svg('svg', { class: 'swatch', width: 26, height: 12, viewBox: '0 0 26 12', 'aria-hidden': 'true' });
    swatch.append(e.kind === 'marker'
      ? svg('circle', { cx: 13, cy: 6, r: 4.5, fill: e.color, class: 'marker' })
      : svg('line', { x1: 1, x2: 25, y1: 6, y2: 6, stroke: e.color, 'stroke-width': 2.5, 'stroke-dasharray': e.dash || 'none' }));
    const name = document.createElement('span');
    name.textContent = e.name;
    item.append(swatch, name);
    container.append(item);
  }
}
