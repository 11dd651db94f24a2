// `ringlab lab` over HTTP, without a browser: the page's assets from any directory, 400 with a
// JSON error naming the field for every bad parameter, 404 for unknown paths, 405 for a wrong method, a clean stop on
// SIGINT and SIGTERM, and a clear error when the port is taken.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startLab, runRinglab } from './lab_server.mjs';

let lab, base;
before(async () => {
  lab = startLab();
  base = await lab.url;
});
after(async () => { await lab.stop(); });

async function get(path, init) {
  const r = await fetch(base + path.replace(/^\//, ''), init);
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, type: r.headers.get('content-type') || '', allow: r.headers.get('allow'), text, json };
}

test('prints the URL on loopback and serves the embedded page from another directory', async () => {
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const page = await get('/');
  assert.equal(page.status, 200);
  assert.match(page.type, /text\/html/);
  assert.match(page.text, /ringlab lab/);
  for (const asset of ['main.js', 'orbit.js', 'ring.js', 'model.js', 'gpu.js', 'chart.js', 'common.js']) {
    const r = await get(`/${asset}`);
    assert.equal(r.status, 200, asset);
    assert.match(r.type, /javascript/, asset);
  }
  assert.match((await get('/lab.css')).type, /text\/css/);
});

test('good requests answer from the library', async () => {
  const orbit = await get('/api/orbit?m=8&a=2');
  assert.equal(orbit.status, 200);
  assert.deepEqual(orbit.json.orbit, [0, 2, 4, 6]);
  const schedule = await get('/api/schedule?p=4');
  assert.equal(schedule.json.steps.length, 6);
  const invalid = await get('/api/schedule?p=8&order=stride&stride=2');
  assert.equal(invalid.status, 200, 'a short cycle is the lesson, not a bad request');
  assert.equal(invalid.json.valid, false);
  assert.deepEqual(invalid.json.short_cycle, [0, 2, 4, 6]);
  const info = await get('/api/info');
  assert.equal(info.json.limits.max_schedule_p, 16);
});

const bad = [
  ['/api/orbit', 'm'],
  ['/api/orbit?m=0&a=1', 'm'],
  ['/api/orbit?m=65&a=1', 'm'],
  ['/api/orbit?m=2.5&a=1', 'm'],
  ['/api/orbit?m=&a=1', 'm'],
  ['/api/orbit?m=8', 'a'],
  ['/api/orbit?m=8&a=1e3', 'a'],
  ['/api/orbit?m=8&a=1&m=9', 'm'],
  ['/api/orbit?m=8&a=1&colour=red', 'colour'],
  ['/api/schedule?p=1', 'p'],
  ['/api/schedule?p=17', 'p'],
  ['/api/schedule?p=100000', 'p'],
  ['/api/schedule?p=4&order=list&list=0,1,1,3', 'list'],
  ['/api/schedule?p=4&order=list&list=0,1,2', 'list'],
  ['/api/schedule?p=4&order=stride&stride=two', 'stride'],
  ['/api/schedule?p=4&collective=alltoall', 'collective'],
  ['/api/schedule?p=4&size=5', 'size'],
  ['/api/schedule?p=4&size=4T', 'size'],
  ['/api/model/sizes?p=0', 'p'],
  ['/api/model/sizes?p=5000', 'p'],
  ['/api/model/sizes?p=8&bw=0GB%2Fs', 'bw'],
  ['/api/model/sizes?p=8&alpha=-2us', 'alpha'],
  ['/api/model/sizes?p=8&gamma=abc', 'gamma'],
  ['/api/model/sizes?p=8&alpha=5', 'alpha'],
  ['/api/model/sizes?p=8&min=1G&max=8', 'min'],
  ['/api/model/sizes?p=8&max=1P', 'max'],
  ['/api/model/ranks?max_p=1000000', 'max_p'],
  ['/api/model/ranks?size=0', 'size'],
];

for (const [path, field] of bad) {
  test(`400 naming "${field}": ${path}`, async () => {
    const r = await get(path);
    assert.equal(r.status, 400, r.text);
    assert.match(r.type, /application\/json/);
    assert.equal(r.json.field, field, r.text);
    assert.ok(r.json.error.length > 0);
  });
}

test('a long query value is refused, and echoed shortened', async () => {
  const r = await get(`/api/orbit?m=${'9'.repeat(3000)}&a=1`);
  assert.equal(r.status, 400);
  assert.ok(r.json.error.length < 200, r.json.error);
});

test('POST /api/record reads measurements with the library reader, and names what it refuses', async () => {
  const log = readFileSync(new URL('../data/nccl_all_reduce_perf_16ranks.log', import.meta.url), 'utf8');
  const good = await get('/api/record?name=run.log', { method: 'POST', body: log });
  assert.equal(good.status, 200, good.text);
  assert.equal(good.json.valid, true);
  assert.equal(good.json.run.p, 16);
  assert.ok(good.json.rows.length > 0);
  assert.ok(good.json.rows[0].out_of_place.time_us > 0);
  const bad = await get('/api/record?name=junk.json', { method: 'POST', body: '{"hello": 1}' });
  assert.equal(bad.status, 200);
  assert.equal(bad.json.valid, false);
  assert.match(bad.json.error, /junk\.json: no "run" object/);
  const typo = await get('/api/record?nam=x', { method: 'POST', body: log });
  assert.equal(typo.status, 400);
  assert.equal(typo.json.field, 'nam');
  const huge = await get('/api/record', { method: 'POST', body: 'x'.repeat(17 * 1024 * 1024) });
  assert.equal(huge.status, 413);
  assert.match(huge.type, /json/);
});

test('POST /api/record judges a GPU log against system= as ringlab compare --system does', async () => {
  const file = new URL('../data/gpu_logs/h100_a3mega_2node_tcpxo.log', import.meta.url);
  const log = readFileSync(file, 'utf8');
  const post = (query) => get(`/api/record?name=h100.log${query}`, { method: 'POST', body: log });
  const plain = await post('');
  assert.equal(plain.status, 200, plain.text);
  assert.equal(plain.json.gpu.device, 'GPUs (NVIDIA H100 80GB HBM3)');
  assert.equal(plain.json.gpu.p, 16);
  assert.match(plain.json.gpu.sentence, /^the log ran p = 16 on GPUs \(NVIDIA H100 80GB HBM3\): .* in the GPU system field \(this GPU's presets include dgx-h100/);
  assert.equal(plain.json.gpu.verdict, undefined);
  const judged = await post('&system=dgx-h100');
  assert.equal(judged.status, 200, judged.text);
  assert.equal(judged.json.gpu.sentence, undefined);
  const cli = await runRinglab(['compare', file.pathname, '--system', 'dgx-h100', '--json', '-']);
  assert.equal(cli.code, 0, cli.stderr);
  const [expected] = JSON.parse(cli.stdout);
  // The same verdict but for where the file came from.
  const { source: s1, ...verdict } = judged.json.gpu.verdict;
  const { source: s2, ...fromCli } = expected;
  assert.equal(s1, 'h100.log');
  assert.deepEqual(verdict, fromCli);
  assert.equal(verdict.rows.length, 31);
  // A bad system names the field with the library's message, as every refused parameter.
  const bad = await post('&system=dgx-h1000');
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.json.field, 'system');
  assert.match(bad.json.error, /^system: the GPU system 'dgx-h1000': no preset 'dgx-h1000' \(presets: dgx-1-v100, /);
  const tooSmall = await post(`&system=${encodeURIComponent('gpu=h100,gpus=8,nodes=1')}`);
  assert.equal(tooSmall.status, 400);
  assert.equal(tooSmall.json.field, 'system');
  assert.match(tooSmall.json.error, /p = 16 does not fit the GPU system/);
  const long = await post(`&system=${'a'.repeat(600)}`);
  assert.equal(long.status, 400);
  assert.equal(long.json.field, 'system');
  // A CPU record does not read the field.
  const bench = readFileSync(new URL('../data/plan_measured_p2.json', import.meta.url), 'utf8');
  const cpu = await get('/api/record?name=m.json&system=dgx-h1000', { method: 'POST', body: bench });
  assert.equal(cpu.status, 200, cpu.text);
  assert.equal(cpu.json.valid, true);
  assert.equal(cpu.json.gpu, undefined);
});

test('unknown paths are 404, a wrong method 405 (JSON under /api/)', async () => {
  const api = await get('/api/nothing');
  assert.equal(api.status, 404);
  assert.match(api.json.error, /no such path/);
  const page = await get('/no-such-file.html');
  assert.equal(page.status, 404);
  assert.equal((await get('/../etc/passwd')).status === 200, false);
  const post = await get('/api/orbit?m=8&a=1', { method: 'POST', body: 'x' });
  assert.equal(post.status, 405);
  assert.match(post.json.error, /takes GET, HEAD, not POST/);
  assert.equal(post.allow, 'GET, HEAD');
});

test('SIGINT and SIGTERM stop it cleanly; a taken port is a clear error', async () => {
  const one = startLab();
  const url = await one.url;
  const port = new URL(url).port;
  const two = startLab(['--port', port]);
  await assert.rejects(two.url);
  const second = await two.stop();
  assert.equal(second.code, 2);
  assert.match(second.stderr, /^ringlab: error: cannot listen on 127\.0\.0\.1:\d+/);
  const first = await one.stop('SIGINT');
  assert.equal(first.code, 0);
  assert.match(first.stdout, /stopped/);
  const three = startLab();
  await three.url;
  assert.equal((await three.stop('SIGTERM')).code, 0);
});
