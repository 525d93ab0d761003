// The live dashboard of `archimedes serve` (/ui, docs/api.md). A client of the JSON API like any
// other: it polls /metrics once a second and, when the engine applied events or moved its clock,
// reads the fleet, the batch plan, the SLA contracts and the selected application's profile again
// and redraws. Charts are hand-written SVG in the reports' conventions (src/report/): each chart an
// <svg class="chart"> whose drawn series are `data` elements with a <title> shown on hover; a panel
// with nothing to draw says so in a sentence instead of drawing an empty chart.
'use strict';

const kPollMs = 1000;
const kSlowPollMs = 10000;  // the application list and MAGI's decisions, which change rarely
const kMaxRows = 60;        // nodes in the heat map and the plan, contracts in the SLA chart
const kHistory = 600;       // queue samples kept for the queue chart
const kPalette =
    ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#9c755f'];
const kDims = ['cpu', 'memory', 'disk', 'network', 'gpu'];
const kPhases = ['Queued', 'Planned', 'Running', 'Late', 'Succeeded', 'Failed'];
const kSvg = 'http://www.w3.org/2000/svg';

// --- values ---

const kSuffixes = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
};
// A Kubernetes quantity ("500m", "4Gi") in canonical units (cores for cpu, bytes for memory).
function quantity(text) {
  const m = /^([0-9.]+(?:e[0-9+-]+)?)([a-zA-Z]*)$/.exec(text === undefined ? '0' : String(text));
  return m ? Number(m[1]) * (kSuffixes[m[2]] || 1) : 0;
}

// A duration as the API writes it ("1h30m", "45s") in seconds.
function seconds(text) {
  let total = 0;
  for (const [, n, unit] of String(text).matchAll(/([0-9]+)([dhms])/g)) {
    total += Number(n) * {d: 86400, h: 3600, m: 60, s: 1}[unit];
  }
  return total;
}

function formatDuration(s) {
  s = Math.round(s);
  if (s === 0) return '0s';
  const parts = [];
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]]) {
    if (s >= size) {
      parts.push(Math.floor(s / size) + unit);
      s %= size;
    }
  }
  return parts.slice(0, 2).join('');
}

// The axis' top: the least of 1, 2, 4 and 8 × 10^k at or above `v`, so that its quarters are
// round numbers.
function niceCeil(v) {
  if (!(v > 0)) return 1;
  const scale = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 4, 8, 10].map((m) => m * scale).find((top) => top >= v * (1 - 1e-9));
}

// Names in the order people number them: node-2 before node-10.
const byName = (a, b) => a.localeCompare(b, 'en', {numeric: true});

const percent = (share) => `${(100 * share).toFixed(share < 0.1 ? 1 : 0)}%`;

// YlOrRd's ends and middle, interpolated: the reports' heat colour (src/report/heat_map.cc).
function heatColor(share) {
  const stops = [[255, 255, 204], [253, 141, 60], [128, 0, 38]];
  const t = Math.min(Math.max(share, 0), 1) * 2;
  const i = Math.min(Math.floor(t), 1);
  const f = t - i;
  const c = stops[i].map((v, k) => Math.round(v + f * (stops[i + 1][k] - v)));
  return `rgb(${c.join(',')})`;
}

function colorOf(name) {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return kPalette[h % kPalette.length];
}

// --- drawing ---

