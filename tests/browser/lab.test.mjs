// The lab page in headless Chromium (Debian's chromium, driven by playwright-core; no browser is
// ever downloaded), against `ringlab lab` started here on a free port. Plays the seed's two
// scenarios with clicks and typed values, steps the ring schedule, checks the invalid stride,
// the model charts and a measured-point overlay, a GPU log's verdict against `ringlab compare`'s,
// bad input in every panel, a narrow window, and
// that the console stays free of errors. Screenshots of each panel go to RINGLAB_SCREENSHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLab, runRinglab, scratchDir, launchChromium, screenshotDir } from './lab_server.mjs';
import { formatBytes, formatTime } from '../../web/common.js';

// Real third-party logs the CLI tests read too.
const dataDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'data');

const shots = screenshotDir('lab-screenshots');

let lab, url, context, page;
const consoleProblems = [];

before(async () => {
  lab = startLab();
  url = await lab.url;
  context = await launchChromium({ width: 1280, height: 800 });
  page = context.pages()[0] || await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') consoleProblems.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (error) => consoleProblems.push(`exception: ${error.message}`));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
});

after(async () => {
  await context?.close();
  await lab?.stop();
});

// What the element shows: innerText for HTML, textContent inside SVG (which has no innerText).
const text = (selector) => page.locator(selector).evaluate((n) => (n instanceof HTMLElement ? n.innerText : n.textContent));

// Waits (the page answers clicks after a round trip to the server) until the element's text
// equals `expected` or matches it, then asserts it, so a failure shows the text last seen.
async function see(selector, expected, message) {
  const matches = (t) => (expected instanceof RegExp ? expected.test(t) : t === expected);
  const deadline = Date.now() + 10000;  // generous: ctest runs other suites alongside
  let last = await text(selector);
  while (!matches(last) && Date.now() < deadline) {
    await page.waitForTimeout(25);
    last = await text(selector);
  }
  if (expected instanceof RegExp) assert.match(last, expected, message);
  else assert.equal(last, expected, message);
}

async function typeInto(selector, value) {
  await page.fill(selector, '');
  await page.locator(selector).pressSequentially(value);
}

// Panel 2 reloads on a field's change and on Show schedule; wait until the last answer is in.
async function ringSettled() {
  await page.waitForFunction(() => document.getElementById('ring-form').getAttribute('aria-busy') === 'false');
}

async function screenshotPanel(id, file) {
  await page.evaluate(() => document.activeElement?.blur());  // no focus ring in the picture
  await page.locator(`#${id}`).screenshot({ path: path.join(shots, file) });
}

test('panel 1: m = 8, a = 1, predict 8, Play: period 8, right, all 8 residues', async () => {
  await page.click('#orbit-reset');
  await typeInto('#orbit-m', '8');
  await typeInto('#orbit-a', '1');
  await typeInto('#orbit-predict', '8');
  await page.selectOption('#orbit-speed', '120');
  await page.click('#orbit-play');
  await page.waitForSelector('#orbit-result:not([hidden])', { timeout: 10000 });
  await see('#orbit-steps', '8');
  await see('#orbit-period', /Period found: 8\./);
  await see('#orbit-verdict', 'Your prediction 8: right.');
  await see('#orbit-formula', /m \/ gcd\(m, a\) = 8 \/ gcd\(8, 1\) = 8 \/ 1 = 8/);
  await see('#orbit-coverage', 'Visits 8 of 8 residues: all of them.');
  assert.equal(await page.locator('#orbit-svg circle.residue.visited').count(), 8);
  await see('#orbit-play', 'Play', 'Play turns back from Pause when the orbit closes');
});

