// Headless Chromium for the browser tests (browser_check.js: the HTML reports; and
// tests/server/ui/dashboard_check.js: serve's live dashboard), driven over the DevTools protocol on
// a pipe (--remote-debugging-pipe: messages are JSON, each ended by a NUL byte, written to the
// browser's fd 3 and read from its fd 4), which needs no WebSocket client and no port.
//
//   const browser = startChromium(60000);
//   const tab = await browser.openTab(1280, 900, (url) => ok(url), 'request leaves the file');
//   await tab.navigate(url); ...; browser.finish(0)  or  browser.fail(['what went wrong'])
'use strict';
const {spawn} = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

// Every svg.chart drew data: a path through at least two points, or a cell or bar with an area.
// Evaluates to {charts, empty: [aria-labels of those that drew nothing], height}.
const kChartCheck = `(() => {
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
})()`;

// `timeoutMs`: the whole check fails if Chromium leaves a step unanswered this long.
function startChromium(timeoutMs) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'archimedes-chromium-'));
  const browser = spawn(
      'chromium',
      [
        '--headless', '--disable-gpu', '--no-sandbox', '--no-first-run', '--hide-scrollbars',
        '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'
      ],
      {stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe']});
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
  const self = {
    stage: 'starting chromium',  // named in a failure, for when chromium does not answer
    finish(code) {
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
    },
    fail(messages) {
      if (finishing) return;
      for (const m of messages) console.error(`FAIL: ${m}`);
      self.finish(1);
    },
    // A tab of `width` × `height` whose problems (console errors, uncaught exceptions, failed
    // requests, requests to a URL `allowed` refuses, named `refusal`) collect in `problems`.
    async openTab(width, height, allowed, refusal) {
      self.stage = 'opening a tab';
      const {targetId} = await send('Target.createTarget', {url: 'about:blank'});
      const {sessionId} = await send('Target.attachToTarget', {targetId, flatten: true});
      const session = (method, params) => send(method, params, sessionId);
      const problems = [];
      listeners.push(({method, params}) => {
        if (method === 'Runtime.exceptionThrown') {
          problems.push(`uncaught exception: ${params.exceptionDetails.text} ${
              params.exceptionDetails.exception?.description || ''}`);
        } else if (
            method === 'Runtime.consoleAPICalled' &&
            (params.type === 'error' || params.type === 'assert')) {
          problems.push(`console ${params.type}: ${params.args.map((a) => a.value).join(' ')}`);
        } else if (method === 'Log.entryAdded' && params.entry.level === 'error') {
          problems.push(`browser log error: ${params.entry.text} ${params.entry.url || ''}`);
        } else if (method === 'Network.loadingFailed') {
          problems.push(`request failed: ${params.errorText}`);
        } else if (method === 'Network.requestWillBeSent' && !allowed(params.request.url)) {
          problems.push(`${refusal}: ${params.request.url}`);
        }
      });
      for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await session(`${domain}.enable`);
      const resize = (h) => session(
          'Emulation.setDeviceMetricsOverride',
          {width, height: h, deviceScaleFactor: 1, mobile: false});
      await resize(height);
      return {
        problems,
        session,
        resize,
        async navigate(url) {
          const loaded = new Promise((resolve) => listeners.push(({method, sessionId: s}) => {
            if (method === 'Page.loadEventFired' && s === sessionId) resolve();
          }));
          self.stage = `loading ${url}`;
          await session('Page.navigate', {url});
          await loaded;
        },
        async evaluate(expression) {
          const {result, exceptionDetails} =
              await session('Runtime.evaluate', {returnByValue: true, expression});
          if (exceptionDetails) throw new Error(`evaluating: ${exceptionDetails.text}`);
          return result.value;
        },
        async screenshot(file) {
          const {data} = await session('Page.captureScreenshot', {format: 'png'});
          fs.writeFileSync(file, Buffer.from(data, 'base64'));
        },
      };
    },
  };
  browser.on('error', (e) => self.fail([`cannot start chromium: ${e.message}`]));
  setTimeout(
      () => self.fail([`no answer from chromium within ${timeoutMs} ms while ${self.stage}`]),
      timeoutMs);
  return self;
}

module.exports = {
  startChromium,
  kChartCheck
};
