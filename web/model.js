// Panel 3: the cost-model explorer. Predictions come from /api/model/sizes and /api/model/ranks
// (the library's predictAllReduce and fastestAlgorithm); measured points come from a
// `ringlab bench --json` file the user picks, read in the page and drawn over the prediction.
import { api, apiPost, parseWhole, parseDecimal, setFieldMessage, formatBytes, formatTime, el } from './common.js';
import { drawChart, legend } from './chart.js';

const $ = (id) => document.getElementById(id);
const colors = { ring: '#1f77b4', recursive_doubling: '#d62728', rabenseifner: '#2ca02c', binomial_tree: '#9467bd' };
const colorOf = (name) => colors[name] || '#555';
const sweepMin = 8, sweepMax = 1 << 30;

// Reads a `ringlab bench --json` document into measured points; throws Error with a message
// that says what is missing.
// The record the server read (measure's one reader, /api/record) as chart points.
function recordPoints(doc) {
  const run = doc.run;
  const points = [];
  for (const row of doc.rows) {
    const size = row.size_bytes, oop = row.out_of_place?.time_us, ip = row.in_place?.time_us;
    if (size > 0 && oop > 0) points.push({ size, us: oop, inPlaceUs: Number.isFinite(ip) ? ip : null, algorithm: row.algorithm || run.algorithm || 'ring' });
  }
  if (points.length === 0) throw new Error('no rows with a positive size and time');
  return { p: run.p, algorithm: run.algorithm, transport: run.transport, version: run.ringlab_version, host: run.host, points };
}