test('panel 1: m = 8, a = 2, predict 4, Step by Step: period 4, right, only half the residues', async () => {
  await page.click('#orbit-reset');
  await see('#orbit-steps', '0');
  assert.equal(await page.locator('#orbit-result').isHidden(), true);
  await typeInto('#orbit-m', '8');
  await typeInto('#orbit-a', '2');
  await typeInto('#orbit-predict', '4');
  for (let k = 1; k <= 3; k++) {
    await page.click('#orbit-step');
    await see('#orbit-steps', String(k));
    await see('#orbit-x', String(2 * k));
    assert.equal(await page.locator('#orbit-result').isHidden(), true, 'no verdict before the orbit closes');
  }
  await page.click('#orbit-step');
  await see('#orbit-steps', '4');
  await see('#orbit-x', '0');
  await see('#orbit-period', /Period found: 4\./);
  await see('#orbit-verdict', 'Your prediction 4: right.');
  await see('#orbit-formula', /= 8 \/ gcd\(8, 2\) = 8 \/ 2 = 4/);
  await see('#orbit-coverage', 'Visits 4 of 8 residues: only half of them; never reached: 1, 3, 5, 7.');
  assert.equal(await page.locator('#orbit-svg circle.residue.visited').count(), 4);
  await see('#orbit-visited', '0, 2, 4, 6');
  await screenshotPanel('orbit', 'panel1-orbit.png');
  // Another Step after the close changes nothing and says so.
  await page.click('#orbit-step');
  await see('#orbit-steps', '4');
  await see('#orbit-note', /Press Reset/);
});

test('panel 1: a wrong prediction, a = 0, a negative a and a >= m', async () => {
  await page.click('#orbit-reset');
  await typeInto('#orbit-m', '8');
  await typeInto('#orbit-a', '2');
  await typeInto('#orbit-predict', '8');
  await page.selectOption('#orbit-speed', '120');
  await page.click('#orbit-play');
  await page.waitForSelector('#orbit-result:not([hidden])');
  await see('#orbit-verdict', 'Your prediction 8: wrong (the period is 4).');

  await page.click('#orbit-reset');
  await typeInto('#orbit-a', '0');
  await page.fill('#orbit-predict', '');
  await page.click('#orbit-step');
  await see('#orbit-period', /Period found: 1\./);
  await see('#orbit-verdict', 'No prediction was entered.');
  await see('#orbit-note', /never leaves 0/);

  await page.click('#orbit-reset');
  await typeInto('#orbit-a', '-3');
  await page.click('#orbit-step');
  await see('#orbit-note', /a = -3 is taken mod 8: each step adds 5/);
  await see('#orbit-x', '5');

  await page.click('#orbit-reset');
  await typeInto('#orbit-a', '10');
  await page.click('#orbit-step');
  await see('#orbit-note', /a = 10 is taken mod 8: each step adds 2/);
});

test('panel 1: bad input gets an inline message and keeps the previous state', async () => {
  await page.click('#orbit-reset');
  await typeInto('#orbit-m', '8');
  await typeInto('#orbit-a', '2');
  await page.fill('#orbit-predict', '');
  await page.click('#orbit-step');
  await see('#orbit-steps', '1');
  for (const [m, pattern] of [['0', /outside 1 to 64/], ['65', /outside 1 to 64/], ['2.5', /not a whole number/], ['', /enter the modulus m/], ['abc', /not a whole number/]]) {
    await page.fill('#orbit-m', m);
    await page.click('#orbit-step');
    await see('#orbit-m-msg', pattern, `m = "${m}"`);
    assert.equal(await page.getAttribute('#orbit-m', 'aria-invalid'), 'true');
    await see('#orbit-steps', '1', 'the walk shown is kept');
  }
  await typeInto('#orbit-m', '8');
  await typeInto('#orbit-predict', 'four');
  await page.click('#orbit-step');
  await see('#orbit-predict-msg', /not a whole number/);
  await see('#orbit-steps', '1');
  await page.fill('#orbit-predict', '4');
  await page.click('#orbit-step');
  await see('#orbit-steps', '2');
  await see('#orbit-m-msg', '');
});

test('panel 1: keyboard only: Tab to Step, Space steps', async () => {
  await page.click('#orbit-reset');
  await typeInto('#orbit-a', '3');
  await page.focus('#orbit-reset');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'orbit-step');
  await page.keyboard.press('Space');
  await see('#orbit-steps', '1');
  await see('#orbit-x', '3');
});

