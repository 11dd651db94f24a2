// The lab as a first-time visitor meets it, at a laptop's 1280x800 and a phone's 390x844, both
// with touch: the overview, legible text (computed sizes of HTML text, SVG text as drawn after the
// drawing's scaling), charts that reflow, one colour per algorithm across charts and legends,
// quantity fields that read units as the CLI does, a calibrate profile and measurements with their
// warnings, input queued behind a slowed round trip, an operation menu that is not cut off, and
// the seed's orbit scenarios word for word. Every check runs at both widths.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startLab, runRinglab, scratchDir, launchChromium, screenshotDir } from './lab_server.mjs';

const shots = screenshotDir('lab-screenshots');
// Okabe and Ito's colour-blind-safe palette (yellow left out), report::paletteColour's.
const okabeIto = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];
const minTextPx = 11;
const minTargetPx = 44;

let lab, url, files;

before(async () => {
  lab = startLab();
  url = await lab.url;
  // Files as users bring them, from the current build: a calibrate profile (inproc), bench runs
  // in bfloat16 (inproc) and over shm.
  const dir = scratchDir('visitor');
  files = { profile: path.join(dir, 'profile.json'), bf16: path.join(dir, 'bench-bf16.json'), shm: path.join(dir, 'bench-shm.json') };
  for (const args of [
    ['calibrate', '-p', '8', '-e', '1M', '-n', '3', '--json', files.profile],
    ['bench', '-p', '4', '-d', 'bfloat16', '-b', '1K', '-e', '64K', '-n', '3', '-w', '1', '--json', files.bf16],
    ['bench', '--transport', 'shm', '-p', '2', '-b', '1K', '-e', '16K', '-n', '3', '-w', '1', '--json', files.shm],
  ]) {
    const run = await runRinglab(args);
    assert.equal(run.code, 0, `ringlab ${args.join(' ')}: ${run.stderr}`);
  }
});

after(async () => { await lab?.stop(); });

