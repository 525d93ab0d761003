// Opens an HTML report in headless Chromium as a person would and fails (exit 1) on what they
// would see go wrong: a console error or uncaught exception, a failed request, any request that
// leaves the file (a report must open offline), or a chart that drew nothing. Saves a screenshot
// of the whole page.
//
//   node browser_check.js PAGE.html SCREENSHOT.png
'use strict';
const path = require('path');
const {pathToFileURL} = require('url');
const {startChromium, kChartCheck} = require('./chromium.js');

const kTimeoutMs = 60000;
const kWidth = 1280;
const kMaxHeight = 16000;

function main() {
  const [page, screenshot] = process.argv.slice(2);
  if (!page || !screenshot) {
    console.error('usage: node browser_check.js PAGE.html SCREENSHOT.png');
    process.exit(2);
  }
  const browser = startChromium(kTimeoutMs);
  (async () => {
    const tab = await browser.openTab(
        kWidth, 900, (url) => /^(file|data|about):/.test(url), 'request leaves the file');
    await tab.navigate(pathToFileURL(path.resolve(page)).href);
    browser.stage = 'checking the charts';
    const {charts, empty, height} = await tab.evaluate(kChartCheck);
    if (charts === 0) tab.problems.push('the page has no chart');
    for (const title of empty) tab.problems.push(`chart drew no data: ${title}`);
    await tab.resize(Math.min(height, kMaxHeight));
    browser.stage = 'taking the screenshot';
    await tab.screenshot(screenshot);
    if (tab.problems.length > 0) return browser.fail(tab.problems);
    console.log(`${page}: ${charts} charts drew data, no error; screenshot ${screenshot}`);
    browser.finish(0);
  })().catch((e) => browser.fail([`${e.message} while ${browser.stage}`]));
}

main();