test('panel 2: p = 4 has 6 steps; step 1 moves the right chunks; Back and Reset', async () => {
  await page.locator('#ring').scrollIntoViewIfNeeded();
  await typeInto('#ring-p', '4');
  await page.check('#ring-order-identity');
  await page.selectOption('#ring-collective', 'allreduce');
  await page.click('#ring-load');
  await ringSettled();
  await page.waitForFunction(() => document.querySelector('#ring-status').dataset.steps === '6');
  await see('#ring-status', /^6 steps in all/);
  await page.click('#ring-step');
  await see('#ring-status', 'Step 1 of 6 (reduce-scatter).');
  // As `ringlab verify -p 4` prints step 1: 0->1 b3 reduce | 1->2 b0 | 2->3 b1 | 3->0 b2.
  const moves = await page.locator('#ring-transfers li').evaluateAll((items) =>
    items.map((li) => [li.dataset.src, li.dataset.dst, li.dataset.first, li.dataset.mode].join(' ')));
  assert.deepEqual(moves, ['0 1 3 reduce', '1 2 0 reduce', '2 3 1 reduce', '3 0 2 reduce']);
  await see('#ring-transfers li:first-child', 'rank 0 → rank 1: chunk 3, reduce (added in)');
  await see('#ring-chunks td[data-rank="1"][data-chunk="3"]', '0+1');
  assert.equal(await page.locator('#ring-svg path.transfer.reduce').count(), 4);
  // Running counters: one chunk of 1 MiB / 4 sent by every rank so far.
  await see('#ring-volume tbody tr:first-child td:nth-child(2)', '262,144 B');
  await see('#ring-volume tbody tr:first-child td:nth-child(3)', '524,288 B');
  await see('#ring-volume-note', /2\(p-1\)n\/p = 1,572,864 B per rank/);
  for (let k = 2; k <= 4; k++) await page.click('#ring-step');
  await see('#ring-status', 'Step 4 of 6 (allgather).');
  assert.equal(await page.locator('#ring-transfers li[data-mode="copy"]').count(), 4);
  await page.click('#ring-back');
  await see('#ring-status', 'Step 3 of 6 (reduce-scatter).');
  // After the reduce-scatter rank 1 owns chunk 1 reduced over all four ranks.
  await see('#ring-chunks td[data-rank="1"][data-chunk="1"]', 'all');
  await page.click('#ring-reset');
  await see('#ring-status', /Before step 1/);
  await page.click('#ring-step');
  await page.click('#ring-step');
  await screenshotPanel('ring', 'panel2-ring.png');
  await page.selectOption('#ring-speed', '350');
  await page.click('#ring-play');
  await page.waitForFunction(() => document.querySelector('#ring-status').dataset.step === '6', null, { timeout: 15000 });
  await see('#ring-status', /Done\. Verifier: valid/);
  await see('#ring-volume tbody tr:first-child td:nth-child(2)', '1,572,864 B');
});

test('panel 2: stride 2 at p = 8 shows the error and the short cycle, not an animation', async () => {
  await typeInto('#ring-p', '8');
  await page.press('#ring-p', 'Enter');
  await ringSettled();
  await page.check('#ring-order-stride');
  await typeInto('#ring-stride', '2');
  await page.click('#ring-load');
  await ringSettled();
  await page.waitForSelector('#ring-error:not([hidden])');
  await see('#ring-error-text', /ring stride 2 shares the factor 2 with p = 8: from rank 0 it visits only 0,2,4,6/);
  await see('#ring-short-cycle', /0 → 2 → 4 → 6 → 0 \(period 4 of p = 8\)\. Left out: ranks 1, 3, 5, 7/);
  assert.equal(await page.isDisabled('#ring-step'), true);
  assert.equal(await page.isDisabled('#ring-play'), true);
  assert.equal(await page.locator('#ring-svg .rank.left-out').count(), 4);
  await screenshotPanel('ring', 'panel2-ring-invalid-stride.png');
  // A coprime stride is a valid ring again.
  await typeInto('#ring-stride', '3');
  await page.click('#ring-load');
  await ringSettled();
  await page.waitForSelector('#ring-error', { state: 'hidden' });
  await page.waitForFunction(() => document.querySelector('#ring-svg').dataset.ringOrder === '0,3,6,1,4,7,2,5');
  await see('#ring-svg', /ring order0 → 3 → 6 → 1 → 4 → 7 →2 → 5 → 0/);
  assert.equal(await page.isDisabled('#ring-step'), false);
});

