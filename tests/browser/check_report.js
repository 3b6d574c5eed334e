// Checks one report in headless Chromium against its run document:
//   no console error, no network request; every marked number (data-j, data-t) equal to the
//   document; numbers in table cells marked; tables and alt text; screenshots at desktop and
//   phone width (size, ink, no sideways scrolling); print to PDF (with the synthetic banner on
//   every page when the run was synthetic).
// Returns a list of failures (empty: the report passes) and what it measured.
'use strict';
const fs = require('fs');
const { execFileSync } = require('child_process');
const { inkShare } = require('./png');

function pointer(doc, ptr) {
  let node = doc;
  for (const raw of ptr.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

// Whether the text shown for a value is that value in its format.
function matches(value, type, text) {
  if (type === 'null') return (value === null || value === undefined) && text === 'n/a';
  if (value === null || value === undefined) return false;
  if (type === 'b') return text === (value ? 'yes' : 'no');
  if (type === 's') return text === String(value);
  const x = parseFloat(text);
  if (!Number.isFinite(x) || typeof value !== 'number') return false;
  if (type === 'i') return x === Math.round(value) && /^-?\d+$/.test(text);
  if (type.startsWith('pct')) {
    const d = Number(type.slice(3));
    return text.endsWith('%') && Math.abs(x / 100 - value) <= 0.5 * 10 ** -d / 100 + 1e-12;
  }
  if (type.startsWith('f')) {
    const d = Number(type.slice(1));
    const decimals = (text.split('.')[1] || '').length;
    return decimals === d && Math.abs(x - value) <= 0.5 * 10 ** -d + 1e-12;
  }
  if (type === 'g') return Math.abs(x - value) <= 1e-5 * Math.max(1, Math.abs(value));
  return false;
}

async function checkReport(browser, htmlFile, doc, outPrefix, options = {}) {
  const failures = [];
  const measured = {};
  const page = await browser.newPage();
  await page.enable();
  await page.viewport(1280, 900, false);
  measured.loadMs = await page.open(htmlFile);
  await new Promise((r) => setTimeout(r, 200));  // late console messages

  // Errors and requests.
  if (page.errors.length) failures.push('console errors: ' + page.errors.join(' | '));
  const own = 'file://' + require('path').resolve(htmlFile);
  const others = page.requests.filter((url) => url !== own);
  if (others.length) failures.push('network requests: ' + others.slice(0, 5).join(', '));

  // Every marked value against the document.
  const marks = await page.evaluate(`JSON.stringify(Array.from(document.querySelectorAll('[data-j]'), e => [e.getAttribute('data-j'), e.getAttribute('data-t'), e.textContent]))`);
  const list = JSON.parse(marks);
  measured.marks = list.length;
  let wrong = 0;
  for (const [ptr, type, text] of list) {
    if (!matches(pointer(doc, ptr), type, text)) {
      if (wrong < 8) failures.push(`value ${ptr} (${type}) shows "${text}", the document has ${JSON.stringify(pointer(doc, ptr))}`);
      wrong++;
    }
  }
  if (wrong > 8) failures.push(`... ${wrong} values differ in all`);
  if (list.length < (options.minMarks || 10)) failures.push(`only ${list.length} marked values`);
  // A number in a table cell comes from the document (marked), except a count of zero.
  const unmarked = JSON.parse(await page.evaluate(`JSON.stringify(Array.from(document.querySelectorAll('td.num')).filter(td => /\\d/.test(td.textContent) && !td.querySelector('[data-j]') && td.textContent.trim() !== '0').map(td => td.textContent).slice(0, 5))`));
  if (unmarked.length) failures.push('unmarked numbers in cells: ' + unmarked.join(', '));
  // Real tables, alt text on every drawing, a title.
  const structure = JSON.parse(await page.evaluate(`JSON.stringify({tables: document.querySelectorAll('table').length, svgs: document.querySelectorAll('svg').length, unlabelled: Array.from(document.querySelectorAll('svg')).filter(s => s.getAttribute('role') !== 'img' || !s.getAttribute('aria-label')).length, title: document.title, banner: !!document.querySelector('.synthetic'), bannerTop: (document.querySelector('.synthetic') || {getBoundingClientRect: () => ({top: -1})}).getBoundingClientRect().top})`));
  measured.structure = structure;
  if (structure.tables < 1) failures.push('no <table>');
  if (structure.unlabelled) failures.push(`${structure.unlabelled} drawings without role=img and aria-label`);
  if (!structure.title) failures.push('no <title>');
  if (options.synthetic !== undefined && structure.banner !== options.synthetic)
    failures.push(`synthetic banner ${structure.banner ? 'shown' : 'missing'}; the run was ${options.synthetic ? '' : 'not '}synthetic`);
  if (structure.banner && structure.bannerTop !== 0) failures.push('the synthetic banner is not at the top of the page');

  // Screenshots.
  for (const [name, width, height, mobile] of [['desktop', 1280, 900, false], ['phone', 390, 844, true]]) {
    await page.viewport(width, height, mobile);
    await page.evaluate('document.body.getBoundingClientRect().height');
    const file = await page.screenshot(`${outPrefix}-${name}.png`);
    const shot = inkShare(fs.readFileSync(file));
    measured[name] = shot;
    if (shot.width !== width || shot.height !== height) failures.push(`${name} screenshot is ${shot.width}x${shot.height}`);
    if (shot.ink < 0.02) failures.push(`${name} screenshot is blank (ink ${shot.ink})`);
    const scroll = await page.evaluate('document.documentElement.scrollWidth');
    if (scroll > width + 1) failures.push(`${name}: the page scrolls sideways (${scroll} px wide at ${width})`);
  }
  await page.viewport(1280, 900, false);

  // Print to PDF.
  const pdf = await page.pdf(`${outPrefix}.pdf`);
  const bytes = fs.readFileSync(pdf);
  measured.pdfBytes = bytes.length;
  if (bytes.subarray(0, 5).toString() !== '%PDF-' || bytes.length < 5000) failures.push('print to PDF failed');
  if (options.synthetic) {
    const text = execFileSync('pdftotext', ['-layout', pdf, '-']).toString();
    const pages = text.split('\f').filter((p) => p.trim().length);
    measured.pdfPages = pages.length;
    const without = pages.filter((p) => !p.includes('SYNTHETIC')).length;
    if (!pages.length || without) failures.push(`${without} of ${pages.length} printed pages lack the synthetic banner`);
  }
  await browser.send('Target.closeTarget', { targetId: page.targetId });
  return { failures, measured };
}

module.exports = { checkReport, pointer, matches };