function svgElement(name, attrs, parent) {
  const e = document.createElementNS(kSvg, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function label(parent, x, y, content, attrs = {}) {
  svgElement('text', {x, y, ...attrs}, parent).textContent = content;
}

function titled(element, title) {
  svgElement('title', {}, element).textContent = title;
  return element;
}

function chart(title, width, height) {
  const svg = svgElement('svg', {
    class: 'chart',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': title,
  });
  label(svg, 0, 14, title, {class: 'title'});
  return svg;
}

function note(text) {
  const p = document.createElement('p');
  p.className = 'note';
  p.textContent = text;
  return p;
}

function table(header, rows) {
  const t = document.createElement('table');
  for (const [i, cells] of [header, ...rows].entries()) {
    const tr = t.insertRow();
    for (const [k, text] of cells.entries()) {
      const cell = document.createElement(i === 0 ? 'th' : 'td');
      if (k === cells.length - 1 && i > 0) cell.className = 'text';
      cell.textContent = text;
      tr.appendChild(cell);
    }
  }
  return t;
}

function show(panel, ...children) {
  document.querySelector(`#${panel} .figure`).replaceChildren(...children);
}

// Horizontal bars, one per row: {name, value, text, color, title}; a reference line at `mark`.
function barChart(title, rows, {max = 0, mark = null, markLabel = ''} = {}) {
  const labelWidth = 150;
  const plotWidth = 360;
  const rowHeight = 16;
  const top = 26;
  const svg = chart(title, labelWidth + plotWidth + 150, top + rows.length * rowHeight + 16);
  const scale = Math.max(max, ...rows.map((r) => r.value), mark || 0) || 1;
  const x = (v) => labelWidth + (plotWidth * Math.min(v, scale)) / scale;
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    label(svg, labelWidth - 6, y + 11, r.name, {class: 'row-label', 'text-anchor': 'end'});
    // At least 2 px, so that a contract or phase at zero still shows where it stands.
    titled(
        svgElement(
            'rect', {
              class: 'data',
              x: labelWidth,
              y: y + 2,
              height: rowHeight - 4,
              width: Math.max(x(r.value) - labelWidth, 2),
              fill: r.color,
            },
            svg),
        r.title || `${r.name}: ${r.text}`);
    label(svg, x(r.value) + 4, y + 11, r.text, {class: 'tick'});
  });
  if (mark !== null) {
    const y2 = top + rows.length * rowHeight;
    svgElement('line', {class: 'reference', x1: x(mark), x2: x(mark), y1: top - 4, y2}, svg);
    label(svg, x(mark), y2 + 12, markLabel, {class: 'tick', 'text-anchor': 'middle'});
  }
  return svg;
}

// Lines over x: series [{name, color, points: [[x, y], ...], dashed}], axes from the points.
function lineChart(title, series, {width = 540, height = 220, xLabel, yLabel, references = []}) {
  const left = 56;
  const right = 130;
  const top = 26;
  const bottom = 34;
  const svg = chart(title, width, height);
  const points = series.flatMap((s) => s.points);
  const xs = points.map((p) => p[0]);
  const ys = [...points.map((p) => p[1]), ...references.map((r) => r.value)];
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const y1 = niceCeil(Math.max(...ys));
  const px = (v) => left + ((width - left - right) * (v - x0)) / (x1 - x0 || 1);
  const py = (v) => top + (height - top - bottom) * (1 - v / y1);
  for (let k = 0; k <= 4; ++k) {
    const v = (y1 * k) / 4;
    svgElement('line', {class: 'grid', x1: left, x2: width - right, y1: py(v), y2: py(v)}, svg);
    label(
        svg, left - 4, py(v) + 4, yLabel(Number(v.toPrecision(6))),
        {class: 'tick', 'text-anchor': 'end'});
  }
  for (let k = 0; k <= 4; ++k) {
    const v = x0 + ((x1 - x0) * k) / 4;
    label(svg, px(v), height - bottom + 14, xLabel(v), {class: 'tick', 'text-anchor': 'middle'});
  }
  let legendY = top + 8;
  const legend = (name, color, dashed) => {
    svgElement(
        'line', {
          x1: width - right + 8,
          x2: width - right + 26,
          y1: legendY - 4,
          y2: legendY - 4,
          stroke: color,
          'stroke-width': 2,
          'stroke-dasharray': dashed ? '4 3' : 'none',
        },
        svg);
    label(svg, width - right + 30, legendY, name, {class: 'legend'});
    legendY += 15;
  };
  for (const r of references) {
    svgElement(
        'line', {
          x1: left,
          x2: width - right,
          y1: py(r.value),
          y2: py(r.value),
          stroke: r.color,
          'stroke-dasharray': '4 3',
        },
        svg);
    legend(r.name, r.color, true);
  }
  for (const s of series) {
    const d =
        s.points.map((p, i) => `${i ? 'L' : 'M'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`);
    titled(svgElement('path', {class: 'data', d: d.join(''), stroke: s.color}, svg), s.name);
    legend(s.name, s.color, false);
  }
  return svg;
}