test('panel 2: bad input is refused inline, the schedule shown is kept', async () => {
  const before = await text('#ring-status');
  for (const [p, pattern] of [['17', /outside 2 to 16/], ['1', /outside 2 to 16/], ['x', /not a whole number/], ['', /enter p/]]) {
    await page.fill('#ring-p', p);
    await page.click('#ring-load');
    await ringSettled();
    await see('#ring-p-msg', pattern, `p = "${p}"`);
    await see('#ring-status', before);
  }
  await typeInto('#ring-p', '4');
  await page.press('#ring-p', 'Enter');
  await ringSettled();
  await see('#ring-p-msg', '');
  await page.check('#ring-order-list');
  for (const [list, pattern] of [['0,1,1,3', /appears twice/], ['0,1,2', /lists 3 ranks/], ['0,1,2,9', /not one of 0 to 3/], ['0;1;2;3', /not a rank number/]]) {
    await page.fill('#ring-list', list);
    await page.click('#ring-load');
    await ringSettled();
    await see('#ring-list-msg', pattern, list);
  }
  await page.fill('#ring-list', '0,2,1,3');
  await page.click('#ring-load');
  await ringSettled();
  await page.waitForFunction(() => document.querySelector('#ring-status').dataset.steps === '6');
  await see('#ring-list-msg', '');
  await page.click('#ring-step');
  await see('#ring-transfers li:first-child', 'rank 0 → rank 2: chunk 3, reduce (added in)');
});

test('panel 1 links to panel 2: m = 8, a = 2 becomes the stride-2 ring over 8 ranks', async () => {
  await page.click('#orbit-reset');
  await typeInto('#orbit-m', '8');
  await typeInto('#orbit-a', '2');
  await page.click('#orbit-to-ring');
  await page.waitForSelector('#ring-error:not([hidden])');
  assert.equal(await page.inputValue('#ring-p'), '8');
  await see('#ring-error-text', /shares the factor 2/);
});

test('panel 1 to panel 2: a bad prediction never blocks the link; a bad m or a says why, and the reason goes once fixed', async () => {
  await page.locator('#orbit').scrollIntoViewIfNeeded();
  await typeInto('#orbit-m', '4');
  await typeInto('#orbit-a', '1');
  await typeInto('#orbit-predict', 'soon');  // panel 1's own exercise: nothing panel 2 needs
  await page.click('#orbit-to-ring');
  await page.waitForFunction(() => document.querySelector('#ring-p').value === '4');
  await see('#orbit-to-ring-msg', '');
  await ringSettled();
  // m out of panel 2's range: blocked, and the message says why...
  await page.locator('#orbit').scrollIntoViewIfNeeded();
  await typeInto('#orbit-m', '1');
  await page.click('#orbit-to-ring');
  await see('#orbit-to-ring-msg', /^Panel 2 draws p = 2 to \d+ ranks; set m in that range\.$/);
  assert.equal(await page.inputValue('#ring-p'), '4', 'panel 2 kept its ring');
  // ...and goes as soon as m is fixed, not at the next click.
  await typeInto('#orbit-m', '6');
  await see('#orbit-to-ring-msg', '');
  // A step a that is not a number: the message names it and the field is marked.
  await typeInto('#orbit-a', 'two');
  await page.click('#orbit-to-ring');
  await see('#orbit-to-ring-msg', /^Fix a above first \(.*\)\.$/);
  assert.equal(await page.getAttribute('#orbit-a', 'aria-invalid'), 'true');
  assert.equal(await page.inputValue('#ring-p'), '4');
  await typeInto('#orbit-a', '1');
  await see('#orbit-to-ring-msg', '');
  await page.fill('#orbit-predict', '');
  await page.click('#orbit-reset');
});

