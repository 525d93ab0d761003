// Opens serve's live dashboard (/ui) in headless Chromium as a person would, runs DRIVER (a
// command that drives the server: `archimedes replay --server URL ...`) while watching the page,
// and fails (exit 1) on what they would see go wrong: a console error or uncaught exception, a
// failed request or one to another origin, a page that did not change while the server was
// driven, a panel without its chart or a chart that drew nothing once the driver is done, MAGI's
// panel without its sentence. Saves a screenshot of the whole page.
//
//   node dashboard_check.js URL SCREENSHOT.png -- DRIVER [ARGS...]
'use strict';
const {spawn} = require('child_process');
const {startChromium, kChartCheck} = require('../../report/chromium.js');

const kTimeoutMs = 150000;
const kWidth = 1280;
const kMaxHeight = 16000;
const kSampleMs = 250;
const kSettleMs = 3000;  // after the driver: the page polls every second
const kChartPanels = ['fleet', 'plan', 'queues', 'sla', 'profile'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function main() {
  const args = process.argv.slice(2);
  const dashes = args.indexOf('--');
  const [url, screenshot] = args;
  if (!url || !screenshot || dashes !== 2 || args.length < 4) {
    console.error('usage: node dashboard_check.js URL SCREENSHOT.png -- DRIVER [ARGS...]');
    process.exit(2);
  }
  const driver = args.slice(3);
  const origin = new URL(url).origin;
  const browser = startChromium(kTimeoutMs);
  (async () => {
    const tab = await browser.openTab(
        kWidth, 900, (u) => u.startsWith(origin + '/') || /^(data|about):/.test(u),
        'request leaves the server');
    await tab.navigate(`${origin}/ui`);
    browser.stage = 'waiting for the first update';
    const signature = () => tab.evaluate(`document.querySelector('main').innerHTML`);
    for (let i = 0;
         /connecting/.test(await tab.evaluate(`document.getElementById('status').textContent`));
         ++i) {
      if (i > 80) throw new Error('the page never left "connecting…"');
      await sleep(kSampleMs);
    }
    const before = await signature();

    browser.stage = `running ${driver.join(' ')}`;
    const run = spawn(driver[0], driver.slice(1), {stdio: ['ignore', 'ignore', 'inherit']});
    const exited = new Promise((resolve) => {
      run.on('exit', (code, signal) => resolve(code === 0 ? null : `${code ?? signal}`));
      run.on('error', (e) => resolve(e.message));
    });
    let done = false;
    let failure = null;
    exited.then((f) => {
      done = true;
      failure = f;
    });
    const seen = new Set([before]);
    while (!done) {
      seen.add(await signature());
      await sleep(kSampleMs);
    }
    if (failure !== null) throw new Error(`the driver failed: ${failure}`);
    await sleep(kSettleMs);
    const after = await signature();
    // The page drew a new state while the driver still ran, not only once it was over. (One: on a
    // loaded machine a 5 s replay may span only a couple of the page's 1 s polls.)
    if (seen.size < 2) {
      tab.problems.push(`the page changed ${seen.size - 1} times while the server was driven`);
    }
    if (after === before) tab.problems.push('the page is the same after the drive as before it');

    browser.stage = 'checking the charts';
    const {charts, empty, height} = await tab.evaluate(kChartCheck);
    for (const title of empty) tab.problems.push(`chart drew no data: ${title}`);
    const panels = await tab.evaluate(`(${JSON.stringify(kChartPanels)}).filter(
        (id) => !document.querySelector('#' + id + ' svg.chart'))`);
    for (const id of panels) tab.problems.push(`panel ${id} has no chart`);
    // MAGI's decisions as a table, or the sentence saying why there is none.
    const magi = await tab.evaluate(`(() => {
      const figure = document.querySelector('#magi .figure');
      return figure.querySelector('table td') ? 'table' : figure.textContent;
    })()`);
    if (magi !== 'table' && !/etcd/.test(magi)) {
      tab.problems.push(`MAGI's panel shows no decision and does not say why: "${magi}"`);
    }
    await tab.resize(Math.min(height, kMaxHeight));
    browser.stage = 'taking the screenshot';
    await sleep(200);
    await tab.screenshot(screenshot);
    if (tab.problems.length > 0) return browser.fail(tab.problems);
    console.log(
        `${origin}/ui: ${seen.size} states while driven, ${charts} charts drew data, ` +
        `no error; screenshot ${screenshot}`);
    browser.finish(0);
  })().catch((e) => browser.fail([`${e.message} while ${browser.stage}`]));
}

main();
