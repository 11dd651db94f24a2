// The page's entry point: fetch the server's limits and model defaults, then start the panels.
import { api, keepLegible } from './common.js';
import { initOrbit } from './orbit.js';
import { initRing } from './ring.js';
import { initModel } from './model.js';
import { setPalette } from './chart.js';

async function start() {
  const info = await api('info');
  if (!info.ok) {
    document.querySelector('main').prepend(Object.assign(document.createElement('p'), { className: 'error-box', textContent: info.data.error }));
    return;
  }
  document.getElementById('version').textContent = info.data.version;
  setPalette(info.data.palette);
  for (const [name, colour] of Object.entries(info.data.palette)) document.documentElement.style.setProperty(`--algo-${name}`, colour);
  document.querySelectorAll('svg.drawing-svg').forEach(keepLegible);
  const showStride = initRing(info.data.limits);
  initOrbit(info.data.limits, (m, a) => {
    showStride(m, a);
  });
  initModel(info.data.limits, info.data.model_defaults);
  document.body.dataset.ready = 'true';
}

start();