test('panel 3: the model charts render for a size sweep and against p', async () => {
  await page.locator('#model').scrollIntoViewIfNeeded();
  await typeInto('#model-p', '8');
  await page.press('#model-p', 'Enter');
  await page.waitForFunction(() => document.querySelectorAll('#model-sizes-svg path.series').length === 4);
  const names = await page.locator('#model-sizes-svg path.series').evaluateAll((ps) => ps.map((p) => p.dataset.series));
  assert.deepEqual(names, ['ring', 'recursive_doubling', 'rabenseifner', 'binomial_tree']);
  for (const d of await page.locator('#model-sizes-svg path.series').evaluateAll((ps) => ps.map((p) => p.getAttribute('d')))) {
    assert.doesNotMatch(d, /NaN|Infinity/);
    assert.equal(d.split('L').length, 28, 'one point per size, 8 B to 1 GiB');
  }
  await see('#model-crossovers', /Crossovers \(exact, found by bisection\): recursive doubling → rabenseifner at/);
  assert.ok(await page.locator('#model-sizes-svg .vline').count() >= 2, 'crossovers and n are marked');
  assert.equal(await page.locator('#model-ranks-svg path.series').count(), 3);
  await see('#model-ranks-svg', /2nβ = /);
  await see('#model-ranks-note', /approaches 2nβ and never shrinks/);
  // A non-power-of-two p makes the ring the fastest at large sizes.
  await typeInto('#model-p', '12');
  await page.press('#model-p', 'Enter');
  await page.waitForFunction(() => /p = 12/.test(document.querySelector('#model-sizes-title').textContent));
  await see('#model-crossovers', /→ ring at/);
});

test('panel 3: bad input is refused inline, the charts are kept', async () => {
  const chart = await page.locator('#model-sizes-svg').innerHTML();
  // The quantities are refused by the server, with the CLI's parser's message; p in the page.
  for (const [id, value, expected] of [
    ['#model-bw', '0', 'bw: 0GB/s: a bandwidth must be > 0'],
    ['#model-alpha', '-1', 'alpha: -1us: a time must not be negative'],
    ['#model-p', '1', /outside 2 to 1024/],
    ['#model-gamma', 'fast', /^gamma: fast: not a per-byte cost; accepted units: ps\/B, ns\/B/]]) {
    const old = await page.inputValue(id);
    await page.fill(id, value);
    await page.press(id, 'Enter');
    await see(`${id}-msg`, expected, `${id} = ${value}`);
    assert.equal(await page.locator('#model-sizes-svg').innerHTML(), chart);
    await page.fill(id, old);
    await page.press(id, 'Enter');
    await see(`${id}-msg`, '');
  }
});

test('panel 3: a ringlab bench --json file overlays measured points', async () => {
  const dir = scratchDir('bench');
  const file = path.join(dir, 'bench-p4.json');
  const run = await runRinglab(['bench', '-p', '4', '-b', '1K', '-e', '256K', '-n', '5', '-w', '2', '--json', file]);
  assert.equal(run.code, 0, run.stderr);
  await page.setInputFiles('#model-bench', file);
  await page.waitForFunction(() => document.querySelectorAll('#model-sizes-svg .marker').length > 0);
  assert.equal(await page.locator('#model-sizes-svg .marker').count(), 9, '1 KiB to 256 KiB, x2');
  assert.equal(await page.inputValue('#model-p'), '4');
  await see('#model-bench-note', /p = 4/);
  await see('#model-sizes-legend', /measured ring/);
  await screenshotPanel('model', 'panel3-model.png');
  // Not a bench file: an inline message, the measurements shown are kept.
  const junk = path.join(dir, 'not-bench.json');
  writeFileSync(junk, '{"hello": 1}');
  await page.setInputFiles('#model-bench', junk);
  await page.waitForFunction(() => document.querySelector('#model-bench-msg').textContent !== '');
  await see('#model-bench-msg', /not-bench\.json: no "run" object/);
  assert.equal(await page.locator('#model-sizes-svg .marker').count(), 9);
  // An nccl-tests log is read by the same reader as `ringlab compare`: its p comes from the log.
  await page.setInputFiles('#model-bench', path.join(dataDir, 'nccl_all_reduce_perf_16ranks.log'));
  await see('#model-bench-note', /p = 16/);
});

// The page's GPU verdict against `ringlab compare --system ... --json -` on the same file: the
// same figures in every row, band, finding and line, and the CLI's message for a bad system.
async function compareCli(log, system) {
  const run = await runRinglab(['compare', log, '--system', system, '--json', '-']);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout)[0];
}

