// Panel 3 with a GPU log (nccl-tests): what the log says ran it, and the verdict of NCCL's model
// on it as the server judged it against the GPU system field (record::compareGpu: the verdict
// `ringlab compare` prints given the same system). Every number is the server's; this module only
// lays them out.
import { el, formatBytes, formatTime } from './common.js';
import { drawChart, legend } from './chart.js';

const $ = (id) => document.getElementById(id);
// Greys: ringlab's algorithm colours mean ringlab's algorithms, and NCCL's are not among them.
const measuredColour = '#3d4556';
const predictedColour = '#8a94a6';
const predictedDash = '7 4';

// A ratio as the CLI's table prints it.
const ratioText = (r) => r.toFixed(2);

// Shows panel 3's GPU section for the answer's `gpu` ({device, p, sentence | verdict}); the note
// under the file field has said what the log ran on.
export function showGpu(gpu) {
  $('model-gpu').hidden = false;
  const sentence = $('model-gpu-sentence');
  sentence.hidden = Boolean(gpu.verdict);
  sentence.textContent = gpu.verdict ? '' : `${gpu.sentence[0].toUpperCase()}${gpu.sentence.slice(1)}.`;
  $('model-gpu-verdict').hidden = !gpu.verdict;
  if (gpu.verdict) showVerdict(gpu.verdict);
}

export function hideGpu() {
  $('model-gpu').hidden = true;
}

function showVerdict(v) {
  const s = v.system;
  $('model-gpu-system').textContent = `Judged against ${s.name} (${s.title}): ${s.description}. Its figures: ${s.source}.`;
  $('model-gpu-figures').textContent = `Predicted as NCCL runs AllReduce, from NCCL's published figures (${v.nccl_figures}): the algorithm, protocol and channels NCCL would pick at each size. Times are of one out-of-place AllReduce, the log's first time column.`;
  const flagged = $('model-gpu-flagged');
  flagged.textContent = v.flagged ? 'Verdict: flagged (see the findings).' : 'Verdict: within the model\'s margins.';
  flagged.className = `verdict ${v.flagged ? 'wrong' : 'right'}`;
  drawTimes(v);
  showBands(v.bands);
  const findings = $('model-gpu-findings');
  findings.replaceChildren(...v.findings.map((f) => el('li', { text: f })));
  findings.hidden = v.findings.length === 0;
  $('model-gpu-no-findings').hidden = v.findings.length > 0;
  showTable(v.rows);
  $('model-gpu-notes').replaceChildren(...v.notes.map((n) => el('li', { text: n })));
  $('model-gpu-notes-count').textContent = String(v.notes.length);
}

function drawTimes(v) {
  const title = `Measured and NCCL-predicted AllReduce time against message size, p = ${v.p}, ${v.system.name} (log-log)`;
  $('model-gpu-chart-title').textContent = title;
  drawChart($('model-gpu-svg'), {
    title,
    x: { log: true, base: 2, label: 'message size n per rank', format: formatBytes },
    y: { log: true, base: 10, pad: 1.3, label: 'time (out-of-place)', format: formatTime },
    series: [
      { name: 'predicted', role: 'model', color: predictedColour, dash: predictedDash, points: v.rows.map((r) => [r.size_bytes, r.predicted_us]) },
      { name: 'measured', role: 'measured', color: measuredColour, marker: 'circle', points: v.rows.map((r) => [r.size_bytes, r.measured_us]) },
    ],
  });
  legend($('model-gpu-legend'), [
    { name: 'measured (dots: the log\'s out-of-place time)', color: measuredColour, kind: 'marker' },
    { name: `predicted: NCCL's pick at each size on ${v.system.name}`, color: predictedColour, dash: predictedDash },
  ]);
}

function showBands(bands) {
  $('model-gpu-bands').replaceChildren(...bands.map((b) => {
    const item = el('li', { text: `${b.band}: measured/predicted ${ratioText(b.median_measured_over_predicted)} (median over ${b.rows} size${b.rows === 1 ? '' : 's'}; median |measured/predicted − 1| ${b.median_abs_error.toFixed(3)})` });
    Object.assign(item.dataset, { band: b.band, rows: String(b.rows), ratio: String(b.median_measured_over_predicted), error: String(b.median_abs_error) });
    return item;
  }));
}

const columns = ['size', 'measured', 'NCCL predicted', 'measured / predicted', 'NCCL algorithm / protocol (channels)', 'regime'];

// One row per size; the exact figures ride on data attributes, the cells show them rounded.
function showTable(rows) {
  const table = $('model-gpu-table');
  const head = el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', text: c }))));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', { 'data-size': String(r.size_bytes), 'data-measured-us': String(r.measured_us), 'data-predicted-us': String(r.predicted_us),
      'data-ratio': String(r.measured_over_predicted), 'data-algorithm': r.algorithm, 'data-protocol': r.protocol, 'data-channels': String(r.channels), 'data-regime': r.regime });
    tr.append(
      el('td', { class: 'num', title: `${r.size_bytes.toLocaleString('en-US')} B`, text: formatBytes(r.size_bytes) }),
      el('td', { class: 'num', text: formatTime(r.measured_us) }),
      el('td', { class: 'num', text: formatTime(r.predicted_us) }),
      el('td', { class: 'num', text: ratioText(r.measured_over_predicted) }),
      el('td', { text: `${r.algorithm}/${r.protocol} (${r.channels})` }),
      el('td', { text: r.regime }));
    body.append(tr);
  }
  table.replaceChildren(head, body);
}
