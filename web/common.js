// Helpers the three panels share: the API call, inline field messages, strict number parsing and
// display formats. No schedule or model logic lives in the page: it asks the server.

// GET /api/<path>?<params>. Resolves to {ok, status, data}; a network failure resolves too (ok
// false, status 0), so that no caller leaves an unhandled rejection in the console.
export async function api(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  try {
    const response = await fetch(`/api/${path}${query ? '?' + query : ''}`);
    const data = await response.json();
    return { ok: response.ok, status: response.status, data };
  } catch (error) {
    return { ok: false, status: 0, data: { error: `the lab server did not answer (${error.message}); is ringlab lab still running?`, field: null } };
  }
}

// POST /api/<path>?<params> with `body` (text); resolves like api().
export async function apiPost(path, body, params = {}) {
  const query = new URLSearchParams(params).toString();
  try {
    const response = await fetch(`/api/${path}${query ? '?' + query : ''}`, { method: 'POST', body });
    const data = await response.json();
    return { ok: response.ok, status: response.status, data };
  } catch (error) {
    return { ok: false, status: 0, data: { error: `the lab server did not answer (${error.message}); is ringlab lab still running?`, field: null } };
  }
}

// The inline message of a field: the element named `<input id>-msg`. Empty text clears it.
export function setFieldMessage(input, text) {
  const box = document.getElementById(`${input.id}-msg`);
  if (box) box.textContent = text;
  if (text) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  return !text;
}

// A whole number typed as digits, with an optional sign: "8", "-3". Anything else (empty, "2.5",
// "1e3", "8x") is refused with the reason, so the field can say what is wrong.
export function parseWhole(text, { min = -1e9, max = 1e9, what = 'value' } = {}) {
  const t = text.trim();
  if (t === '') return { error: `enter ${what}: a whole number` };
  if (!/^[+-]?\d+$/.test(t)) return { error: `"${t}" is not a whole number` };
  const value = Number(t);
  if (value < min || value > max) return { error: `${value} is outside ${min} to ${max}` };
  return { value };
}

// A quantity field as the API (and so the CLI's parser, core/units) reads it: a bare number is in
// the unit shown beside the field ("2" beside us is 2us); anything else ("500ns", "12.5 GB/s") is
// sent as typed, and the server says what it refuses. No second parser lives here.
export function withUnit(text, unit) {
  const t = text.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? `${t}${unit}` : t;
}

const binaryUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

// 1048576 -> "1 MiB"; 1536 -> "1.5 KiB"; small counts stay in bytes.
export function formatBytes(bytes) {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < binaryUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = Number.isInteger(value) ? 0 : value < 10 ? 2 : 1;
  return `${value.toFixed(digits)} ${binaryUnits[unit]}`;
}

// Exact byte counts with thousands separators: "786,432 B".
export function formatExactBytes(bytes) {
  return `${Math.round(bytes).toLocaleString('en-US')} B`;
}

// Microseconds, ms or s with three significant digits.
export function formatTime(us) {
  if (us >= 1e6) return `${+(us / 1e6).toPrecision(3)} s`;
  if (us >= 1e3) return `${+(us / 1e3).toPrecision(3)} ms`;
  return `${+us.toPrecision(3)} µs`;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

const svgNs = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(svgNs, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// A panel's actions, run one at a time in the order they came: a key press or click during a
// server round trip waits for it instead of being dropped. An action pushed with a `key` while
// the last waiting action has the same key joins it (a reload reads the fields when it runs, so
// the latest values win) rather than queueing a second round trip. push() resolves to the
// action's result.
export class ActionQueue {
  constructor(onBusy = () => {}) {
    this.waiting = [];
    this.running = false;
    this.onBusy = onBusy;
  }
  push(action, key = null) {
    return new Promise((resolve) => {
      const last = this.waiting[this.waiting.length - 1];
      if (key !== null && last && last.key === key) {
        last.done.push(resolve);
        return;
      }
      this.waiting.push({ action, key, done: [resolve] });
      this.drain();
    });
  }
  async drain() {
    if (this.running) return;
    this.running = true;
    this.onBusy(true);
    while (this.waiting.length > 0) {
      const item = this.waiting.shift();
      let result = false;
      try {
        result = await item.action();
      } catch (error) {
        console.error(error);  // a bug, not input: the browser tests fail on it
      }
      for (const resolve of item.done) resolve(result);
    }
    this.running = false;
    this.onBusy(false);
  }
}

// Keeps an SVG drawing's text legible however small it is drawn: sets --px, the drawing's units
// per CSS pixel, which lab.css multiplies font sizes by (font-size: calc(12px * var(--px))).
export function keepLegible(root) {
  const box = root.viewBox.baseVal;
  const update = () => {
    const width = root.getBoundingClientRect().width;
    if (width > 0 && box.width > 0) root.style.setProperty('--px', String(Math.max(1, box.width / width)));
  };
  new ResizeObserver(update).observe(root);
  update();
}

// Plays `tick` every `delayMs()` milliseconds until it returns false or stop() is called; the
// button shows Play or Pause accordingly.
export class Player {
  constructor(button, tick, delayMs) {
    this.button = button;
    this.tick = tick;
    this.delayMs = delayMs;
    this.timer = null;
  }
  get playing() { return this.timer !== null; }
  async toggle() {
    if (this.playing) this.stop();
    else await this.start();
  }
  async start() {
    this.stop();
    this.button.textContent = 'Pause';
    this.button.setAttribute('aria-pressed', 'true');
    this.timer = -1;  // playing, before the first tick
    if (!(await this.tick())) { this.stop(); return; }
    this.schedule();
  }
  schedule() {
    if (!this.playing) return;
    this.timer = setTimeout(async () => {
      if (!this.playing) return;
      if (await this.tick()) this.schedule();
      else this.stop();
    }, this.delayMs());
  }
  stop() {
    if (this.timer !== null && this.timer !== -1) clearTimeout(this.timer);
    this.timer = null;
    this.button.textContent = 'Play';
    this.button.setAttribute('aria-pressed', 'false');
  }
}
