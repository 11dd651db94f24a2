// Panel 3: the cost-model explorer. Predictions come from /api/model/sizes and /api/model/ranks
// (the library's predictAllReduce and fastestAlgorithm); the quantity fields go to the server as
// typed, with the unit shown beside them for a bare number, and the server reads them with the
// CLI's parser. A file the user picks goes to /api/record: a `ringlab calibrate` profile sets the
// parameters, measurements (`ringlab bench --json`, an nccl-tests log) are drawn over the
// prediction, and any difference in p, dtype or transport between the two is stated. A log that
// ran on GPUs is not: the server judges it against NCCL's model of the GPU system field instead
// (gpu.js shows that verdict), and the file's text is kept to ask again when that field changes.
import { api, apiPost, parseWhole, setFieldMessage, formatBytes, formatTime, el, withUnit, ActionQueue } from './common.js';
import { drawChart, legend, colourOf } from './chart.js';
import { showGpu, hideGpu } from './gpu.js';

const $ = (id) => document.getElementById(id);
const sweepMin = 8, sweepMax = 1 << 30;
const spaced = (name) => name.replace(/_/g, ' ');
const orUnknown = (value) => (value === undefined || value === null || value === '' ? 'not recorded' : String(value));
// "shm", "tcp (2 hosts)", "gloo (torch.distributed), 2 processes": the transport's own name.
const transportName = (text) => (text || '').trim().split(/[\s(,]/)[0].toLowerCase();

// The record the server read (measure's one reader) as chart points and what it was measured on.
function recordPoints(doc, file) {
  const run = doc.run;
  const points = [];
  for (const row of doc.rows) {
    const size = row.size_bytes, oop = row.out_of_place?.time_us;
    if (size > 0 && oop > 0) points.push({ size, us: oop, algorithm: row.algorithm || run.algorithm || 'ring' });
  }
  if (points.length === 0) throw new Error(`${file}: no rows with a positive size and time`);
  const dtype = doc.rows.find((r) => r.dtype)?.dtype || run.dtype;
  return { file, p: run.p, dtype, algorithm: run.algorithm, transport: run.transport, version: run.ringlab_version, host: run.host, date: run.date, points };
}

function profileOf(doc, file) {
  const p = doc.profile;
  return { file, params: doc.params, dtype: doc.dtype, ranks: doc.ranks, transport: p.transport, host: p.host, date: p.date, version: p.ringlab_version,
    concurrency: p.concurrent_transfers, cacheBytes: p.cache_bytes, unstable: p.unstable || [] };
}

export function initModel(limits, defaults) {
  const fields = { p: $('model-p'), alpha: $('model-alpha'), bw: $('model-bw'), gamma: $('model-gamma'), maxp: $('model-maxp') };
  const size = $('model-size');
  const dtype = $('model-dtype');
  let measured = null;  // the measurements drawn, or null
  let profile = null;   // the profile the parameters came from, or null
  let gpuLog = null;    // the GPU log shown, {file, text}, or null
  const system = $('model-system');
  const queue = new ActionQueue((busy) => $('model-form').setAttribute('aria-busy', String(busy)));

  const shown = (v) => String(+v.toPrecision(4));
  function setParams(params) {
    fields.alpha.value = shown(params.alpha_us);
    fields.bw.value = shown(params.bw_GBps);
    fields.gamma.value = shown(params.gamma_ns_per_byte);
  }
  setParams(defaults);
  document.querySelectorAll('.max-model-p').forEach((n) => { n.textContent = String(limits.max_model_p); });

  // The whole numbers are checked here for an inline message at once; the quantities only by the
  // server, which reads them as the CLI does.
  function readParams() {
    const checks = {
      p: parseWhole(fields.p.value, { min: 2, max: limits.max_model_p, what: 'p' }),
      maxp: parseWhole(fields.maxp.value, { min: 2, max: limits.max_model_p, what: 'the largest p' }),
    };
    let ok = true;
    for (const [name, c] of Object.entries(checks)) ok = setFieldMessage(fields[name], c.error || '') && ok;
    if (!ok) return null;
    const bytes = 2 ** Number(size.value);
    $('model-size-text').textContent = formatBytes(bytes);
    return { p: checks.p.value, maxP: checks.maxp.value, bytes, dtype: dtype.value,
      alpha: withUnit(fields.alpha.value, 'us'), bw: withUnit(fields.bw.value, 'GB/s'), gamma: withUnit(fields.gamma.value, 'ns/B') };
  }

  function showApiError(r) {
    const byField = { p: fields.p, max_p: fields.maxp, alpha: fields.alpha, bw: fields.bw, gamma: fields.gamma };
    const target = byField[r.data.field];
    if (target) setFieldMessage(target, r.data.error);
    else $('model-crossovers').textContent = r.data.error;
  }

  async function update() {
    const q = readParams();
    if (!q) return false;
    const common = { alpha: q.alpha, bw: q.bw, gamma: q.gamma, dtype: q.dtype };
    const lo = Math.min(sweepMin, ...(measured ? measured.points.map((m) => 2 ** Math.floor(Math.log2(m.size))) : []));
    const hi = Math.max(sweepMax, ...(measured ? measured.points.map((m) => 2 ** Math.ceil(Math.log2(m.size))) : []));
    const [sizes, ranks] = await Promise.all([
      api('model/sizes', { p: q.p, ...common, min: String(Math.max(lo, 8)), max: String(hi) }),
      api('model/ranks', { size: String(q.bytes), max_p: q.maxP, ...common }),
    ]);
    if (!sizes.ok) return showApiError(sizes), false;
    if (!ranks.ok) return showApiError(ranks), false;
    for (const name of ['alpha', 'bw', 'gamma']) setFieldMessage(fields[name], '');
    drawSizes(sizes.data, q.bytes);
    drawRanks(ranks.data);
    describe(sizes.data);
    return true;
  }

  function drawSizes(d, markBytes) {
    const series = d.algorithms.map((name) => ({
      name, algorithm: name, color: colourOf(name), role: 'model',
      points: d.rows.map((row) => [row.size_bytes, row.algorithms.find((a) => a.algorithm === name).time_us]),
    }));
    const entries = d.algorithms.map((name) => ({ name: `predicted ${spaced(name)}`, algorithm: name, color: colourOf(name) }));
    if (measured) {
      for (const name of [...new Set(measured.points.map((m) => m.algorithm))]) {
        series.push({ name: `measured ${name}`, algorithm: name, color: colourOf(name), role: 'measured', line: false, marker: 'circle',
          points: measured.points.filter((m) => m.algorithm === name).map((m) => [m.size, m.us]) });
        entries.push({ name: `measured ${spaced(name)} (dots: out-of-place, p = ${measured.p}, ${measured.dtype})`, algorithm: name, color: colourOf(name), kind: 'marker' });
      }
    }
    const vlines = d.crossovers.map((c) => ({ x: c.size_bytes, algorithm: c.to, label: `${spaced(c.to)} from ${formatBytes(c.size_bytes)}`, color: colourOf(c.to) }));
    vlines.push({ x: markBytes, label: `n = ${formatBytes(markBytes)}`, color: '#666' });
    const title = `Predicted AllReduce time against message size, p = ${d.p}, ${d.dtype} (log-log)`;
    $('model-sizes-title').textContent = title;
    drawChart($('model-sizes-svg'), {
      title,
      x: { log: true, base: 2, label: 'message size n per rank', format: formatBytes },
      y: { log: true, base: 10, pad: 1.3, label: 'time', format: formatTime },
      series, vlines,
    });
    entries.push({ name: 'crossovers (in the colour of the algorithm taking over) and n', color: '#666', dash: '5 4' });
    legend($('model-sizes-legend'), entries);
    const crossings = $('model-crossovers');
    crossings.replaceChildren();
    if (d.crossovers.length === 0) {
      crossings.textContent = `Fastest at every size: ${spaced(d.rows[0].fastest)}.`;
    } else {
      crossings.append(`Fastest below ${formatBytes(d.crossovers[0].size_bytes)}: ${spaced(d.rows[0].fastest)}. Crossovers (exact, found by bisection): `);
      crossings.append(d.crossovers.map((c) => `${spaced(c.from)} → ${spaced(c.to)} at ${formatBytes(c.size_bytes)}`).join('; ') + '.');
    }
  }

  // The ring's terms: one algorithm, so one colour; each term its own dash.
  const terms = [
    { key: 'time_us', name: 'total, with the reduction term', dash: 'none' },
    { key: 'startup_us', name: 'startup term 2(p-1)α', dash: '2 4' },
    { key: 'bandwidth_us', name: 'bandwidth term 2(p-1)/p · nβ', dash: '10 5' },
  ];
  function drawRanks(d) {
    const ring = colourOf(d.algorithm);
    const title = `Ring AllReduce terms against p at n = ${formatBytes(d.size_bytes)}, ${d.dtype}`;
    $('model-ranks-title').textContent = title;
    drawChart($('model-ranks-svg'), {
      title,
      x: { log: false, label: 'ranks p', format: (v) => String(v) },
      y: { log: false, min: 0, label: 'time', format: formatTime },
      series: terms.map((t) => ({ name: t.name, algorithm: d.algorithm, role: 'term', color: ring, dash: t.dash, points: d.rows.map((r) => [r.p, r[t.key]]) })),
      hlines: [{ y: d.limit_2n_beta_us, label: `2nβ = ${formatTime(d.limit_2n_beta_us)}`, color: '#666', dash: '1 3' }],
    });
    legend($('model-ranks-legend'), [
      ...terms.map((t) => ({ name: t.name, algorithm: d.algorithm, color: ring, dash: t.dash })),
      { name: 'limit 2nβ of the bandwidth term', color: '#666', dash: '1 3' },
    ]);
    const last = d.rows[d.rows.length - 1];
    $('model-ranks-note').textContent = `At p = ${last.p} the bandwidth term is ${(100 * last.bandwidth_us / d.limit_2n_beta_us).toFixed(1)}% of 2nβ: it approaches 2nβ and never shrinks as p grows, while the startup term grows linearly in p (${formatTime(last.startup_us)} at p = ${last.p}).`;
  }

  // What the prediction uses, as the server read it, and where it differs from the measurements.
  function describe(d) {
    const m = d.params;
    const source = profile ? `profile ${profile.file}` : 'the stated defaults (not calibrated)';
    $('model-params-note').textContent = `Predicting for p = ${d.p}, ${d.dtype}, with α = ${+m.alpha_us.toPrecision(4)} µs, 1/β = ${+m.bw_GBps.toPrecision(4)} GB/s, γ = ${+m.gamma_ns_per_byte.toPrecision(4)} ns/B as the server read them; parameters from ${source}.`;
    const warnings = [];
    if (measured && measured.p !== d.p) warnings.push(`The measurements are for p = ${measured.p}, the prediction for p = ${d.p}.`);
    if (measured && measured.dtype && measured.dtype !== d.dtype) warnings.push(`The measurements are ${measured.dtype}, the prediction is for ${d.dtype}: choose ${measured.dtype} under dtype to compare like with like.`);
    if (measured && profile && transportName(measured.transport) !== transportName(profile.transport)) {
      warnings.push(`The measurements ran over ${orUnknown(measured.transport)}, the profile was calibrated over ${orUnknown(profile.transport)}.`);
    }
    if (profile && profile.ranks !== null && profile.ranks !== d.p) warnings.push(`The profile was measured for p = ${profile.ranks}, the prediction is for p = ${d.p}.`);
    if (profile && profile.dtype !== d.dtype) warnings.push(`The profile's γ was measured on ${profile.dtype}, the prediction is for ${d.dtype}.`);
    const list = $('model-warnings');
    list.replaceChildren(...warnings.map((w) => el('li', { text: w })));
    list.hidden = warnings.length === 0;
  }

  function showProfile(loaded) {
    profile = loaded;
    setParams(loaded.params);
    const ranks = loaded.ranks === null ? 'any (point-to-point ping-pong between pairs of ranks)' : String(loaded.ranks);
    const note = $('model-profile-note');
    note.replaceChildren(el('span', { text: `Profile: ${loaded.file}: transport ${orUnknown(loaded.transport)}, p ${ranks}, dtype ${loaded.dtype} (the reduction γ), host ${orUnknown(loaded.host)}, date ${orUnknown(loaded.date)}, ringlab ${orUnknown(loaded.version)}. α, 1/β and γ are set from it.` }));
    if (loaded.concurrency > 0 || loaded.cacheBytes > 0) {
      note.append(' Its limit on concurrent transfers and memory regime are not part of this panel\'s model; ringlab model --profile uses them.');
    }
    // The flag calibrate set travels with the profile, as on the command line (README: UNSTABLE).
    if (loaded.unstable.length > 0) {
      note.append(el('strong', { text: ` UNSTABLE: calibrate could not trust this profile's fit (${loaded.unstable.join('; ')}), so predictions from it may be far off; calibrate again with more --rounds or -n/--iters, on a quieter machine.` }));
    }
    $('model-profile-clear').hidden = false;
  }

  function showMeasured(loaded) {
    measured = loaded;
    gpuLog = null;
    hideGpu();
    const note = $('model-bench-note');
    note.replaceChildren(el('span', { text: `Measured: ${loaded.file}: transport ${orUnknown(loaded.transport)}, p = ${loaded.p}, dtype ${orUnknown(loaded.dtype)}, host ${orUnknown(loaded.host)}, date ${orUnknown(loaded.date)}, ${loaded.points.length} sizes of ${loaded.algorithm || 'ring'}, ringlab ${orUnknown(loaded.version)}.` }));
    const matched = [];
    if (Number(fields.p.value) !== loaded.p) { fields.p.value = String(loaded.p); matched.push(`p to ${loaded.p}`); }
    if (loaded.dtype && [...dtype.options].some((o) => o.value === loaded.dtype) && dtype.value !== loaded.dtype) {
      dtype.value = loaded.dtype;
      matched.push(`dtype to ${loaded.dtype}`);
    }
    if (matched.length) note.append(` The prediction's ${matched.join(' and ')} ${matched.length > 1 ? 'are' : 'is'} set to match.`);
    $('model-bench-clear').hidden = false;
  }

  // A GPU log: what it says ran it, and the server's verdict (or what to give for one). The
  // alpha-beta charts lose any measured points: they price CPU ranks.
  function showGpuLog(log, doc) {
    gpuLog = log;
    measured = null;
    const dtype = doc.rows.find((r) => r.dtype)?.dtype || doc.run.dtype;
    $('model-bench-note').textContent = `Measured: ${log.file}: ${doc.gpu.device}, p = ${doc.gpu.p}, dtype ${orUnknown(dtype)}, ${doc.rows.length} sizes.`;
    $('model-bench-clear').hidden = false;
    showGpu(doc.gpu);
  }

  // POST /api/record with the GPU system field's value, when it holds one (the server reads it
  // only for a GPU log).
  const askRecord = (text, name, spec) => apiPost('record', text, spec ? { name, system: spec } : { name });

  async function loadFile(file) {
    const input = $('model-bench');
    const text = await file.text();
    const spec = system.value.trim();
    let answer = await askRecord(text, file.name, spec);
    const systemRefused = answer.data.field === 'system';
    if (systemRefused) {
      // The log is shown all the same, without a verdict, and the field says what is wrong.
      setFieldMessage(system, answer.data.error);
      answer = await askRecord(text, file.name, '');
    }
    try {
      if (!answer.ok || !answer.data.valid) throw new Error(answer.data.error);
      if (answer.data.kind === 'profile') showProfile(profileOf(answer.data, file.name));
      else if (answer.data.gpu) showGpuLog({ file: file.name, text }, answer.data);
      else showMeasured(recordPoints(answer.data, file.name));
    } catch (error) {
      setFieldMessage(input, `${error.message}; what was loaded before is kept.`);
      return false;
    }
    if (answer.data.gpu && !systemRefused) setFieldMessage(system, '');
    setFieldMessage(input, '');
    return update();
  }

  // The GPU system field changed: the GPU log shown is asked for again, with the same text. A
  // system the server refuses keeps the verdict shown, as a refused parameter keeps the charts.
  async function rejudge() {
    if (!gpuLog) return setFieldMessage(system, '');
    const answer = await askRecord(gpuLog.text, gpuLog.file, system.value.trim());
    if (!answer.ok || !answer.data.valid) return setFieldMessage(system, answer.data.error), false;
    setFieldMessage(system, '');
    showGpuLog(gpuLog, answer.data);
    return true;
  }

  const refresh = () => queue.push(update, 'update');
  for (const f of Object.values(fields)) f.addEventListener('change', refresh);
  dtype.addEventListener('change', refresh);
  system.addEventListener('change', () => queue.push(rejudge));
  size.addEventListener('input', () => { $('model-size-text').textContent = formatBytes(2 ** Number(size.value)); });
  size.addEventListener('change', refresh);
  $('model-form').addEventListener('submit', (e) => { e.preventDefault(); refresh(); });
  $('model-bench').addEventListener('change', (e) => {
    const file = e.target.files[0];
    if (file) queue.push(() => loadFile(file));
  });
  $('model-bench-clear').addEventListener('click', () => queue.push(() => {
    measured = null;
    gpuLog = null;
    hideGpu();
    $('model-bench').value = '';
    $('model-bench-note').textContent = '';
    $('model-bench-clear').hidden = true;
    return update();
  }));
  $('model-profile-clear').addEventListener('click', () => queue.push(() => {
    profile = null;
    setParams(defaults);
    $('model-profile-note').textContent = '';
    $('model-profile-clear').hidden = true;
    return update();
  }));
  refresh();
}