// --- panels ---

function drawFleet(nodes) {
  const live = nodes.items.filter((n) => n.status.condition !== 'Removed');
  if (live.length === 0) return show('fleet', note('No node yet: PUT /v1/nodes/{name} adds one.'));
  const dims = kDims.filter((d) => live.some((n) => quantity(n.spec.allocatable[d]) > 0));
  const rows = live.map((n) => {
    const cells = [];
    for (const d of dims) {
      const capacity = quantity(n.spec.allocatable[d]);
      const requested = quantity(n.status.requested[d]) + quantity(n.status.taskRequested[d]);
      const used = quantity((n.status.usage || {})[d]);
      cells.push(capacity > 0 ? requested / capacity : null, capacity > 0 ? used / capacity : null);
    }
    return {name: n.metadata.name, condition: n.status.condition, cells};
  });
  rows.sort((a, b) => (b.cells[0] || 0) - (a.cells[0] || 0) || byName(a.name, b.name));
  const shown = rows.slice(0, kMaxRows);
  const labelWidth = 150;
  const cellWidth = 70;
  const rowHeight = shown.length > 30 ? 10 : 16;
  const top = 52;
  const svg = chart(
      `Fleet: ${shown.length} of ${live.length} nodes, most CPU requested first`,
      labelWidth + cellWidth * dims.length * 2 + 20, top + shown.length * rowHeight + 8);
  dims.forEach((d, k) => {
    const x = labelWidth + 2 * k * cellWidth;
    label(svg, x + cellWidth, top - 20, d, {class: 'axis-name', 'text-anchor': 'middle'});
    label(svg, x + cellWidth / 2, top - 6, 'requested', {class: 'tick', 'text-anchor': 'middle'});
    label(svg, x + 1.5 * cellWidth, top - 6, 'used', {class: 'tick', 'text-anchor': 'middle'});
  });
  shown.forEach((row, i) => {
    const y = top + i * rowHeight;
    const name = row.condition === 'Ready' ? row.name : `${row.name} (${row.condition})`;
    label(svg, labelWidth - 6, y + rowHeight - 4, name, {class: 'row-label', 'text-anchor': 'end'});
    row.cells.forEach((share, c) => {
      if (share === null) return;
      const x = labelWidth + c * cellWidth;
      const what = `${dims[Math.floor(c / 2)]} ${c % 2 ? 'used' : 'requested'}`;
      titled(
          svgElement(
              'rect', {
                class: 'data',
                x,
                y,
                width: cellWidth - 1,
                height: rowHeight - 1,
                fill: heatColor(share),
              },
              svg),
          `${row.name}, ${what}: ${percent(share)} of allocatable`);
      if (rowHeight >= 14) {
        label(
            svg, x + cellWidth / 2, y + rowHeight - 4, percent(share),
            {class: 'cell-label', 'text-anchor': 'middle', fill: share > 0.6 ? '#fff' : '#222'});
      }
    });
  });
  show('fleet', svg);
}

