// A small DevTools-protocol client of our own: starts Debian's headless Chromium with
// --remote-debugging-pipe (commands on its fd 3, answers on its fd 4, each message ended by a
// NUL byte) and opens one page. No npm package, nothing downloaded.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

function findChromium() {
  for (const candidate of [process.env.LLMV_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

class Browser {
  static async launch() {
    const exe = findChromium();
    if (!exe) throw new Error('no chromium (tools/setup.sh installs Debian\'s)');
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'llmv-chromium-'));
    const args = ['--headless=new', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu',
      '--no-first-run', '--no-default-browser-check', '--disable-extensions',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage', '--hide-scrollbars', '--font-render-hinting=none',
      `--user-data-dir=${profile}`, 'about:blank'];
    // A process group of its own: close() ends Chromium's helper processes with it.
    const child = spawn(exe, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
    const browser = new Browser(child, profile);
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d.toString(); if (stderr.length > 20000) stderr = stderr.slice(-20000); });
    browser.stderr = () => stderr;
    return browser;
  }

  constructor(child, profile) {
    this.child = child;
    this.profile = profile;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    this.buffer = Buffer.alloc(0);
    child.stdio[4].on('data', (chunk) => this.onData(chunk));
    child.on('exit', () => {
      for (const { reject } of this.pending.values()) reject(new Error('chromium exited'));
      this.pending.clear();
    });
  }

  onData(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    let end;
    while ((end = this.buffer.indexOf(0)) >= 0) {
      const message = JSON.parse(this.buffer.subarray(0, end).toString('utf8'));
      this.buffer = this.buffer.subarray(end + 1);
      if (message.id && this.pending.has(message.id)) {
        const { resolve, reject, method } = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      } else if (message.method) {
        for (const listener of this.listeners) listener(message);
      }
    }
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdio[3].write(JSON.stringify(message) + '\0');
    });
  }

  on(listener) { this.listeners.push(listener); }

  async newPage() {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return new Page(this, sessionId, targetId);
  }

  async close() {
    try { await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 3000))]); } catch (e) { /* gone */ }
    const exited = new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('exit', resolve);
    });
    // The whole group: Chromium's helper processes outlived the browser process and went on
    // writing into the profile while it was removed (ENOTEMPTY).
    try { process.kill(-this.child.pid, 'SIGKILL'); } catch (e) { this.child.kill('SIGKILL'); }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    try {
      fs.rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.error(`note: the temporary Chromium profile ${this.profile} was not removed (${e.code})`);
    }
  }
}

class Page {
  constructor(browser, sessionId, targetId) {
    this.browser = browser;
    this.sessionId = sessionId;
    this.targetId = targetId;
    this.errors = [];
    this.requests = [];
    this.waiters = [];
    browser.on((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'assert'))
        this.errors.push('console: ' + m.params.args.map((a) => a.value ?? a.description).join(' '));
      if (m.method === 'Runtime.exceptionThrown')
        this.errors.push('exception: ' + m.params.exceptionDetails.text + ' ' + (m.params.exceptionDetails.exception?.description ?? ''));
      if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error')
        this.errors.push('log: ' + m.params.entry.text + ' ' + (m.params.entry.url ?? ''));
      if (m.method === 'Network.requestWillBeSent') this.requests.push(m.params.request.url);
      for (const waiter of this.waiters.slice()) {
        if (waiter.method === m.method) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(m.params);
        }
      }
    });
  }

  send(method, params = {}) { return this.browser.send(method, params, this.sessionId); }

  waitFor(method, timeoutMs = 60000) {
    return new Promise((resolve, reject) => {
      const waiter = { method, resolve };
      this.waiters.push(waiter);
      setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), timeoutMs).unref();
    });
  }

  async enable() {
    await this.send('Page.enable');
    await this.send('Runtime.enable');
    await this.send('Log.enable');
    await this.send('Network.enable');
  }

  async viewport(width, height, mobile) {
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile });
  }

  // Opens the file and waits for its load event and a layout; returns the milliseconds taken.
  async open(file) {
    const loaded = this.waitFor('Page.loadEventFired');
    const start = process.hrtime.bigint();
    await this.send('Page.navigate', { url: 'file://' + path.resolve(file) });
    await loaded;
    await this.evaluate('document.body.getBoundingClientRect().height');
    return Number(process.hrtime.bigint() - start) / 1e6;
  }

  async evaluate(expression) {
    const result = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (result.exceptionDetails) throw new Error('evaluate: ' + result.exceptionDetails.text);
    return result.result.value;
  }

  async screenshot(file) {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(file, Buffer.from(data, 'base64'));
    return file;
  }

  async pdf(file) {
    const { data } = await this.send('Page.printToPDF', { printBackground: true, preferCSSPageSize: true });
    fs.writeFileSync(file, Buffer.from(data, 'base64'));
    return file;
  }
}

module.exports = { Browser, findChromium };
