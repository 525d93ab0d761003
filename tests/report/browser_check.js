// Opens an HTML report in headless Chromium as a person would and fails (exit 1) on what they
// would see go wrong: a console error or uncaught exception, a failed request, any request that
// leaves the file (a report must open offline), or a chart that drew nothing. Saves a screenshot
// of the whole page.
//
//   node browser_check.js PAGE.html SCREENSHOT.png
//
// Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: messages are
// JSON, each ended by a NUL byte, written to the browser's fd 3 and read from its fd 4), which
// needs no WebSocket client and no port.
'use strict';
const {spawn} = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {pathToFileURL} = require('url');

const kTimeoutMs = 60000;
const kWidth = 1280;
const kMaxHeight = 16000;

function main() {
  const [page, screenshot] = process.argv.slice(2);
  if (!page || !screenshot) {
    console.error('usage: node browser_check.js PAGE.html SCREENSHOT.png');
    process.exit(2);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'archimedes-chromium-'));
  const browser = spawn(
      'chromium',
      [
        '--headless', '--disable-gpu', '--no-sandbox', '--no-first-run', '--hide-scrollbars',
        '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'
      ],
      {stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe']});
  browser.on('error', (e) => fail([`cannot start chromium: ${e.message}`]));
  const problems = [];
  let stage = 'starting chromium';  // named in a failure, for when chromium does not answer
  let next = 0;
  const pending = new Map();
  const listeners = [];
  let buffer = '';
  browser.stdio[4].on('data', (chunk) => {
    buffer += chunk.toString();
    let end;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined && pending.has(message.id)) {
        const {resolve, reject} = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) {
          reject(new Error(JSON.stringify(message.error)));
        } else {
          resolve(message.result);
        }
      } else if (message.method) {
        for (const listener of listeners) listener(message);
      }
    }
  });
  const send = (method, params = {}, sessionId = undefined) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, {resolve, reject});
    browser.stdio[3].write(JSON.stringify({id, method, params, sessionId}) + '\0');
  });
  let finishing = false;
  const finish = (code) => {
    if (finishing) return;
    finishing = true;
    // The profile folder can go once the browser has stopped writing to it. Chromium's helper
    // processes can outlive the main one by a moment, so the removal retries, and a folder left
    // in the temporary directory is only worth a warning: it says nothing about the page.
    browser.once('exit', () => {
      try {
        fs.rmSync(profile, {recursive: true, force: true, maxRetries: 10, retryDelay: 200});
      } catch (e) {
        console.error(`warning: could not remove ${profile}: ${e.message}`);
      }
      process.exit(code);
    });
    browser.kill();
  };
  const fail = (messages) => {
    if (finishing) return;
    for (const m of messages) console.error(`FAIL: ${m}`);
    finish(1);
  };
  setTimeout(() => fail([`no answer from chromium within ${kTimeoutMs} ms while ${stage}`]),
             kTimeoutMs);

  listeners.push(({method, params}) => {
    if (method === 'Runtime.exceptionThrown') {
      problems.push(`uncaught exception: ${params.exceptionDetails.text}`);
    } else if (method === 'Runtime.consoleAPICalled' &&
               (params.type === 'error' || params.type === 'assert')) {
      problems.push(`console ${params.type}: ${params.args.map((a) => a.value).join(' ')}`);
    } else if (method === 'Log.entryAdded' && params.entry.level === 'error') {
      problems.push(`browser log error: ${params.entry.text} ${params.entry.url || ''}`);
    } else if (method === 'Network.loadingFailed') {
      problems.push(`request failed: ${params.errorText}`);
    } else if (method === 'Network.requestWillBeSent' &&
               !/^(file|data|about):/.test(params.request.url)) {
      problems.push(`request leaves the file: ${params.request.url}`);
    }
  });

  (async () => {
    stage = 'opening a tab';
    const {targetId} = await send('Target.createTarget', {url: 'about:blank'});
    const {sessionId} = await send('Target.attachToTarget', {targetId, flatten: true});
    const session = (method, params) => send(method, params, sessionId);
    for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await session(`${domain}.enable`);
    await session('Emulation.setDeviceMetricsOverride',
                  {width: kWidth, height: 900, deviceScaleFactor: 1, mobile: false});
    const loaded = new Promise((resolve) => listeners.push(({method, sessionId: s}) => {
      if (method === 'Page.loadEventFired' && s === sessionId) resolve();
    }));
    stage = 'loading the page';
    await session('Page.navigate', {url: pathToFileURL(path.resolve(page)).href});
    await loaded;
    stage = 'checking the charts';
    // Every chart drew data: a path through at least two points, or a cell or bar with an area.
    const {result} = await session('Runtime.evaluate', {
      returnByValue: true,
      expression: `(() => {
        const charts = [...document.querySelectorAll('svg.chart')];
        const empty = charts.filter((svg) => {
          const paths = [...svg.querySelectorAll('path.data')].filter(
              (p) => (p.getAttribute('d').match(/-?[0-9.]+/g) || []).length >= 4 &&
                     p.getTotalLength() > 0);
          const shapes = [...svg.querySelectorAll('rect.data')].filter(
              (r) => r.getBBox().width > 0 && r.getBBox().height > 0);
          const box = svg.getBoundingClientRect();
          return paths.length + shapes.length === 0 || box.width === 0 || box.height === 0;
        });
        return {charts: charts.length,
                empty: empty.map((svg) => svg.getAttribute('aria-label')),
                height: document.documentElement.scrollHeight};
      })()`,
    });
    const {charts, empty, height} = result.value;
    if (charts === 0) problems.push('the page has no chart');
    for (const title of empty) problems.push(`chart drew no data: ${title}`);
    await session('Emulation.setDeviceMetricsOverride', {
      width: kWidth,
      height: Math.min(height, kMaxHeight),
      deviceScaleFactor: 1,
      mobile: false
    });
    stage = 'taking the screenshot';
    const {data} = await session('Page.captureScreenshot', {format: 'png'});
    fs.writeFileSync(screenshot, Buffer.from(data, 'base64'));
    if (problems.length > 0) fail(problems);
    console.log(`${page}: ${charts} charts drew data, no error; screenshot ${screenshot}`);
    finish(0);
  })().catch((e) => fail([`${e.message} while ${stage}`]));
}

main();