function drawPlan(plan, policy) {
  if (plan.items.length === 0) {
    return show(
        'plan',
        note(
            policy === 'archimedes' ?
                'No task waits for a planned place now: every pending task either starts this cycle or waits in the queue.' :
                `The policy ${
                    policy} has no batch planner: it places tasks when they fit, so no task is ever planned.`));
  }
  const now = plan.time;
  // Tasks of one job in the same window on the same node make one bar.
  const groups = new Map();
  for (const t of plan.items) {
    const key = `${t.node}\u0000${t.job}\u0000${t.start}\u0000${t.end}`;
    const g = groups.get(key) || {...t, count: 0};
    g.count += 1;
    g.late = g.late || t.late;
    groups.set(key, g);
  }
  const nodes = [...new Set(plan.items.map((t) => t.node))].sort(byName).slice(0, kMaxRows);
  const end = Math.min(Math.max(...plan.items.map((t) => t.end)), now + 86400);
  const labelWidth = 150;
  const plotWidth = 900;
  const laneHeight = 14;
  const top = 40;
  const x = (t) =>
      labelWidth + (plotWidth * (Math.min(Math.max(t, now), end) - now)) / (end - now || 1);
  // Each node's bars in lanes, so that windows that overlap do not hide one another.
  const lanes = new Map(nodes.map((n) => [n, []]));
  const placed = [];
  for (const g of [...groups.values()].sort((a, b) => a.start - b.start || a.end - b.end)) {
    if (!lanes.has(g.node)) continue;
    const ends = lanes.get(g.node);
    let lane = ends.findIndex((e) => e <= g.start);
    if (lane < 0) lane = ends.push(0) - 1;
    ends[lane] = g.end;
    placed.push({...g, lane});
  }
  let y = top;
  const rowTop = new Map();
  for (const n of nodes) {
    rowTop.set(n, y);
    y += Math.max(lanes.get(n).length, 1) * laneHeight + 6;
  }
  const svg = chart(
      `Batch plan: ${plan.items.length} tasks on ${nodes.length} nodes over the next ${
          formatDuration(end - now)}`,
      labelWidth + plotWidth + 20, y + 4);
  const steps = [300, 900, 1800, 3600, 7200, 10800, 21600, 43200];
  const step = steps.find((s) => (end - now) / s <= 10) || 86400;
  for (let t = 0; t <= end - now; t += step) {
    svgElement('line', {class: 'grid', x1: x(now + t), x2: x(now + t), y1: top - 6, y2: y}, svg);
    label(
        svg, x(now + t), top - 10, t === 0 ? 'now' : `+${formatDuration(t)}`,
        {class: 'tick', 'text-anchor': 'middle'});
  }
  for (const n of nodes) {
    label(svg, labelWidth - 6, rowTop.get(n) + 11, n, {class: 'row-label', 'text-anchor': 'end'});
  }
  for (const g of placed) {
    const x0 = x(g.start);
    const width = Math.max(x(g.end) - x0, 2);
    const by = rowTop.get(g.node) + g.lane * laneHeight;
    titled(
        svgElement(
            'rect', {
              class: g.late ? 'data late' : 'data',
              x: x0,
              y: by,
              width,
              height: laneHeight - 2,
              fill: colorOf(g.job),
            },
            svg),
        `${g.job}: ${g.count} task${g.count > 1 ? 's' : ''} on ${g.node}, from +${
            formatDuration(g.start - now)} to +${formatDuration(g.end - now)}${
            g.late ? ', late (after its tolerance)' : ''}`);
    const text = g.count > 1 ? `${g.job} ×${g.count}` : g.job;
    if (width > 7 * text.length) {
      label(svg, x0 + 3, by + laneHeight - 5, text, {class: 'cell-label', fill: '#fff'});
    }
  }
  svgElement('line', {class: 'now', x1: x(now), x2: x(now), y1: top - 6, y2: y}, svg);
  show('plan', svg);
}

// The samples of a Prometheus text exposition: {name: [{labels: {...}, value}]}.
function parseMetrics(text) {
  const metrics = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const [, k, v] of (m[2] || '').matchAll(/([a-z_]+)="([^"]*)"/g)) labels[k] = v;
    (metrics[m[1]] = metrics[m[1]] || []).push({labels, value: Number(m[3])});
  }
  return metrics;
}

function metricValue(metrics, name, key, value) {
  const sample = (metrics[name] || []).find((s) => s.labels[key] === value);
  return sample ? sample.value : 0;
}

const queueHistory = [];

