// Starts `ringlab lab --port 0` (the binary named by RINGLAB_BINARY) from a scratch directory, so
// that the page can only come from the assets compiled into the binary, and reads the URL it
// prints. stop() sends a signal and resolves to the exit code and everything printed. Also the
// one-shot runs of the binary, and the headless Chromium every browser test drives.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const binary = process.env.RINGLAB_BINARY;
if (!binary) throw new Error('RINGLAB_BINARY must name the ringlab executable (CTest sets it)');

// A directory of this test's own, removed when the test's process ends (passed or failed), so
// that a run leaves nothing in /tmp; what must outlive the run goes to RINGLAB_SCREENSHOTS.
export function scratchDir(tag) {
  const dir = mkdtempSync(path.join(tmpdir(), `ringlab-${tag}-`));
  process.on('exit', () => {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // a browser still writing its profile: the directory stays, the test's verdict stands
    }
  });
  return dir;
}

export function startLab(args = ['--port', '0']) {
  const child = spawn(binary, ['lab', ...args], { cwd: scratchDir('lab-cwd'), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ringlab lab printed no URL in 10 s; stdout: ${stdout} stderr: ${stderr}`)), 10000);
    child.stdout.on('data', () => {
      const m = stdout.match(/serving on (http:\/\/\S+\/)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`ringlab lab exited (${code}) before listening: ${stderr}`)); });
  });
  return {
    url,
    output: () => ({ stdout, stderr }),
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      return { ...result, stdout, stderr };
    },
  };
}

// Runs the binary to completion (for `ringlab bench --json` and other one-shot commands).
export function runRinglab(args) {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// Debian's Chromium, driven by playwright-core (which never downloads a browser), headless with
// a fresh profile and every background service off: the machine may have no network. `options`
// adds playwright's context options (hasTouch, deviceScaleFactor).
export async function launchChromium(viewport, options = {}) {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    throw new Error('playwright-core is not installed in tests/browser: run scripts/install-deps (it runs npm ci there)');
  }
  return chromium.launchPersistentContext(scratchDir('chromium-profile'), {
    executablePath: process.env.RINGLAB_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport,
    ...options,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// Where screenshots go: RINGLAB_SCREENSHOTS (CTest sets it), else a scratch directory.
export function screenshotDir(tag) {
  const dir = process.env.RINGLAB_SCREENSHOTS || scratchDir(tag);
  mkdirSync(dir, { recursive: true });
  return dir;
}
