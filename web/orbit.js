// Panel 1: the modular orbit lab. The residues visited come from the server (/api/orbit, the
// library's strideOrbit); this file only walks them one step at a time and draws the walk.
import { api, parseWhole, setFieldMessage, svg, Player, ActionQueue } from './common.js';

const $ = (id) => document.getElementById(id);

export function initOrbit(limits, onTryRing) {
  const fields = { m: $('orbit-m'), a: $('orbit-a'), predict: $('orbit-predict') };
  const drawing = $('orbit-svg');
  // The walk in progress: the server's orbit for (m, a), and k additions done so far.
  let walk = null;
  // Steps, resets and the round trip a step may need run one at a time, in the order pressed.
  const queue = new ActionQueue();

  // m and a as typed, each { value } or { error }: all the link to panel 2 needs.
  function parseRing() {
    const m = parseWhole(fields.m.value, { min: 1, max: limits.max_modulus, what: 'the modulus m' });
    if (m.error) m.error = `${m.error}: m must be a whole number from 1 to ${limits.max_modulus}`;
    return { m, a: parseWhole(fields.a.value, { min: -1e9, max: 1e9, what: 'the step a' }) };
  }

  // Reads the three fields; null (with inline messages) when any is not valid.
  function readFields() {
    const { m, a } = parseRing();
    setFieldMessage(fields.m, m.error || '');
    setFieldMessage(fields.a, a.error || '');
    let predicted = { value: null };
    if (fields.predict.value.trim() !== '') {
      predicted = parseWhole(fields.predict.value, { min: 1, max: 1e9, what: 'a period' });
      if (predicted.error) predicted.error = `${predicted.error}: a period is a whole number of steps, at least 1 (or leave it empty)`;
    }
    setFieldMessage(fields.predict, predicted.error || '');
    if (m.error || a.error || predicted.error) return null;
    return { m: m.value, a: a.value, predicted: predicted.value };
  }

  function position(x, m, r = 150) {
    const angle = (2 * Math.PI * x) / m - Math.PI / 2;
    return [200 + r * Math.cos(angle), 200 + r * Math.sin(angle)];
  }

  function draw(m, orbit, k) {
    drawing.replaceChildren();
    drawing.append(svg('circle', { cx: 200, cy: 200, r: 150, class: 'orbit-track' }));
    const visited = new Set(orbit.slice(0, Math.min(k + 1, orbit.length)));
    const defs = svg('defs');
    const marker = svg('marker', { id: 'orbit-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'orbit-arrowhead' }));
    defs.append(marker);
    drawing.append(defs);
    // The chords walked so far: orbit[i] -> orbit[i + 1], the last one back to 0.
    for (let i = 0; i < k; i++) {
      const from = orbit[i], to = orbit[(i + 1) % orbit.length];
      if (from === to) {  // a = 0 mod m: the walk stays at 0
        const [x, y] = position(from, m, 168);
        drawing.append(svg('circle', { cx: x, cy: y, r: 14, class: 'orbit-chord' }));
        continue;
      }
      const [x1, y1] = position(from, m, 150);
      const [x2, y2] = position(to, m, 150);
      const shorten = 11 / Math.hypot(x2 - x1, y2 - y1);
      drawing.append(svg('line', {
        x1, y1, x2: x2 - (x2 - x1) * shorten, y2: y2 - (y2 - y1) * shorten,
        class: i === k - 1 ? 'orbit-chord latest' : 'orbit-chord', 'marker-end': 'url(#orbit-arrow)',
      }));
    }
    const now = orbit[k % orbit.length];
    const labelEvery = m <= 32 ? 1 : 4;
    for (let x = 0; x < m; x++) {
      const [cx, cy] = position(x, m);
      const cls = ['residue', visited.has(x) ? 'visited' : 'unvisited', x === now && walk ? 'current' : ''].join(' ');
      const dot = svg('circle', { cx, cy, r: m <= 32 ? 9 : 5.5, class: cls, 'data-residue': x });
      dot.append(svg('title', {}, `residue ${x}${visited.has(x) ? ', visited' : ''}`));
      drawing.append(dot);
      if (x % labelEvery === 0) {
        const [lx, ly] = position(x, m, 178);
        drawing.append(svg('text', { x: lx, y: ly + 4, 'text-anchor': 'middle', class: 'residue-label' }, String(x)));
      }
    }
  }

  function showReadout() {
    const k = walk ? walk.k : 0;
    const orbit = walk ? walk.orbit : [0];
    const visited = orbit.slice(0, Math.min(k + 1, orbit.length));
    $('orbit-steps').textContent = String(k);
    $('orbit-x').textContent = String(orbit[k % orbit.length]);
    $('orbit-visited').textContent = [...visited].sort((p, q) => p - q).join(', ');
  }

  function showResult() {
    const box = $('orbit-result');
    if (!walk || walk.k < walk.period) { box.hidden = true; return; }
    box.hidden = false;
    const { m, aModM, gcd, period, predicted } = walk;
    $('orbit-period').textContent = `Orbit closed: back at 0 after ${period} step${period === 1 ? '' : 's'}. Period found: ${period}.`;
    const verdict = $('orbit-verdict');
    if (predicted === null) {
      verdict.textContent = 'No prediction was entered.';
      verdict.className = 'verdict none';
    } else if (predicted === period) {
      verdict.textContent = `Your prediction ${predicted}: right.`;
      verdict.className = 'verdict right';
    } else {
      verdict.textContent = `Your prediction ${predicted}: wrong (the period is ${period}).`;
      verdict.className = 'verdict wrong';
    }
    $('orbit-formula').textContent = `Formula: period = m / gcd(m, a) = ${m} / gcd(${m}, ${aModM}) = ${m} / ${gcd} = ${m / gcd}.`;
    const missed = [];
    const seen = new Set(walk.orbit);
    for (let x = 0; x < m && missed.length < 12; x++) if (!seen.has(x)) missed.push(x);
    const more = m - period > missed.length ? ', ...' : '';
    let coverage = `Visits ${period} of ${m} residues`;
    if (period === m) coverage += ': all of them.';
    else coverage += `${2 * period === m ? ': only half of them' : ''}; never reached: ${missed.join(', ')}${more}.`;
    const cov = $('orbit-coverage');
    cov.textContent = coverage;
    cov.className = period === m ? 'coverage full' : 'coverage partial';
    $('orbit-lesson').textContent = period === m
      ? `As a ring over p = ${m} ranks, stride ${aModM} would reach every rank: a valid ring order.`
      : `As a ring over p = ${m} ranks, stride ${aModM} would cycle through ${period} of them only: not a faster AllReduce but one over the wrong set of ranks.`;
  }

  function showNote(m, a, aModM) {
    const note = $('orbit-note');
    if (a < 0 || a >= m) note.textContent = `a = ${a} is taken mod ${m}: each step adds ${aModM}.`;
    else if (a === 0) note.textContent = 'a = 0: each step adds nothing, so the walk never leaves 0.';
    else note.textContent = '';
  }

  // Makes sure a walk for the current fields is loaded; false when the fields are not valid or
  // the server refused (the previous state stays on screen).
  async function ensureWalk() {
    const f = readFields();
    if (!f) return false;
    if (walk && walk.m === f.m && walk.a === f.a && walk.k < walk.period) {
      walk.predicted = f.predicted;
      return true;
    }
    if (walk && walk.m === f.m && walk.a === f.a && walk.k >= walk.period) {
      $('orbit-note').textContent = 'The orbit has closed. Press Reset to walk it again, or change m or a.';
      return false;
    }
    const r = await api('orbit', { m: f.m, a: f.a });
    if (!r.ok) {
      const field = r.data.field === 'm' ? fields.m : r.data.field === 'a' ? fields.a : null;
      if (field) setFieldMessage(field, r.data.error);
      else $('orbit-note').textContent = r.data.error;
      return false;
    }
    const d = r.data;
    walk = { m: d.m, a: d.a, aModM: d.a_mod_m, gcd: d.gcd, orbit: d.orbit, period: d.period, k: 0, predicted: f.predicted };
    showNote(d.m, d.a, d.a_mod_m);
    return true;
  }

  async function stepNow() {
    if (!(await ensureWalk())) return false;
    walk.k += 1;
    render();
    return walk.k < walk.period;
  }
  const step = () => queue.push(stepNow);

  function render() {
    const m = walk ? walk.m : currentDrawingModulus();
    draw(m, walk ? walk.orbit : [0], walk ? walk.k : 0);
    showReadout();
    showResult();
  }

  // Before any walk: the circle for the m typed, if it is valid, else the last one drawn.
  let lastModulus = 8;
  function currentDrawingModulus() {
    const m = parseWhole(fields.m.value, { min: 1, max: limits.max_modulus });
    if (!m.error) lastModulus = m.value;
    return lastModulus;
  }

  const player = new Player($('orbit-play'), step, () => Number($('orbit-speed').value));

  function reset() {
    player.stop();
    queue.push(resetNow);
  }

  function resetNow() {
    walk = null;
    $('orbit-note').textContent = '';
    for (const f of Object.values(fields)) setFieldMessage(f, '');
    render();
    return true;
  }

  $('orbit-reset').addEventListener('click', reset);
  $('orbit-step').addEventListener('click', () => { player.stop(); step(); });
  $('orbit-play').addEventListener('click', () => player.toggle());
  $('orbit-form').addEventListener('submit', (e) => { e.preventDefault(); step(); });
  // Redraw the empty circle as m is typed, while no walk is shown.
  fields.m.addEventListener('input', () => { if (!walk) render(); });
  // Why the link to panel 2 cannot be followed now, or '' when it can. Only m and a matter: the
  // predicted period is this panel's own exercise, so a bad one never blocks the ring.
  function ringBlocker() {
    const { m, a } = parseRing();
    if (m.error) return `Fix m above first (${m.error}).`;
    if (a.error) return `Fix a above first (${a.error}).`;
    if (m.value < limits.min_schedule_p || m.value > limits.max_schedule_p) {
      return `Panel 2 draws p = ${limits.min_schedule_p} to ${limits.max_schedule_p} ranks; set m in that range.`;
    }
    return '';
  }
  const linkMsg = $('orbit-to-ring-msg');
  $('orbit-to-ring').addEventListener('click', (e) => {
    const why = ringBlocker();
    linkMsg.textContent = why;
    const { m, a } = parseRing();  // the field at fault is marked too, as Step marks it
    setFieldMessage(fields.m, m.error || '');
    setFieldMessage(fields.a, a.error || '');
    if (why) e.preventDefault();
    else onTryRing(m.value, a.value);
  });
  // A reason shown under the link goes as soon as the fields no longer block it (or changes).
  for (const input of [fields.m, fields.a]) {
    input.addEventListener('input', () => { if (linkMsg.textContent) linkMsg.textContent = ringBlocker(); });
  }
  document.querySelectorAll('.max-m').forEach((n) => { n.textContent = String(limits.max_modulus); });
  render();
}
