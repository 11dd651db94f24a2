// Every picture ringlab draws (bench, tune, sim and compare --svg, plan's Gantt on 20,000 tensors),
// written by the real binary and opened in headless Chromium (Debian's, driven by playwright-core):
// the browser's XML parser takes it, no two tick labels overlap as the browser lays them out, no
// text runs off the picture, and the rendering is not blank: the screenshot holds each series'
// colour. Screenshots go to RINGLAB_SCREENSHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { runRinglab, scratchDir, launchChromium, screenshotDir } from './lab_server.mjs';

const dataDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'data');

const shots = screenshotDir('picture-screenshots');
const work = scratchDir('pictures');
const out = (name) => path.join(work, name);

// A backward of 20,000 tensors, one every 10 us: a plan's per-tensor row has 20,000 buckets.
function bigTimeline() {
  const lines = ['# format = ringlab-grad-timeline/1', '# backward_end_us = 200000', 'name,count,dtype,ready_us'];
  for (let i = 0; i < 20000; i++) lines.push(`t${i},${1000 + ((i * 37) % 5000)},float32,${((i + 1) * 9.99).toFixed(2)}`);
  writeFileSync(out('big.csv'), lines.join('\n') + '\n');
  return out('big.csv');
}

const small = ['-p', '2', '-b', '1K', '-e', '1M', '-n', '2', '-w', '1'];
const pictures = [
  { name: 'bench', make: () => ['bench', ...small, '--profile', path.join(dataDir, 'plan_profile_p2.json'),
    '--profile-any-transport', '--overlay', `${out('other.json')},${path.join(dataDir, 'nccl_all_reduce_perf_16ranks.log')}`, '--svg', out('bench.svg')],
  series: 4 },
  { name: 'tune', make: () => ['tune', '-p', '2', '-b', '8', '-e', '1M', '-n', '2', '--rounds', '2', '--json', out('tune.json'),
    '--svg', out('tune.svg')], series: 4 },
  { name: 'sim', make: () => ['sim', '--topo', 'nodes=2', '-b', '1K', '-e', '1G', '--svg', out('sim.svg')], series: 1 },
  { name: 'compare', make: () => ['compare', out('other.json'), path.join(dataDir, 'nccl_all_reduce_perf_16ranks.log'),
    '--svg', out('compare.svg'), '--alpha', '10us', '--bw', '25GB/s'], series: 4 },
  { name: 'gantt', make: () => ['plan', '--timeline', bigTimeline(), '-p', '8', '--svg', out('gantt.svg')], series: 0 },
];

let context, page;

before(async () => {
  const other = await runRinglab(['bench', ...small, '--algo', 'recursive_doubling', '--json', out('other.json')]);
  assert.equal(other.code, 0, other.stderr);
  for (const p of pictures) {
    const r = await runRinglab(p.make());
    assert.equal(r.code, 0, `${p.name}: ${r.stderr}`);
  }
  context = await launchChromium({ width: 1200, height: 700 });
  page = context.pages()[0] || await context.newPage();
});

after(async () => {
  await context?.close();
});

// The RGBA pixels of a PNG as Chromium writes screenshots (8-bit RGB or RGBA, not interlaced).
function decodePng(png) {
  const width = png.readUInt32BE(16), height = png.readUInt32BE(20);
  const depth = png[24], colourType = png[25];
  assert.equal(depth, 8);
  const channels = { 2: 3, 6: 4 }[colourType];
  assert.ok(channels, `PNG colour type ${colourType}`);
  const idat = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at), type = png.toString('ascii', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels, pixels = Buffer.alloc(width * height * 4);
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0, b = previous[i], c = i >= channels ? previous[i - channels] : 0;
      const paeth = () => {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      };
      line[i] = (line[i] + [0, a, b, (a + b) >> 1, paeth()][filter]) & 255;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) pixels[(y * width + x) * 4 + k] = line[x * channels + k];
      pixels[(y * width + x) * 4 + 3] = channels === 4 ? line[x * channels + 3] : 255;
    }
    previous = line;
  }
  return { width, height, pixels };
}

function countColour(image, hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let i = 0; i < image.pixels.length; i += 4) {
    if (Math.abs(image.pixels[i] - r) + Math.abs(image.pixels[i + 1] - g) + Math.abs(image.pixels[i + 2] - b) < 12) n++;
  }
  return n;
}

for (const p of pictures) {
  test(`${p.name} --svg: parsed, labels apart, inside the picture, not blank`, async () => {
    const file = out(`${p.name}.svg`);
    if (p.name === 'gantt') assert.ok(statSync(file).size < 300000, `gantt of 20,000 tensors: ${statSync(file).size} B`);
    await page.goto(pathToFileURL(file).href);
    assert.equal(await page.evaluate(() => document.documentElement.localName), 'svg', 'not parsed as SVG');
    assert.equal(await page.locator('parsererror').count(), 0);
    const layout = await page.evaluate(() => {
      const box = (e) => e.getBoundingClientRect();
      const overlaps = [];
      for (const axis of document.querySelectorAll('.x-axis, .y-axis')) {
        const ticks = [...axis.querySelectorAll('text.tick')].map((t) => ({ label: t.textContent, b: box(t) }));
        for (let i = 0; i < ticks.length; i++) {
          for (let j = i + 1; j < ticks.length; j++) {
            const [a, c] = [ticks[i].b, ticks[j].b];
            if (a.left < c.right && c.left < a.right && a.top < c.bottom && c.top < a.bottom) overlaps.push(`${ticks[i].label} / ${ticks[j].label}`);
          }
        }
      }
      const width = document.documentElement.width.baseVal.value, height = document.documentElement.height.baseVal.value;
      const outside = [...document.querySelectorAll('text')].filter((t) => {
        const b = box(t);
        return b.width > 0 && (b.left < -1 || b.right > width + 1 || b.top < -1 || b.bottom > height + 1);
      }).map((t) => t.textContent);
      const colours = [...document.querySelectorAll('g.series')].map((s) => s.getAttribute('fill'));
      return { overlaps, outside, colours, width, height, ticks: document.querySelectorAll('text.tick').length };
    });
    assert.deepEqual(layout.overlaps, [], 'tick labels overlap');
    assert.deepEqual(layout.outside, [], 'text outside the picture');
    assert.ok(layout.ticks >= 4, `${layout.ticks} tick labels`);
    assert.equal(layout.colours.length, p.series);
    await page.setViewportSize({ width: Math.ceil(layout.width), height: Math.ceil(layout.height) });
    const png = await page.screenshot({ path: path.join(shots, `${p.name}.png`) });
    const image = decodePng(png);
    let ink = 0;
    for (let i = 0; i < image.pixels.length; i += 4) if (image.pixels[i] + image.pixels[i + 1] + image.pixels[i + 2] < 600) ink++;
    assert.ok(ink > 0.005 * image.width * image.height, `nearly blank: ${ink} drawn pixels`);
    for (const colour of p.name === 'gantt' ? ['#7f2704', '#08519c'] : layout.colours) {
      assert.ok(countColour(image, colour) >= 20, `${colour} hardly drawn: ${countColour(image, colour)} pixels`);
    }
  });
}
