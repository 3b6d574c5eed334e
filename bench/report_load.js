// Opens a report in headless Chromium (tests/browser/cdp.js) and prints the milliseconds from
// navigation to its load event and first layout, best of three (bench/report_scale.sh).
'use strict';
const { Browser } = require('../tests/browser/cdp');
(async () => {
  const browser = await Browser.launch();
  const times = [];
  try {
    for (let i = 0; i < 3; i++) {
      const page = await browser.newPage();
      await page.enable();
      await page.viewport(1280, 900, false);
      times.push(await page.open(process.argv[2]));
      if (page.errors.length) console.error('console errors: ' + page.errors.join(' | '));
      await browser.send('Target.closeTarget', { targetId: page.targetId });
    }
  } finally {
    await browser.close();
  }
  console.log(Math.min(...times).toFixed(0));
})().catch((e) => { console.error(e); process.exit(1); });