function drawQueues(metrics, time) {
  const depth = {
    serverless: metricValue(metrics, 'archimedes_queue_depth', 'kind', 'serverless'),
    offline: metricValue(metrics, 'archimedes_queue_depth', 'kind', 'offline'),
  };
  if (queueHistory.length === 0 || queueHistory[queueHistory.length - 1].time < time) {
    queueHistory.push({time, ...depth});
    if (queueHistory.length > kHistory) queueHistory.shift();
  }
  const phases = kPhases.map((phase, i) => {
    const value = metricValue(metrics, 'archimedes_jobs', 'phase', phase);
    return {name: phase, value, text: String(value), color: kPalette[i]};
  });
  const children = [];
  if (phases.some((p) => p.value > 0)) {
    children.push(barChart('Jobs by phase', phases));
  } else {
    children.push(note('No job submitted yet.'));
  }
  if (queueHistory.length >= 2) {
    const kinds = ['serverless', 'offline'];
    children.push(lineChart(
        'Pending tasks by kind, since this page opened',
        kinds.map((k, i) => ({
                    name: `${k} (${depth[k]} now)`,
                    color: kPalette[i],
                    points: queueHistory.map((h) => [h.time, h[k]]),
                  })),
        {xLabel: (t) => formatDuration(t - queueHistory[0].time), yLabel: String}));
  } else {
    children.push(note(`Pending tasks now: ${depth.serverless} serverless, ${
        depth.offline} offline; their history draws as the server's clock moves.`));
  }
  show('queues', ...children);
}

function drawSla(sla) {
  if (sla.items.length === 0)
    return show('sla', note('No contract yet: every service and job has one.'));
  // Each contract's allowance used: 1 is its target exactly, above 1 broken.
  const rows = sla.items.map((c) => {
    let used;
    let text;
    if (c.kind === 'Service') {
      const achieved = c.achieved.availability;
      const target = c.target.availability;
      used = target >= 1 ? (achieved < 1 ? Infinity : 0) : (1 - achieved) / (1 - target);
      text = `${percent(achieved)} available, target ${percent(target)}`;
    } else {
      const wait = seconds(c.achieved.longestWait);
      const tolerance = seconds(c.target.delayTolerance);
      used = tolerance === 0 ? (wait > 0 ? Infinity : 0) : wait / tolerance;
      text = `waited ${formatDuration(wait)} of ${formatDuration(tolerance)}`;
    }
    const breaches = c.breaches.slice(0, 3).map((b) => b.reason).join('; ');
    return {
      name: `${c.kind === 'Service' ? 'service' : 'job'} ${c.name}`,
      value: Math.min(used, 3),
      text: c.honoured ? text : `${text}, broken`,
      honoured: c.honoured,
      color: c.honoured ? '#59a14f' : '#e15759',
      title: `${c.kind} ${c.name}: ${text}${breaches ? ` (${breaches})` : ''}`,
    };
  });
  rows.sort((a, b) => a.honoured - b.honoured || b.value - a.value || byName(a.name, b.name));
  const honoured = rows.filter((r) => r.honoured).length;
  const shown = rows.slice(0, kMaxRows);
  show(
      'sla',
      barChart(
          `${honoured} of ${rows.length} contracts honoured${
              shown.length < rows.length ? ` (${shown.length} shown)` :
                                           ''}: share of each one's allowance used`,
          shown, {max: 1.2, mark: 1, markLabel: 'target'}));
}

function drawProfile(profile) {
  if (!profile) {
    return show(
        'profile',
        note(
            'No profile yet: profiles are learned from the usage the node agents report, rebuilt once per usage round.'));
  }
  const a = profile.application;
  const bins = a.mean.cpu.length;
  const hours = (b) => (24 * b) / bins;
  const charts = [['cpu', 1000, 'cores'], ['memory', 2 ** 30, 'GiB']].map(
      ([d, unit, name]) => lineChart(
          `${a.app}: ${d} per replica over the day (${name})`,
          [
            {
              name: 'mean',
              color: kPalette[0],
              points: a.mean[d].map((v, b) => [hours(b), v / unit])
            },
            {
              name: 'high',
              color: kPalette[1],
              points: a.high[d].map((v, b) => [hours(b), v / unit])
            }
          ],
          {
            xLabel: (h) => `${h.toFixed(0)}h`,
            yLabel: String,
            references: [
              {name: 'request', value: a.request[d] / unit, color: '#c00'},
              {name: 'recommended', value: a.recommended[d] / unit, color: '#59a14f'}
            ].filter((r) => r.value > 0),
          }));
  const warnings = (profile.warnings || [])
                       .map(
                           (w) => `${w.kind} of ${w.container} (${w.dim}) at ${
                               formatDuration(w.time)}${w.detail ? `: ${w.detail}` : ''}`);
  const summary = note(
      `Class ${profile.class.id} (${profile.class.description}); ${a.samples} samples of ${
          a.containers} containers; built at ${formatDuration(profile.builtAt)}.` +
      (warnings.length ? ` Warnings: ${warnings.join('; ')}` : ' No health warning.'));
  show('profile', summary, ...charts);
}