for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  describe(`at ${size.width}x${size.height} with touch`, () => {
    let context, page;
    const problems = [];

    before(async () => {
      context = await launchChromium(size, { hasTouch: true });
      page = context.pages()[0] || await context.newPage();
      page.on('console', (msg) => { if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`${msg.type()}: ${msg.text()}`); });
      page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
      await page.goto(url);
      await page.waitForSelector('body[data-ready="true"]');
      await modelSettled(page);
    });
    after(async () => { await context?.close(); });

    test('the overview says what each panel shows and for whom, and its links reach them', async () => {
      const items = page.locator('#overview li');
      assert.equal(await items.count(), 3);
      const top = await page.locator('#overview').evaluate((n) => n.getBoundingClientRect().top);
      assert.ok(top < size.height, 'the overview is on the first screen');
      for (const [i, id] of ['orbit', 'ring', 'model'].entries()) {
        const item = items.nth(i);
        assert.match(await item.innerText(), /: .+; for anyone/, `item ${i + 1} says what and for whom`);
        assert.equal(await item.locator('a').getAttribute('href'), `#${id}`);
        await item.locator('a').tap();
        await page.waitForFunction((sel) => Math.abs(document.querySelector(sel).getBoundingClientRect().top) < 5, `#${id}`);
      }
      assert.match(await page.innerText('#overview'), /Came for AllReduce\? Start at panel 2 or panel 3/);
      await page.evaluate(() => window.scrollTo(0, 0));
    });

    test('the seed\'s orbit scenarios, word for word', async () => {
      await page.click('#orbit-reset');
      await fill(page, { '#orbit-m': '8', '#orbit-a': '1', '#orbit-predict': '8' });
      await page.selectOption('#orbit-speed', '120');
      await page.click('#orbit-play');
      await page.waitForSelector('#orbit-result:not([hidden])');
      await see(page, '#orbit-period', 'Orbit closed: back at 0 after 8 steps. Period found: 8.');
      await see(page, '#orbit-verdict', 'Your prediction 8: right.');
      await see(page, '#orbit-formula', 'Formula: period = m / gcd(m, a) = 8 / gcd(8, 1) = 8 / 1 = 8.');
      await see(page, '#orbit-coverage', 'Visits 8 of 8 residues: all of them.');
      await see(page, '#orbit-lesson', 'As a ring over p = 8 ranks, stride 1 would reach every rank: a valid ring order.');
      await page.click('#orbit-reset');
      await fill(page, { '#orbit-m': '8', '#orbit-a': '2', '#orbit-predict': '4' });
      for (let k = 1; k <= 4; k++) await page.click('#orbit-step');
      await see(page, '#orbit-period', 'Orbit closed: back at 0 after 4 steps. Period found: 4.');
      await see(page, '#orbit-verdict', 'Your prediction 4: right.');
      await see(page, '#orbit-formula', 'Formula: period = m / gcd(m, a) = 8 / gcd(8, 2) = 8 / 2 = 4.');
      await see(page, '#orbit-coverage', 'Visits 4 of 8 residues: only half of them; never reached: 1, 3, 5, 7.');
      await see(page, '#orbit-lesson', 'As a ring over p = 8 ranks, stride 2 would cycle through 4 of them only: not a faster AllReduce but one over the wrong set of ranks.');
    });

    test('every panel works by touch, with targets of at least 44 px', async () => {
      // A radio button's target is its label.
      const small = await page.evaluate((min) => [...document.querySelectorAll('main button, main input, main select')]
        .filter((n) => n.getClientRects().length > 0 && getComputedStyle(n).visibility !== 'hidden')
        .map((n) => ({ id: n.id || n.name || n.type, box: (n.type === 'radio' ? n.closest('label') : n).getBoundingClientRect() }))
        .filter(({ box }) => box.height < min - 0.5 || box.width < min - 0.5)
        .map(({ id, box }) => `${id} ${box.width.toFixed(0)}x${box.height.toFixed(0)}`), minTargetPx);
      assert.deepEqual(small, [], 'controls smaller than a finger');
      await page.locator('#orbit-reset').tap();
      await see(page, '#orbit-steps', '0');
      await fill(page, { '#orbit-m': '8', '#orbit-a': '3' });
      await page.locator('#orbit-step').tap();
      await see(page, '#orbit-x', '3');
      await page.locator('#ring-p').fill('4');
      await page.locator('#ring-load').tap();
      await ringSettled(page);
      await page.locator('#ring-reset').tap();
      await page.locator('#ring-step').tap();
      await see(page, '#ring-status', 'Step 1 of 6 (reduce-scatter).');
      await page.locator('#model-p').fill('16');
      await page.locator('#model-maxp').tap();  // the change is committed when p loses focus
      await page.waitForFunction(() => /p = 16,/.test(document.querySelector('#model-sizes-title').textContent));
    });

    test('no text under 11 px: HTML by computed size, SVG text by its drawn size and box', async () => {
      await page.locator('#ring-p').fill('16');
      await page.locator('#ring-load').click();
      await ringSettled(page);
      await page.click('#ring-step');
      await loadFile(page, files.bf16, /Measured: /);
      const tooSmall = await page.evaluate((min) => {
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const el = node.parentElement;
          if (!node.textContent.trim() || el.closest('[hidden], head, script, style, option') || el.getClientRects().length === 0) continue;
          const style = getComputedStyle(el);
          if (style.visibility === 'hidden' || style.display === 'none') continue;
          let px = parseFloat(style.fontSize);
          if (el instanceof SVGElement) {
            const m = el.getScreenCTM();
            const scale = Math.hypot(m.a, m.b);
            px *= scale;
            const box = el.getBoundingClientRect();
            const across = Math.abs(m.b) > Math.abs(m.a) ? box.width : box.height;  // rotated text
            if (across < min) out.push(`${node.textContent.trim()} (box ${across.toFixed(1)} px)`);
          }
          if (px < min - 0.01) out.push(`${node.textContent.trim().slice(0, 30)} (${px.toFixed(1)} px in ${el.tagName}.${el.getAttribute('class') || ''})`);
        }
        return out;
      }, minTextPx);
      assert.deepEqual(tooSmall, []);
      const svgTexts = await page.locator('svg text').count();
      assert.ok(svgTexts > 60, `the drawings and charts hold text (${svgTexts})`);
    });

    test('charts reflow: within the window, ticks thinned apart, legends wrap inside', async () => {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `page is ${overflow}px wider than the window`);
      for (const id of ['model-sizes-svg', 'model-ranks-svg']) {
        const report = await page.locator(`#${id}`).evaluate((root) => {
          const box = root.getBoundingClientRect();
          const scale = root.getScreenCTM().a;
          const ticks = [...root.querySelectorAll('text.tick')].map((t) => ({ text: t.textContent, box: t.getBoundingClientRect() }));
          const rows = new Map();
          for (const t of ticks) {
            const key = Math.round(t.box.top);
            rows.set(key, [...(rows.get(key) || []), t]);
          }
          const overlaps = [];
          for (const row of rows.values()) {
            row.sort((a, b) => a.box.left - b.box.left);
            for (let i = 1; i < row.length; i++) if (row[i].box.left < row[i - 1].box.right + 2) overlaps.push(`${row[i - 1].text} | ${row[i].text}`);
          }
          const legendBox = root.parentElement.querySelector('.legend').getBoundingClientRect();
          const items = [...root.parentElement.querySelectorAll('.legend li')].map((li) => li.getBoundingClientRect());
          return { left: box.left, right: box.right, scale, ticks: ticks.length, overlaps,
            legendInside: items.every((b) => b.left >= legendBox.left - 0.5 && b.right <= legendBox.right + 0.5),
            legendRows: new Set(items.map((b) => Math.round(b.top))).size };
        });
        assert.ok(report.left >= 0 && report.right <= size.width, `${id} inside the window`);
        assert.ok(Math.abs(report.scale - 1) < 0.01, `${id} is drawn at its size (scale ${report.scale})`);
        assert.deepEqual(report.overlaps, [], `${id}: tick labels overlap`);
        assert.ok(report.ticks >= 6, `${id}: ${report.ticks} tick labels`);
        assert.ok(report.legendInside, `${id}: the legend wraps inside the chart's width`);
        if (size.width < 600) assert.ok(report.legendRows > 1, `${id}: the legend wraps on a phone`);
      }
    });

    test('one palette: an algorithm is one colour in every chart, legend and drawing', async () => {
      await loadFile(page, files.bf16, /Measured: /);
      await page.click('#ring-reset');
      await page.click('#ring-step');
      const seen = await page.evaluate(() => {
        const hex = (c) => {
          const m = c.match(/rgb\((\d+), (\d+), (\d+)\)/);
          return m ? '#' + m.slice(1).map((v) => Number(v).toString(16).padStart(2, '0')).join('').toUpperCase() : c.toUpperCase();
        };
        const paint = (n) => hex(n.getAttribute('stroke') && n.getAttribute('stroke') !== 'none' && !n.classList.contains('marker') ? n.getAttribute('stroke') : n.getAttribute('fill') || getComputedStyle(n).stroke);
        const out = [];
        for (const n of document.querySelectorAll('.chart svg [data-algorithm]:is(path, circle), .chart .vline[data-algorithm] line')) {
          const algorithm = n.dataset.algorithm ?? n.closest('[data-algorithm]').dataset.algorithm;
          out.push({ where: `${n.closest('svg').id} ${n.dataset.role || 'rule'}`, algorithm: algorithm || n.parentElement.dataset.algorithm, colour: paint(n), dash: n.getAttribute('stroke-dasharray') });
        }
        for (const li of document.querySelectorAll('.legend li')) {
          const mark = li.querySelector('svg.swatch line, svg.swatch circle');
          out.push({ where: `${li.parentElement.id} ${li.dataset.kind}`, algorithm: li.dataset.algorithm, colour: hex(mark.getAttribute('stroke') || mark.getAttribute('fill')), dash: mark.getAttribute('stroke-dasharray'), text: li.textContent });
        }
        for (const n of document.querySelectorAll('#ring-svg path.transfer, #ring-key line')) out.push({ where: 'panel 2', algorithm: 'ring', colour: hex(getComputedStyle(n).stroke) });
        return out;
      });
      const palette = await page.evaluate(async () => (await (await fetch('/api/info')).json()).palette);
      const colours = Object.values(palette).map((c) => c.toUpperCase());
      assert.equal(new Set(colours).size, colours.length, 'two algorithms share a colour');
      for (const c of colours) assert.ok(okabeIto.includes(c), `${c} is not in the colour-blind-safe palette`);
      for (const s of seen.filter((s) => s.algorithm)) assert.equal(s.colour, palette[s.algorithm].toUpperCase(), `${s.where}: ${s.algorithm}`);
      // Anything else drawn is neutral: no algorithm's colour with another meaning.
      for (const s of seen.filter((s) => !s.algorithm)) assert.ok(!colours.includes(s.colour), `${s.where} "${s.text || ''}" reuses ${s.colour}`);
      for (const algorithm of ['ring', 'recursive_doubling', 'rabenseifner', 'binomial_tree']) {
        assert.ok(seen.some((s) => s.where === 'model-sizes-svg model' && s.algorithm === algorithm), `${algorithm} drawn`);
        assert.ok(seen.some((s) => s.where === 'model-sizes-legend line' && s.algorithm === algorithm), `${algorithm} in the legend`);
      }
      assert.ok(seen.some((s) => s.where === 'panel 2'), 'panel 2 draws its transfers');
      // Model terms: the ring's colour, told apart by dash only, as in their legend.
      const terms = seen.filter((s) => s.where === 'model-ranks-svg term');
      assert.equal(terms.length, 3);
      assert.equal(new Set(terms.map((t) => t.dash)).size, 3, 'each term has its own dash');
      const termLegend = seen.filter((s) => s.where === 'model-ranks-legend line' && s.algorithm === 'ring').map((s) => s.dash);
      assert.deepEqual(termLegend.sort(), terms.map((t) => t.dash).sort());
      // Measured points are marked as measured: markers, a legend entry saying so.
      const measured = seen.filter((s) => s.where === 'model-sizes-svg measured');
      assert.equal(measured.length, 7, '1 KiB to 64 KiB');
      const entry = seen.find((s) => s.where === 'model-sizes-legend marker');
      assert.match(entry.text, /^measured ring \(dots: out-of-place, p = 4, bfloat16\)$/);
      // A legend on every chart and a key under every drawing.
      for (const id of ['model-sizes-legend', 'model-ranks-legend']) assert.ok(await page.locator(`#${id} li`).count() >= 3, id);
      for (const id of ['orbit-key', 'ring-key']) assert.ok((await page.innerText(`#${id}`)).length > 20, id);
      await clearFiles(page);
    });

    test('quantity fields read units as the CLI does, the unit shown beside each', async () => {
      for (const [id, unit] of [['model-alpha', 'µs'], ['model-bw', 'GB/s'], ['model-gamma', 'ns/B']]) {
        const [input, label] = await Promise.all([page.locator(`#${id}`).boundingBox(), page.locator(`#${id}-unit`).boundingBox()]);
        assert.equal(await page.innerText(`#${id}-unit`), unit);
        assert.ok(label.x >= input.x + input.width && label.x + label.width <= size.width, `${id}: unit right of the field, inside the window`);
        assert.ok(label.y < input.y + input.height && label.y + label.height > input.y, `${id}: unit on the field's line`);
      }
      const cases = [
        ['#model-alpha', '500ns', /α = 0\.5 µs,/], ['#model-alpha', '3', /α = 3 µs,/],
        ['#model-bw', '100Gbit/s', /1\/β = 12\.5 GB\/s,/], ['#model-bw', '800MiB/s', /1\/β = 0\.8389 GB\/s,/],
        ['#model-gamma', '20GB/s', /γ = 0\.05 ns\/B /], ['#model-gamma', '200ps/B', /γ = 0\.2 ns\/B /],
      ];
      for (const [id, value, expected] of cases) {
        await commit(page, id, value);
        await see(page, '#model-params-note', expected, `${id} = ${value}`);
      }
      // A refused value: the CLI's own message, inline; the charts are kept.
      const cli = await runRinglab(['model', '--alpha', '5xs']);
      const message = cli.stderr.match(/--alpha: (5xs: [^(]*?) \(see/)[1];
      const chart = await page.locator('#model-sizes-svg').innerHTML();
      await commit(page, '#model-alpha', '5xs');
      await see(page, '#model-alpha-msg', `alpha: ${message}`);
      assert.equal(await page.getAttribute('#model-alpha', 'aria-invalid'), 'true');
      assert.equal(await page.locator('#model-sizes-svg').innerHTML(), chart);
      await commit(page, '#model-alpha', '2');
      await see(page, '#model-alpha-msg', '');
      await commit(page, '#model-bw', '5');
      await commit(page, '#model-gamma', '0.2');
      await see(page, '#model-params-note', /α = 2 µs, 1\/β = 5 GB\/s, γ = 0\.2 ns\/B /);
    });

    test('a calibrate profile and measurements: named, and every difference warned of', async () => {
      const profile = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(files.profile, 'utf8')));
      await loadFile(page, files.profile, /Profile: /);
      await see(page, '#model-profile-note', new RegExp(`^Profile: profile\\.json: transport inproc, p 8, dtype float32 \\(the reduction γ\\), host ${profile.host}, date ${profile.date}, ringlab ${profile.ringlab_version}\\.`));
      assert.equal(await page.inputValue('#model-alpha'), String(+(profile.alpha_s * 1e6).toPrecision(4)));
      assert.equal(await page.inputValue('#model-bw'), String(+(1e-9 / profile.beta_s_per_byte).toPrecision(4)));
      await see(page, '#model-params-note', /parameters from profile profile\.json\.$/);
      await commit(page, '#model-p', '8');  // the profile's p: nothing to warn of yet
      assert.equal(await page.locator('#model-warnings').isHidden(), true, 'nothing to warn of yet');

      await loadFile(page, files.bf16, /Measured: /);
      const run = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(files.bf16, 'utf8'))).run;
      await see(page, '#model-bench-note', `Measured: bench-bf16.json: transport inproc, p = 4, dtype bfloat16, host ${run.host}, date ${run.date}, 7 sizes of ring, ringlab ${run.ringlab_version}. The prediction's p to 4 and dtype to bfloat16 are set to match.`);
      await see(page, '#model-warnings', 'The profile was measured for p = 8, the prediction is for p = 4.\nThe profile\'s γ was measured on float32, the prediction is for bfloat16.');
      await page.selectOption('#model-dtype', 'float32');
      await commit(page, '#model-p', '8');
      await see(page, '#model-warnings', 'The measurements are for p = 4, the prediction for p = 8.\nThe measurements are bfloat16, the prediction is for float32: choose bfloat16 under dtype to compare like with like.');
      await commit(page, '#model-p', '2');
      await loadFile(page, files.shm, /bench-shm\.json/);
      await see(page, '#model-warnings', 'The measurements ran over shm, the profile was calibrated over inproc.\nThe profile was measured for p = 8, the prediction is for p = 2.');
      await shoot(page, size, 'model');
      await clearFiles(page);
      assert.equal(await page.locator('#model-warnings').isHidden(), true);
    });

    test('an UNSTABLE profile carries calibrate\'s flag into the page', async () => {
      const fs = await import('node:fs');
      const profile = JSON.parse(fs.readFileSync(files.profile, 'utf8'));
      profile.unstable = ['ping-pong: alpha +-80% of its value (95% interval)'];
      const unstable = path.join(path.dirname(files.profile), 'unstable.json');
      fs.writeFileSync(unstable, JSON.stringify(profile));
      await clearFiles(page);
      await loadFile(page, unstable, /Profile: unstable\.json: /);
      await see(page, '#model-profile-note', /UNSTABLE: calibrate could not trust this profile's fit \(ping-pong: alpha \+-80% of its value \(95% interval\)\).*calibrate again/);
      await clearFiles(page);
    });

    test('input during a slowed round trip is queued, the last press wins', async () => {
      await page.route('**/api/**', async (route) => { await new Promise((r) => setTimeout(r, 300)); await route.continue(); });
      // Panel 1: three Space presses on Step while the orbit is fetched: three steps.
      await page.click('#orbit-reset');
      await fill(page, { '#orbit-m': '8', '#orbit-a': '3' });
      await page.fill('#orbit-predict', '');
      await page.focus('#orbit-step');
      for (let i = 0; i < 3; i++) await page.keyboard.press('Space');
      await see(page, '#orbit-steps', '3');
      await see(page, '#orbit-x', '1');
      // Panel 2: p = 5 with Enter, then two Steps before the schedule is back: steps of p = 5.
      await page.fill('#ring-p', '5');
      await page.press('#ring-p', 'Enter');
      await page.focus('#ring-step');
      await page.keyboard.press('Space');
      await page.keyboard.press('Space');
      await ringSettled(page);
      await see(page, '#ring-status', 'Step 2 of 8 (reduce-scatter).');
      // Panel 3: three arrow presses on the size slider, then p typed twice: the last of each.
      await page.focus('#model-size');
      const start = Number(await page.inputValue('#model-size'));
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
      await page.fill('#model-p', '16');
      await page.press('#model-p', 'Enter');
      await page.fill('#model-p', '12');
      await page.press('#model-p', 'Enter');
      await modelSettled(page);
      const exponent = start + 3;  // 2^20 is 1 MiB
      const expected = exponent >= 30 ? `${2 ** (exponent - 30)} GiB` : exponent >= 20 ? `${2 ** (exponent - 20)} MiB` : `${2 ** (exponent - 10)} KiB`;
      await see(page, '#model-ranks-title', `Ring AllReduce terms against p at n = ${expected}, float32`);
      await see(page, '#model-sizes-title', /p = 12, float32/);
      await page.unroute('**/api/**');
    });

    test('the operation menu and every other menu show their options whole', async () => {
      const cut = await page.evaluate(() => {
        const context = document.createElement('canvas').getContext('2d');
        const out = [];
        for (const select of document.querySelectorAll('main select')) {
          const style = getComputedStyle(select);
          context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;  // the arrow
          const panel = select.closest('.panel').getBoundingClientRect();
          for (const option of select.options) {
            const width = context.measureText(option.text).width;
            if (width > room) out.push(`${select.id}: "${option.text}" needs ${width.toFixed(0)} px, has ${room.toFixed(0)}`);
          }
          if (select.getBoundingClientRect().right > panel.right) out.push(`${select.id} sticks out of its panel`);
        }
        return out;
      });
      assert.deepEqual(cut, []);
      assert.match(await page.innerText('#ring-collective-hint'), /AllReduce is a reduce-scatter, then an allgather/);
    });

    test('screenshots, and no console error or warning', async () => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await shoot(page, size, 'top');
      // Chromium logs every HTTP 400: the one refused value (alpha = 5xs) asked both model
      // endpoints. Nothing else may appear.
      const refused = problems.filter((p) => /status of 400 \(Bad Request\)/.test(p));
      assert.equal(refused.length, 2, problems.join('\n'));
      assert.deepEqual(problems.filter((p) => !refused.includes(p)), []);
    });
  });
}

