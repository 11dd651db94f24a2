// Panel 2: ring AllReduce step by step. The schedule, the verifier's verdict, the contributions
// each block holds after each step and the byte counts all come from /api/schedule (the library's
// buildSchedule, verify and countVolume); this file draws state k and moves k.
import { api, parseWhole, setFieldMessage, formatBytes, formatExactBytes, svg, el, Player, ActionQueue } from './common.js';

const $ = (id) => document.getElementById(id);
const C = 220, R = 160;  // centre and radius of the drawn ring

function ranksIn(mask, p) {
  const out = [];
  for (let q = 0; q < p; q++) if (mask & (1 << q)) out.push(q);
  return out;
}

function chunkText(first, last) {
  return last - first === 1 ? `chunk ${first}` : `chunks ${first}-${last - 1}`;
}

export function initRing(limits) {
  const fields = { p: $('ring-p'), stride: $('ring-stride'), list: $('ring-list') };
  let data = null;  // the last schedule the server returned for valid input
  let k = 0;        // state shown: after step k (0 = before the first step)
  // Loads and steps run one at a time in the order they came: a Step pressed while a schedule is
  // on its way steps that schedule. aria-busy tells assistive technology, and the browser tests,
  // that something is still to come.
  const queue = new ActionQueue((busy) => $('ring-form').setAttribute('aria-busy', String(busy)));

  const orderKind = () => document.querySelector('input[name="ring-order"]:checked').value;

  // Checks the fields the way the server will, so that a typo gets an inline message at once;
  // the server checks again. Returns the query, or null.
  function readQuery() {
    for (const f of Object.values(fields)) setFieldMessage(f, '');
    $('ring-form-msg').textContent = '';
    const p = parseWhole(fields.p.value, { min: limits.min_schedule_p, max: limits.max_schedule_p, what: 'p' });
    if (p.error) {
      setFieldMessage(fields.p, `${p.error}: p must be a whole number from ${limits.min_schedule_p} to ${limits.max_schedule_p}`);
      return null;
    }
    const query = { p: p.value, collective: $('ring-collective').value, order: orderKind(), size: $('ring-size').value };
    if (query.order === 'stride') {
      const a = parseWhole(fields.stride.value, { what: 'the stride a' });
      if (a.error) return setFieldMessage(fields.stride, a.error), null;
      query.stride = a.value;
    }
    if (query.order === 'list') {
      const problem = permutationProblem(fields.list.value, p.value);
      if (problem) return setFieldMessage(fields.list, problem), null;
      query.list = fields.list.value.replace(/\s+/g, '');
    }
    return query;
  }

  function permutationProblem(text, p) {
    const items = text.split(',').map((s) => s.trim());
    const seen = new Set();
    for (const item of items) {
      if (!/^\d+$/.test(item)) return `"${item}" is not a rank number; type a list such as 0,2,1,3`;
      const r = Number(item);
      if (r >= p) return `rank ${r} is not one of 0 to ${p - 1}`;
      if (seen.has(r)) return `rank ${r} appears twice; each rank must appear once`;
      seen.add(r);
    }
    if (items.length !== p) return `lists ${items.length} ranks; a ring over p = ${p} needs each of 0 to ${p - 1} once`;
    return '';
  }

  const load = () => queue.push(loadNow, 'load');
  async function loadNow() {
    const query = readQuery();
    if (!query) return false;
    const r = await api('schedule', query);
    if (!r.ok) {
      const target = { p: fields.p, stride: fields.stride, list: fields.list }[r.data.field];
      if (target) setFieldMessage(target, r.data.error);
      else $('ring-form-msg').textContent = r.data.error;
      return false;
    }
    player.stop();
    data = r.data;
    k = 0;
    render();
    return true;
  }

  function position(rank) {
    const at = data.ring_order ? data.ring_order.indexOf(rank) : rank;
    const angle = (2 * Math.PI * at) / data.p - Math.PI / 2;
    return [C + R * Math.cos(angle), C + R * Math.sin(angle)];
  }

  function arrowDefs(root) {
    const defs = svg('defs');
    for (const kind of ['reduce', 'copy', 'cycle']) {
      const m = svg('marker', { id: `ring-arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
      m.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: `arrowhead ${kind}` }));
      defs.append(m);
    }
    root.append(defs);
  }

  // A curved arrow from a to b bowing away from the centre, with a label at its middle.
  function arrow(root, a, b, kind, label) {
    const [x1, y1] = a, [x2, y2] = b;
    const len = Math.hypot(x2 - x1, y2 - y1);
    const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
    const sx = x1 + ux * 26, sy = y1 + uy * 26, ex = x2 - ux * 28, ey = y2 - uy * 28;
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    const out = Math.hypot(mx - C, my - C) || 1;
    const bow = Math.min(40, len * 0.25);
    const cx = mx + ((mx - C) / out) * bow, cy = my + ((my - C) / out) * bow;
    root.append(svg('path', { d: `M${sx},${sy} Q${cx},${cy} ${ex},${ey}`, class: `transfer ${kind}`, 'marker-end': `url(#ring-arrow-${kind})` }));
    if (label) {
      const lx = mx + ((mx - C) / out) * (bow + 14), ly = my + ((my - C) / out) * (bow + 14);
      root.append(svg('text', { x: lx, y: ly + 4, 'text-anchor': 'middle', class: `transfer-label ${kind}` }, label));
    }
  }

  function drawNodes(root, ranks, cls) {
    for (const r of ranks) {
      const [x, y] = position(r);
      const g = svg('g', { class: `rank ${cls(r)}`, 'data-rank': r });
      g.append(svg('circle', { cx: x, cy: y, r: 20 }));
      g.append(svg('text', { x, y: y + 5, 'text-anchor': 'middle' }, String(r)));
      root.append(g);
    }
  }

  function drawRing() {
    const root = $('ring-svg');
    root.replaceChildren();
    arrowDefs(root);
    root.append(svg('circle', { cx: C, cy: C, r: R, class: 'ring-track' }));
    const step = k > 0 ? data.steps[k - 1] : null;
    for (const t of step ? step.transfers : []) {
      arrow(root, position(t.src), position(t.dst), t.mode, `c${t.first_block}${t.last_block - t.first_block > 1 ? '-' + (t.last_block - 1) : ''}`);
    }
    const full = (1 << data.p) - 1;
    drawNodes(root, data.ring_order, (r) => {
      const done = data.holds[k][r].filter((m) => m === full).length;
      return done === data.blocks ? 'complete' : done > 0 ? 'partial' : '';
    });
    // The ring order in the middle, a few ranks per line so that p = 16 still fits inside.
    root.dataset.ringOrder = data.ring_order.join(',');
    const walk = data.ring_order.concat([data.ring_order[0]]);
    const lines = [];
    for (let i = 0; i < walk.length; i += 6) lines.push(walk.slice(i, i + 6).join(' → ') + (i + 6 < walk.length ? ' →' : ''));
    const top = C - 8 * lines.length;
    root.append(svg('text', { x: C, y: top, 'text-anchor': 'middle', class: 'ring-centre' }, 'ring order'));
    lines.forEach((line, i) => root.append(svg('text', { x: C, y: top + 17 * (i + 1), 'text-anchor': 'middle', class: 'ring-centre' }, line)));
  }

  // The lesson of a stride that shares a factor with p: the cycle from rank 0, the ranks it leaves.
  function drawShortCycle() {
    const root = $('ring-svg');
    root.replaceChildren();
    arrowDefs(root);
    root.append(svg('circle', { cx: C, cy: C, r: R, class: 'ring-track faint' }));
    const cycle = data.short_cycle;
    const all = [...Array(data.p).keys()];
    const saved = data.ring_order;
    data.ring_order = all;  // ranks at their own positions: the cycle is drawn over them
    for (let i = 0; i < cycle.length && cycle.length > 1; i++) {
      arrow(root, position(cycle[i]), position(cycle[(i + 1) % cycle.length]), 'cycle', '');
    }
    const inCycle = new Set(cycle);
    drawNodes(root, all, (r) => (inCycle.has(r) ? 'in-cycle' : 'left-out'));
    data.ring_order = saved;
  }

  function renderChunks() {
    const table = $('ring-chunks');
    table.replaceChildren();
    const head = el('tr', {}, el('th', { scope: 'col', text: 'rank \\ chunk' }));
    for (let b = 0; b < data.blocks; b++) head.append(el('th', { scope: 'col', text: String(b) }));
    table.append(el('thead', {}, head));
    const written = new Map();
    for (const t of k > 0 ? data.steps[k - 1].transfers : []) {
      for (let b = t.first_block; b < t.last_block; b++) written.set(`${t.dst}:${b}`, t.mode);
    }
    const body = el('tbody');
    const full = (1 << data.p) - 1;
    for (let r = 0; r < data.p; r++) {
      const row = el('tr', {}, el('th', { scope: 'row', text: `rank ${r}` }));
      for (let b = 0; b < data.blocks; b++) {
        const mask = data.holds[k][r][b];
        const who = ranksIn(mask, data.p);
        // Up to p = 8 the ranks themselves fit in a cell; beyond, how many of the p.
        const text = mask === 0 ? '-' : mask === full ? 'all' : data.p <= 8 ? who.join('+') : String(who.length);
        const mode = written.get(`${r}:${b}`);
        const cls = [mask === full ? 'complete' : mask === 0 ? 'empty' : '', mode ? `written ${mode}` : ''].join(' ').trim();
        const cell = el('td', { class: cls, 'data-rank': r, 'data-chunk': b, title: mask === 0 ? 'no data yet' : `contributions of ranks ${who.join(', ')}`, text });
        row.append(cell);
      }
      body.append(row);
    }
    table.append(body);
  }

  // A chunk table wider than its box scrolls sideways, which a phone does not show until touched:
  // say which chunks are out of view, and keep saying it as the table scrolls or the box resizes.
  function hintChunkScroll() {
    const box = $('ring-chunks-scroll');
    const hint = $('ring-chunks-scroll-hint');
    const edge = box.getBoundingClientRect();
    const out = [...$('ring-chunks').querySelectorAll('thead th')].slice(1)
      .filter((th) => { const r = th.getBoundingClientRect(); return r.right > edge.right + 0.5 || r.left < edge.left - 0.5; })
      .map((th) => Number(th.textContent));
    box.classList.toggle('overflows', out.length > 0);
    hint.hidden = out.length === 0;
    if (out.length === 0) return;
    const ranges = [];
    for (const c of out) {
      const last = ranges[ranges.length - 1];
      if (last && c === last[1] + 1) last[1] = c;
      else ranges.push([c, c]);
    }
    const named = ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(' and ');
    hint.textContent = `Scroll the table sideways ⇆: chunk${out.length === 1 ? '' : 's'} ${named} out of view.`;
  }
  $('ring-chunks-scroll').addEventListener('scroll', hintChunkScroll, { passive: true });
  new ResizeObserver(() => { if (data) hintChunkScroll(); }).observe($('ring-chunks-scroll'));

  function renderVolume() {
    const table = $('ring-volume');
    table.replaceChildren();
    const target = data.closed_form_send_bytes;
    const end = data.volume[data.steps.length];
    $('ring-volume-note').textContent = target !== null
      ? `n = ${formatBytes(data.size_bytes)} of float32. send: bytes a rank sent; send+recv: sent plus received. Closed form, send convention: 2(p-1)n/p = ${formatExactBytes(target)} per rank.`
      : `n = ${formatBytes(data.size_bytes)} of float32. send: bytes a rank sent; send+recv: sent plus received. After the last step each rank has sent ${formatExactBytes(end[0].send)}.`;
    const goal = target !== null ? target : end[0].send;
    table.append(el('thead', {}, el('tr', {},
      el('th', { scope: 'col', text: 'rank' }),
      el('th', { scope: 'col', text: 'send' }),
      el('th', { scope: 'col', text: 'send+recv' }),
      el('th', { scope: 'col', text: target !== null ? 'send / 2(p-1)n/p' : 'send / at the end' }))));
    const body = el('tbody');
    data.volume[k].forEach((v, r) => {
      const bar = el('span', { class: 'bar' });
      bar.style.width = `${goal > 0 ? Math.min(100, (100 * v.send) / goal) : 0}%`;
      body.append(el('tr', {},
        el('th', { scope: 'row', text: String(r) }),
        el('td', { class: 'num', text: formatExactBytes(v.send) }),
        el('td', { class: 'num', text: formatExactBytes(v['send+recv']) }),
        el('td', { class: 'meter' }, el('span', { class: 'track' }, bar), ` ${goal > 0 ? Math.round((100 * v.send) / goal) : 0}%`)));
    });
    table.append(body);
  }

  function renderTransfers() {
    const list = $('ring-transfers');
    list.replaceChildren();
    if (k === 0) {
      list.append(el('li', { class: 'none', text: 'Before step 1: every rank holds only its own data. Press Step.' }));
      return;
    }
    for (const t of data.steps[k - 1].transfers) {
      list.append(el('li', { class: t.mode, 'data-src': t.src, 'data-dst': t.dst, 'data-first': t.first_block, 'data-mode': t.mode,
        text: `rank ${t.src} → rank ${t.dst}: ${chunkText(t.first_block, t.last_block)}, ${t.mode === 'reduce' ? 'reduce (added in)' : 'copy (replaces)'}` }));
    }
  }

  function render() {
    const error = $('ring-error');
    const stepping = data.valid;
    for (const id of ['ring-reset', 'ring-back', 'ring-step', 'ring-play']) $(id).disabled = !stepping;
    for (const id of ['ring-tables', 'ring-key', 'ring-step-detail']) $(id).hidden = !stepping;
    if (!data.valid) {
      error.hidden = false;
      const cycle = data.short_cycle;
      const left = [...Array(data.p).keys()].filter((r) => !cycle.includes(r));
      error.replaceChildren(
        el('p', { class: 'error-title', text: `Not a valid ring: stride ${data.stride} over p = ${data.p}` }),
        el('p', { id: 'ring-error-text', text: data.error }),
        el('p', { id: 'ring-short-cycle', text: `Short cycle from rank 0: ${cycle.concat([0]).join(' → ')} (period ${cycle.length} of p = ${data.p}). Left out: ranks ${left.join(', ')}. Nothing to animate: no valid schedule exists for this order.` }));
      $('ring-status').textContent = 'Rejected before any step runs.';
      $('ring-transfers').replaceChildren();
      drawShortCycle();
      return;
    }
    error.hidden = true;
    const total = data.steps.length;
    const phase = k > 0 ? data.steps[k - 1].phase : '';
    $('ring-status').textContent = k === 0
      ? `${total} steps in all (${data.collective.replace('_', '-')}, p = ${data.p}). Before step 1.`
      : k < total
        ? `Step ${k} of ${total} (${phase}).`
        : `Step ${k} of ${total} (${phase}). Done. Verifier: ${data.verdict.valid ? 'valid' : 'INVALID: ' + data.verdict.reason}${data.collective === 'reduce_scatter' ? ': each rank owns one chunk reduced over all p ranks' : ': every rank holds every chunk reduced over all p ranks, exactly once each'}.`;
    $('ring-status').dataset.steps = String(total);
    $('ring-status').dataset.step = String(k);
    drawRing();
    renderTransfers();
    renderChunks();
    hintChunkScroll();
    renderVolume();
  }

  function stepNow() {
    if (!data || !data.valid || k >= data.steps.length) return false;
    k += 1;
    render();
    return k < data.steps.length;
  }
  const step = () => queue.push(stepNow);

  const player = new Player($('ring-play'), step, () => Number($('ring-speed').value));
  $('ring-form').addEventListener('submit', (e) => { e.preventDefault(); load(); });
  for (const id of ['ring-collective', 'ring-size', 'ring-order-identity', 'ring-order-stride', 'ring-order-list']) {
    $(id).addEventListener('change', load);
  }
  for (const f of Object.values(fields)) f.addEventListener('change', load);
  // Typing a stride or a list selects that kind of order.
  fields.stride.addEventListener('focus', () => { $('ring-order-stride').checked = true; });
  fields.list.addEventListener('focus', () => { $('ring-order-list').checked = true; });
  $('ring-step').addEventListener('click', () => { player.stop(); step(); });
  $('ring-back').addEventListener('click', () => { player.stop(); queue.push(() => { if (data && k > 0) { k -= 1; render(); } }); });
  $('ring-reset').addEventListener('click', () => { player.stop(); queue.push(() => { if (data) { k = 0; render(); } }); });
  $('ring-play').addEventListener('click', () => {
    if (player.playing) return player.stop();
    // After what is queued: Play at the end replays.
    queue.push(() => { if (data && k >= data.steps.length) k = 0; }).then(() => player.start());
  });
  document.querySelectorAll('.max-p').forEach((n) => { n.textContent = String(limits.max_schedule_p); });
  load();

  // Panel 1's link: the ring built by stride a over p = m ranks.
  return async function showStride(p, stride) {
    fields.p.value = String(p);
    fields.stride.value = String(stride);
    $('ring-order-stride').checked = true;
    await load();
  };
}