// Members record wall-clock seconds; the fault simulation's are small.
const decidedAt = (t) => t === undefined ? '' :
    t > 1e9                              ? new Date(t * 1000).toISOString() :
                                           `${t} s`;

function drawMagi(magi) {
  if (magi.items.length === 0) return show('magi', note(magi.message));
  const rows = magi.items.map(
      (d) =>
          [d.node || d.key || '',
           d.kind || '',
           d.outcome || '',
           decidedAt(d.decided_at),
           `${d.yes || 0} / ${d.no || 0} / ${d.abstain || 0}`,
           String(d.yes_pods || ''),
           d.explanation || d.message || '',
  ]);
  show(
      'magi',
      table(
          ['node', 'kind', 'outcome', 'decided at', 'yes / no / abstain', 'PODs', 'explanation'],
          rows));
}

// --- polling ---

async function get(path, text = false) {
  const response = await fetch(path, {cache: 'no-store'});
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return text ? response.text() : response.json();
}

const state = {
  server: null,
  seen: '',
  slowAt: 0,
  apps: []
};

function setStatus(text, down) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.classList.toggle('down', down);
}

function updateApps(profiles) {
  const select = document.getElementById('app');
  const apps = profiles.applications.map((a) => a.app);
  if (apps.join() === state.apps.join()) return;
  const chosen = select.value;
  state.apps = apps;
  select.replaceChildren(...apps.map((app) => new Option(app, app, false, app === chosen)));
  select.disabled = apps.length === 0;
}

async function update() {
  const server = state.server || (state.server = await get('/v1/server'));
  const metrics = parseMetrics(await get('/metrics', true));
  const time = (metrics.archimedes_engine_time_seconds || [{value: 0}])[0].value;
  const events = (metrics.archimedes_events_applied_total || [{value: 0}])[0].value;
  const changed = `${time}/${events}` !== state.seen.split('/', 2).join('/');
  const slow = Date.now() >= state.slowAt;
  if (slow) {
    state.slowAt = Date.now() + kSlowPollMs;
    drawMagi(await get('/v1/magi'));
  }
  // The whole list is large: read again slowly, but at once while none is known.
  if (slow || (changed && state.apps.length === 0)) updateApps(await get('/v1/profiles'));
  const app = document.getElementById('app').value;
  const seen = `${time}/${events}/${app}`;
  if (seen !== state.seen || slow) {
    const [nodes, plan, sla, profile] = await Promise.all([
      get('/v1/nodes'),
      get('/v1/plan'),
      get('/v1/sla'),
      app ? get(`/v1/profiles/${encodeURIComponent(app)}`) : null,
    ]);
    drawFleet(nodes);
    drawPlan(plan, server.policy);
    drawQueues(metrics, time);
    drawSla(sla);
    drawProfile(profile);
    state.seen = seen;
  }
  const clock = server.clock === 'virtual' ? `virtual clock at ${formatDuration(time)}` :
                                             `wall clock at ${new Date(time * 1000).toISOString()}`;
  setStatus(
      `policy ${server.policy} · ${clock} · store ${server.store} · ${
          events} events applied · updated ${new Date().toLocaleTimeString()}`,
      false);
}

async function poll() {
  try {
    await update();
  } catch (e) {
    setStatus(`cannot read the server (${e.message}); retrying every ${kPollMs / 1000} s`, true);
  }
  setTimeout(poll, kPollMs);
}

document.getElementById('app').addEventListener('change', () => {
  state.seen = '';
});
poll();