// Helpers: each waits for the page's answer, so that a failure shows what was last seen.
const text = (page, selector) => page.locator(selector).evaluate((n) => (n instanceof HTMLElement ? n.innerText : n.textContent));

async function see(page, selector, expected, message) {
  const matches = (t) => (expected instanceof RegExp ? expected.test(t) : t === expected);
  const deadline = Date.now() + 10000;
  let last = await text(page, selector);
  while (!matches(last) && Date.now() < deadline) {
    await page.waitForTimeout(25);
    last = await text(page, selector);
  }
  if (expected instanceof RegExp) assert.match(last, expected, message);
  else assert.equal(last, expected, message);
}

async function fill(page, values) {
  for (const [selector, value] of Object.entries(values)) await page.fill(selector, value);
}

// Types a value and commits it with Enter (the field's change event), then waits for panel 3.
async function commit(page, selector, value) {
  await page.fill(selector, value);
  await page.press(selector, 'Enter');
  await modelSettled(page);
}

async function ringSettled(page) {
  await page.waitForFunction(() => document.getElementById('ring-form').getAttribute('aria-busy') === 'false');
}

async function modelSettled(page) {
  await page.waitForFunction(() => document.getElementById('model-form').getAttribute('aria-busy') === 'false');
}

async function loadFile(page, file, noteExpected) {
  await page.setInputFiles('#model-bench', file);
  await modelSettled(page);
  const where = /^Profile/.test(noteExpected.source) ? '#model-profile-note' : '#model-bench-note';
  await see(page, where, noteExpected);
}

async function clearFiles(page) {
  for (const id of ['#model-bench-clear', '#model-profile-clear']) {
    if (await page.locator(id).isVisible()) {
      await page.click(id);
      await modelSettled(page);
    }
  }
  await page.selectOption('#model-dtype', 'float32');
  await modelSettled(page);
}

async function shoot(page, size, what) {
  await page.evaluate(() => document.activeElement?.blur());
  const file = path.join(shots, `visitor-${size.width}-${what}.png`);
  if (what === 'top') await page.screenshot({ path: file });
  else await page.locator(`#${what}`).screenshot({ path: file });
}
