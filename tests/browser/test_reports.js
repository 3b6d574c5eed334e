#!/usr/bin/env node
// The reports in a real browser (issue 43): each case is run by the CLI on the simulated
// provider (and one on a server that does not answer), its run document and report written,
// and the report checked in headless Chromium (check_report.js).
//   node tests/browser/test_reports.js --cli build/cpp/llmvalidate --source . --work DIR [CASE...]
// LLMV_UPDATE_SCREENSHOT=1 also writes docs/report-screenshot.png (the README's) from the
// Section 4 report.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { Browser } = require('./cdp');
const { checkReport } = require('./check_report');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const cli = path.resolve(option('--cli'));
const source = path.resolve(option('--source', '.'));
const work = path.resolve(option('--work', fs.mkdtempSync('/tmp/llmv-browser-')));
const wanted = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
fs.mkdirSync(work, { recursive: true });
const section4 = path.join(source, 'prompts/passages/section4.toml');

function llmvalidate(argv, { expectFail = false } = {}) {
  const result = spawnSync(cli, argv, {
    cwd: work,
    env: { ...process.env, LLMV_CACHE: path.join(work, 'cache.sqlite'), LLMV_MODEL_LIST: 'never', LLMV_API_KEY: 'not-a-key' },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (!expectFail && result.status !== 0)
    throw new Error(`llmvalidate ${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  if (expectFail && result.status === 0) throw new Error(`llmvalidate ${argv.join(' ')} should have failed`);
  return result;
}

// 200 rows with human labels, the same every time.
function batchInput() {
  const file = path.join(work, 'batch200.csv');
  const subjects = ['Revenue', 'Operating margin', 'Net income', 'Loan losses', 'Deposits', 'Guidance'];
  const moves = [['rose sharply', 'Positive'], ['was unchanged', 'Neutral'], ['fell', 'Negative'],
    ['improved', 'Positive'], ['held steady', 'Neutral'], ['declined', 'Negative']];
  let text = 'id,text,label\n';
  for (let i = 0; i < 200; i++) {
    const [move, label] = moves[(i * 7) % moves.length];
    const human = i % 9 === 0 ? 'Neutral' : label;
    text += `r${i + 1},"${subjects[i % subjects.length]} ${move} in quarter ${1 + (i % 4)} of ${2010 + (i % 12)}.",${human}\n`;
  }
  fs.writeFileSync(file, text);
  return file;
}

const cases = {
  one: { synthetic: true, run: (out) => ['run', '--provider', 'simulated', '--task', 'simple_sentiment',
    '--text', 'Profit fell 40% as loan losses doubled.', '--run-json', `${out}.json`, '--report', `${out}.html`] },
  section4: { synthetic: true, run: (out) => ['run', '--provider', 'simulated', '--task', 'simple_sentiment',
    '--passages', section4, '--run-json', `${out}.json`, '--report', `${out}.html`] },
  batch200: { synthetic: true, minMarks: 1000, run: (out) => ['batch', '--provider', 'simulated', '--task', 'simple_sentiment',
    '--input', batchInput(), '--text-column', 'text', '--id-column', 'id', '--human-label-column', 'label',
    '--output', `${out}-rows.csv`, '--run-json', `${out}.json`, '--report', `${out}.html`] },
  table8: { synthetic: true, run: (out) => ['run', '--provider', 'simulated', '--task', 'simple_sentiment',
    '--passages', section4, '--models', 'simulated-a,simulated-b', '--run-json', `${out}.json`, '--report', `${out}.html`] },
  failed: { synthetic: false, fails: true, run: (out) => ['run', '--provider', 'openai', '--task', 'simple_sentiment', '--base-url', 'http://127.0.0.1:9/v1',
    '--model', 'gpt-unreachable', '--embedding-model', 'text-embedding-unreachable', '--max-retries', '0', '--timeout', '5',
    '--text', 'Profit fell 40%.', '--run-json', `${out}.json`, '--report', `${out}.html`] },
};

(async () => {
  const browser = await Browser.launch();
  let failed = 0;
  try {
    for (const [name, spec] of Object.entries(cases)) {
      if (wanted.length && !wanted.includes(name)) continue;
      const out = path.join(work, name);
      llmvalidate(spec.run(out), { expectFail: !!spec.fails });
      const doc = JSON.parse(fs.readFileSync(`${out}.json`, 'utf8'));
      const failures = [];
      // The same file from the run document (acceptance: `run --report` = `report run.json`).
      llmvalidate(['report', `${out}.json`, '-o', `${out}-again.html`]);
      if (!fs.readFileSync(`${out}.html`).equals(fs.readFileSync(`${out}-again.html`)))
        failures.push('`report RUN.json` differs from `--report`');
      if (spec.fails && doc.totals.failed < 1) failures.push('the failed run has no failed passage');
      const { failures: found, measured } = await checkReport(browser, `${out}.html`, doc, out,
        { synthetic: spec.synthetic, minMarks: spec.minMarks });
      failures.push(...found);
      console.log(`${failures.length ? 'FAIL' : 'ok  '} ${name}: ${JSON.stringify(measured)}`);
      for (const failure of failures) console.log(`     ${failure}`);
      failed += failures.length ? 1 : 0;
      if (name === 'section4' && process.env.LLMV_UPDATE_SCREENSHOT === '1' && !failures.length)
        fs.copyFileSync(`${out}-desktop.png`, path.join(source, 'docs/report-screenshot.png'));
    }
  } finally {
    await browser.close();
  }
  console.log(`screenshots and PDFs in ${work}`);
  process.exit(failed ? 1 : 0);
})().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