async function seeVerdictOf(expected) {
  await page.waitForFunction((n) => document.querySelector('#model-gpu-system').textContent.includes(n), expected.system.description);
  const rows = await page.locator('#model-gpu-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({ ...tr.dataset, cells: [...tr.cells].map((c) => c.textContent) })));
  assert.equal(rows.length, expected.rows.length);
  expected.rows.forEach((e, i) => {
    const r = rows[i];
    assert.deepEqual([Number(r.size), Number(r.measuredUs), Number(r.predictedUs), Number(r.ratio), r.algorithm, r.protocol, Number(r.channels), r.regime],
      [e.size_bytes, e.measured_us, e.predicted_us, e.measured_over_predicted, e.algorithm, e.protocol, e.channels, e.regime], `row ${i}`);
    assert.deepEqual(r.cells, [formatBytes(e.size_bytes), formatTime(e.measured_us), formatTime(e.predicted_us), e.measured_over_predicted.toFixed(2),
      `${e.algorithm}/${e.protocol} (${e.channels})`, e.regime], `row ${i}`);
  });
  const bands = await page.locator('#model-gpu-bands li').evaluateAll((lis) => lis.map((li) => ({ ...li.dataset, text: li.textContent })));
  assert.deepEqual(bands.map((b) => [b.band, Number(b.rows), Number(b.ratio), Number(b.error)]),
    expected.bands.map((b) => [b.band, b.rows, b.median_measured_over_predicted, b.median_abs_error]));
  expected.bands.forEach((b, i) => assert.match(bands[i].text, new RegExp(`measured/predicted ${b.median_measured_over_predicted.toFixed(2)} \\(median over ${b.rows} sizes`)));
  assert.deepEqual(await page.locator('#model-gpu-findings li').allTextContents(), expected.findings);
  await see('#model-gpu-flagged', expected.flagged ? 'Verdict: flagged (see the findings).' : 'Verdict: within the model\'s margins.');
  await see('#model-gpu-figures', new RegExp(`NCCL's published figures \\(${expected.nccl_figures}\\)`));
  assert.deepEqual(await page.locator('#model-gpu-notes li').allTextContents(), expected.notes);
  // The chart: one dot per measured size and the predicted curve, in time order of the table.
  assert.equal(await page.locator('#model-gpu-svg circle.marker').count(), expected.rows.length);
  assert.equal(await page.locator('#model-gpu-svg path.series').count(), 2);
}

test('panel 3: a GPU log is judged against the GPU system typed, as ringlab compare judges it', async () => {
  const log = path.join(dataDir, 'gpu_logs', 'h100_a3mega_2node_tcpxo.log');
  await page.locator('#model').scrollIntoViewIfNeeded();
  await page.fill('#model-system', '');
  await page.setInputFiles('#model-bench', log);
  // What the log says ran it, never the CPU record's "transport not recorded"; the sentence until
  // a system is given; nothing of it on the alpha-beta chart.
  await see('#model-bench-note', 'Measured: h100_a3mega_2node_tcpxo.log: GPUs (NVIDIA H100 80GB HBM3), p = 16, dtype float32, 31 sizes.');
  await see('#model-gpu-sentence', /^The log ran p = 16 on GPUs \(NVIDIA H100 80GB HBM3\): ringlab cannot judge GPU hardware without a description of it; type a preset .* in the GPU system field \(this GPU's presets include dgx-h100: NVIDIA DGX H100\)\.$/);
  assert.doesNotMatch(await text('#model'), /not recorded/);
  assert.equal(await page.locator('#model-gpu-verdict').isHidden(), true);
  await see('#model-gpu-alpha-beta', /alpha-beta charts below .* are not compared against a GPU log/);
  assert.equal(await page.locator('#model-sizes-svg .marker').count(), 0, 'GPU times are not drawn over the alpha-beta model');

  // A preset: the CLI's verdict, number for number.
  const expected = await compareCli(log, 'dgx-h100');
  assert.equal(expected.flagged, true, 'this log is a slow one (corpus.json)');
  await typeInto('#model-system', 'dgx-h100');
  await page.press('#model-system', 'Enter');
  await page.waitForSelector('#model-gpu-verdict:not([hidden])');
  await seeVerdictOf(expected);
  assert.equal(await page.locator('#model-gpu-sentence').isHidden(), true);
  await see('#model-system-msg', '');
  await screenshotPanel('model', 'panel3-gpu-verdict.png');

  // A system the library refuses: its message beside the field, the verdict shown is kept.
  const refused = await runRinglab(['compare', log, '--system', 'dgx-h1000']);
  const message = refused.stderr.match(/--system: (the GPU system 'dgx-h1000': .*)/)[1];
  await typeInto('#model-system', 'dgx-h1000');
  await page.press('#model-system', 'Enter');
  await see('#model-system-msg', `system: ${message}`);
  assert.equal(await page.getAttribute('#model-system', 'aria-invalid'), 'true');
  await seeVerdictOf(expected);

  // The spec form, re-asked with the same file text.
  const spec = 'gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s';
  await typeInto('#model-system', spec);
  await page.press('#model-system', 'Enter');
  await see('#model-system-msg', '');
  await seeVerdictOf(await compareCli(log, spec));

  // No system again: the sentence; then the log removed: no GPU section.
  await page.fill('#model-system', '');
  await page.press('#model-system', 'Enter');
  await page.waitForSelector('#model-gpu-verdict', { state: 'hidden' });
  await see('#model-gpu-sentence', /^The log ran p = 16 on /);
  await page.click('#model-bench-clear');
  await page.waitForSelector('#model-gpu', { state: 'hidden' });
  await see('#model-bench-note', '');
});

test('a narrow window: no horizontal scrolling, panels stacked', async () => {
  await page.setViewportSize({ width: 400, height: 900 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the window`);
  await page.screenshot({ path: path.join(shots, 'narrow-window.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('radio buttons (by their label) and the file input are 44 px targets with a mouse too', async () => {
  const heights = await page.evaluate(() => [...document.querySelectorAll('main input[type=radio], main input[type=file]')]
    .map((n) => ({ id: n.id, height: (n.type === 'radio' ? n.closest('label') : n).getBoundingClientRect().height })));
  assert.ok(heights.length >= 4, JSON.stringify(heights));
  for (const { id, height } of heights) assert.ok(height >= 44 - 0.5, `${id} is ${height.toFixed(1)} px tall`);
});

test('at 390 px, the chunk table that scrolls sideways says so, and which chunks are out of view', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await typeInto('#ring-p', '16');
  await page.click('#ring-load');
  await ringSettled();
  await page.locator('#ring-chunks-scroll').scrollIntoViewIfNeeded();
  const box = await page.locator('#ring-chunks-scroll').evaluate((n) => ({ scroll: n.scrollWidth, client: n.clientWidth }));
  assert.ok(box.scroll > box.client, 'the table is wider than its box at 390 px');
  await see('#ring-chunks-scroll-hint', /^Scroll the table sideways ⇆: chunks \d+-15 out of view\.$/);
  const hint = await page.locator('#ring-chunks-scroll-hint').evaluate((n) => n.getBoundingClientRect());
  assert.ok(hint.height > 0 && hint.width > 0, 'the hint is shown');
  assert.equal(await page.locator('#ring-chunks-scroll').evaluate((n) => n.classList.contains('overflows')), true);
  // Scrolled to the end, the hint names the chunks now out of view on the left.
  await page.locator('#ring-chunks-scroll').evaluate((n) => { n.scrollLeft = n.scrollWidth; });
  await see('#ring-chunks-scroll-hint', /^Scroll the table sideways ⇆: chunks 0-\d+ out of view\.$/);
  // Wide enough for every chunk: no hint.
  await page.setViewportSize({ width: 1280, height: 800 });
  await typeInto('#ring-p', '4');
  await page.click('#ring-load');
  await ringSettled();
  await page.waitForFunction(() => document.querySelector('#ring-chunks-scroll-hint').hidden);
});

test('no console error or warning, and no uncaught exception', () => {
  // Chromium logs every HTTP 400: the three values the server refused above asked both model
  // endpoints each, and the refused GPU system asked for the log once. Nothing else may appear.
  const refused = consoleProblems.filter((p) => /status of 400 \(Bad Request\)/.test(p));
  assert.equal(refused.length, 7, consoleProblems.join('\n'));
  assert.deepEqual(consoleProblems.filter((p) => !refused.includes(p)), []);
  console.log(`screenshots in ${shots}`);
});