export function initModel(limits, defaults) {
  const fields = { p: $('model-p'), alpha: $('model-alpha'), bw: $('model-bw'), gamma: $('model-gamma'), maxp: $('model-maxp') };
  const size = $('model-size');
  let measured = null;
  let request = 0;  // answers to older requests are dropped

  fields.alpha.value = String(+defaults.alpha_us.toPrecision(6));
  fields.bw.value = String(+defaults.bw_GBps.toPrecision(6));
  fields.gamma.value = String(+defaults.gamma_ns_per_byte.toPrecision(6));
  document.querySelectorAll('.max-model-p').forEach((n) => { n.textContent = String(limits.max_model_p); });

  function readParams() {
    const checks = {
      p: parseWhole(fields.p.value, { min: 2, max: limits.max_model_p, what: 'p' }),
      alpha: parseDecimal(fields.alpha.value, { min: 0, max: 1e6, what: 'alpha in µs' }),
      bw: parseDecimal(fields.bw.value, { min: 0, max: 1e6, above: true, what: 'a bandwidth in GB/s' }),
      gamma: parseDecimal(fields.gamma.value, { min: 0, max: 1e6, what: 'gamma in ns per byte' }),
      maxp: parseWhole(fields.maxp.value, { min: 2, max: limits.max_model_p, what: 'the largest p' }),
    };
    let ok = true;
    for (const [name, c] of Object.entries(checks)) ok = setFieldMessage(fields[name], c.error || '') && ok;
    if (!ok) return null;
    const bytes = 2 ** Number(size.value);
    $('model-size-text').textContent = formatBytes(bytes);
    return { p: checks.p.value, alpha: checks.alpha.value, bw: checks.bw.value, gamma: checks.gamma.value, maxP: checks.maxp.value, bytes };
  }

  function showApiError(r) {
    const byField = { p: fields.p, max_p: fields.maxp, alpha: fields.alpha, bw: fields.bw, gamma: fields.gamma };
    const target = byField[r.data.field];
    if (target) setFieldMessage(target, r.data.error);
    else $('model-crossovers').textContent = r.data.error;
  }

  async function update() {
    const q = readParams();
    if (!q) return;
    const mine = ++request;
    // The API reads quantities with their units, as the CLI does: the fields' units are appended.
    const common = { alpha: `${q.alpha}us`, bw: `${q.bw}GB/s`, gamma: `${q.gamma}ns/B` };
    const lo = Math.min(sweepMin, ...(measured ? measured.points.map((m) => 2 ** Math.floor(Math.log2(m.size))) : []));
    const hi = Math.max(sweepMax, ...(measured ? measured.points.map((m) => 2 ** Math.ceil(Math.log2(m.size))) : []));
    const [sizes, ranks] = await Promise.all([
      api('model/sizes', { p: q.p, ...common, min: String(Math.max(4, lo)), max: String(hi) }),
      api('model/ranks', { size: String(q.bytes), max_p: q.maxP, ...common }),
    ]);
    if (mine !== request) return;
    if (!sizes.ok) return showApiError(sizes);
    if (!ranks.ok) return showApiError(ranks);
    drawSizes(sizes.data, q.bytes);
    drawRanks(ranks.data);
  }

  function drawSizes(d, markBytes) {
    const series = d.algorithms.map((name) => ({
      name, color: colorOf(name),
      points: d.rows.map((row) => [row.size_bytes, row.algorithms.find((a) => a.algorithm === name).time_us]),
    }));
    const entries = d.algorithms.map((name) => ({ name: name.replace(/_/g, ' '), color: colorOf(name) }));
    if (measured) {
      for (const name of [...new Set(measured.points.map((m) => m.algorithm))]) {
        series.push({ name: `measured ${name}`, color: colorOf(name), line: false, marker: 'circle',
          points: measured.points.filter((m) => m.algorithm === name).map((m) => [m.size, m.us]) });
        entries.push({ name: `measured ${name.replace(/_/g, ' ')} (out-of-place, p = ${measured.p})`, color: colorOf(name), kind: 'dot' });
      }
    }
    const vlines = d.crossovers.map((c) => ({ x: c.size_bytes, label: `${c.to.replace(/_/g, ' ')} from ${formatBytes(c.size_bytes)}`, color: colorOf(c.to) }));
    vlines.push({ x: markBytes, label: `n = ${formatBytes(markBytes)}`, color: '#888' });
    const title = `Predicted AllReduce time against message size, p = ${d.p}, float32 (log-log)`;
    $('model-sizes-title').textContent = title;
    drawChart($('model-sizes-svg'), {
      title,
      x: { log: true, base: 2, label: 'message size n per rank', format: formatBytes },
      y: { log: true, base: 10, pad: 1.3, label: 'predicted time', format: formatTime },
      series, vlines,
    });
    legend($('model-sizes-legend'), entries);
    const crossings = $('model-crossovers');
    crossings.replaceChildren();
    if (d.crossovers.length === 0) {
      crossings.textContent = `Fastest at every size: ${d.rows[0].fastest.replace(/_/g, ' ')}.`;
    } else {
      crossings.append(`Fastest below ${formatBytes(d.crossovers[0].size_bytes)}: ${d.rows[0].fastest.replace(/_/g, ' ')}. Crossovers (exact, found by bisection): `);
      crossings.append(d.crossovers.map((c) => `${c.from.replace(/_/g, ' ')} → ${c.to.replace(/_/g, ' ')} at ${formatBytes(c.size_bytes)}`).join('; ') + '.');
    }
  }

  function drawRanks(d) {
    const pick = (key) => d.rows.map((r) => [r.p, r[key]]);
    const title = `Ring AllReduce terms against p at n = ${formatBytes(d.size_bytes)}`;
    $('model-ranks-title').textContent = title;
    drawChart($('model-ranks-svg'), {
      title,
      x: { log: false, label: 'ranks p', format: (v) => String(v) },
      y: { log: false, min: 0, label: 'time', format: formatTime },
      series: [
        { name: 'startup', color: '#d62728', points: pick('startup_us') },
        { name: 'bandwidth', color: '#1f77b4', points: pick('bandwidth_us') },
        { name: 'total', color: '#333', dash: '5 4', points: pick('time_us') },
      ],
      hlines: [{ y: d.limit_2n_beta_us, label: `2nβ = ${formatTime(d.limit_2n_beta_us)}`, color: '#1f77b4' }],
    });
    legend($('model-ranks-legend'), [
      { name: 'startup term 2(p-1)α', color: '#d62728' },
      { name: 'bandwidth term 2(p-1)/p · nβ', color: '#1f77b4' },
      { name: 'total, with the reduction term', color: '#333', dash: true },
      { name: 'limit 2nβ', color: '#1f77b4', dash: true },
    ]);
    const last = d.rows[d.rows.length - 1];
    $('model-ranks-note').textContent = `At p = ${last.p} the bandwidth term is ${(100 * last.bandwidth_us / d.limit_2n_beta_us).toFixed(1)}% of 2nβ: it approaches 2nβ and never shrinks as p grows, while the startup term grows linearly in p (${formatTime(last.startup_us)} at p = ${last.p}).`;
  }

  async function loadBench(file) {
    const msg = $('model-bench');
    const answer = await apiPost('record', await file.text(), { name: file.name });
    let read = null;
    try {
      if (!answer.ok || !answer.data.valid) throw new Error(answer.data.error);
      read = recordPoints(answer.data);
    } catch (error) {
      setFieldMessage(msg, `${error.message}; the measurements shown before are kept.`);
      return;
    }
    measured = read;
    setFieldMessage(msg, '');
    const note = $('model-bench-note');
    note.replaceChildren(el('span', { text: `Measured: ${file.name}, ${measured.points.length} sizes, p = ${measured.p}, ${measured.algorithm || 'ring'} over ${measured.transport || 'an unnamed transport'}, ringlab ${measured.version || '(version not recorded)'}.` }));
    if (readParams() && Number(fields.p.value) !== measured.p) {
      fields.p.value = String(measured.p);
      note.append(` p is set to ${measured.p} to match the measurements.`);
    }
    $('model-bench-clear').hidden = false;
    await update();
  }

  for (const f of Object.values(fields)) f.addEventListener('change', update);
  size.addEventListener('input', () => { $('model-size-text').textContent = formatBytes(2 ** Number(size.value)); });
  size.addEventListener('change', update);
  $('model-form').addEventListener('submit', (e) => { e.preventDefault(); update(); });
  $('model-bench').addEventListener('change', (e) => { if (e.target.files[0]) loadBench(e.target.files[0]); });
  $('model-bench-clear').addEventListener('click', () => {
    measured = null;
    $('model-bench').value = '';
    $('model-bench-note').textContent = '';
    $('model-bench-clear').hidden = true;
    update();
  });
  update();
}
