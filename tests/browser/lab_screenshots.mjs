// The README's pictures of the lab, from the build at hand: at a laptop's 1280x800 and a phone's
// 390x844, the first screen and panel 3 with a `ringlab calibrate` profile and a
// `ringlab bench --json` run of this build loaded; at 1280x800, the README's panel scenarios
// (the orbit m = 8, a = 2 after 4 steps; the ring at p = 4 after step 2; stride 2 at p = 8).
//
//   node tests/browser/lab_screenshots.mjs [build/ringlab] [docs/lab]
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

process.env.RINGLAB_BINARY = path.resolve(process.argv[2] || process.env.RINGLAB_BINARY || 'build/ringlab');
const out = path.resolve(process.argv[3] || 'docs/lab');
const { startLab, runRinglab, scratchDir, launchChromium } = await import('./lab_server.mjs');

const dir = scratchDir('lab-screenshots');
const profile = path.join(dir, 'profile.json'), bench = path.join(dir, 'bench-p4.json');
for (const args of [['calibrate', '-e', '4M', '--json', profile],
  ['bench', '-p', '4', '-b', '1K', '-e', '4M', '-n', '10', '-w', '2', '--json', bench]]) {
  const run = await runRinglab(args);
  assert.equal(run.code, 0, `ringlab ${args.join(' ')}: ${run.stderr}`);
}

mkdirSync(out, { recursive: true });
const lab = startLab();
try {
  const url = await lab.url;
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const context = await launchChromium(size);
    const page = context.pages()[0] || await context.newPage();
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    const settled = () => page.waitForFunction(() => document.getElementById('model-form').getAttribute('aria-busy') === 'false');
    await settled();
    await page.screenshot({ path: path.join(out, `lab-${size.width}-overview.png`) });
    for (const file of [profile, bench]) {
      await page.setInputFiles('#model-bench', file);
      await settled();
    }
    await page.waitForSelector('#model-sizes-svg circle.marker');
    await page.locator('#model').screenshot({ path: path.join(out, `lab-${size.width}-model.png`) });
    if (size.width === 1280) await panelScenarios(page);
    await context.close();
  }
  console.log(`screenshots in ${out}`);
} finally {
  await lab.stop();
}

// The scenarios the README describes panel by panel.
async function panelScenarios(page) {
  const shoot = (id, file) => page.locator(`#${id}`).screenshot({ path: path.join(out, file) });
  const ringSettled = () => page.waitForFunction(() => document.getElementById('ring-form').getAttribute('aria-busy') === 'false');
  await page.click('#orbit-reset');
  await page.fill('#orbit-m', '8');
  await page.fill('#orbit-a', '2');
  await page.fill('#orbit-predict', '4');
  for (let k = 0; k < 4; k++) await page.click('#orbit-step');
  await page.waitForSelector('#orbit-result:not([hidden])');
  await page.evaluate(() => document.activeElement?.blur());
  await shoot('orbit', 'panel1-orbit.png');
  await page.fill('#ring-p', '4');
  await page.click('#ring-load');
  await ringSettled();
  await page.click('#ring-step');
  await page.click('#ring-step');
  await ringSettled();
  await page.evaluate(() => document.activeElement?.blur());
  await shoot('ring', 'panel2-ring.png');
  await page.fill('#ring-p', '8');
  await page.check('#ring-order-stride');
  await page.fill('#ring-stride', '2');
  await page.click('#ring-load');
  await ringSettled();
  await page.waitForSelector('#ring-error:not([hidden])');
  await page.evaluate(() => document.activeElement?.blur());
  await shoot('ring', 'panel2-ring-invalid-stride.png');
}
