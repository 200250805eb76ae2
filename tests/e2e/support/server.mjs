// One `paddock mcp` process, spawned by the tests themselves, with every line it writes on stdout
// tapped and checked: a whole line of at most MAX_LINE_BYTES, valid UTF-8, one JSON object, valid
// against the MCP schema of the revision in use (see schemas.mjs), answering a request that was
// sent and not answered yet. Problems are collected in `violations`; `finish()` fails the test on
// any of them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LATEST_LEGACY, MAX_LINE_BYTES, MODERN, PADDOCK_BIN } from './config.mjs';
import { checkAgainstDeclaredSchema, checkServerMessage } from './schemas.mjs';
import { cleanup } from './cleanup.mjs';

const decoder = new TextDecoder('utf-8', { fatal: true });
const HARD_CAP = 256 * 1024 * 1024;
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';

export function modernMeta(extra = {}) {
  return { [META_VERSION]: MODERN, [META_CAPS]: {}, ...extra };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function excerpt(text, max = 1500) {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} chars)`;
}

export class McpError extends Error {
  constructor(method, error) {
    super(`${method}: error ${error.code}: ${error.message}`);
    this.code = error.code;
    this.data = error.data;
    this.rpcError = error;
  }
}

export class McpProcess extends EventEmitter {
  constructor({ args = [], env = {}, label = 'paddock mcp' } = {}) {
    super();
    this.label = label;
    this.args = ['mcp', ...args];
    this.env = { ...process.env, ...env };
    this.violations = [];
    this.messages = []; // every parsed message, in order
    this.lines = 0;
    this.pending = new Map(); // JSON id -> {method, version, resolve, reject, timer}
    this.answered = new Set();
    this.progressVersions = new Map(); // progress token -> revision
    this.negotiated = undefined; // legacy revision from initialize
    this.clientCapabilities = {}; // what the client declared at initialize
    this.nextIdValue = 1;
    this.stderrChunks = [];
    this.stderrBytes = 0;
    this.outChunks = [];
    this.outLen = 0;
    this.oversized = false;
    this.exited = false;
    this.exitInfo = undefined;
  }

  start() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-e2e-'));
    this.child = spawn(PADDOCK_BIN, this.args, {
      cwd: this.dir,
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.pid = this.child.pid;
    this.child.stdin.on('error', () => {}); // EPIPE after the server went away: seen via exit
    this.child.stdout.on('data', (chunk) => this.#onStdout(chunk));
    this.child.stdout.on('end', () => this.#onStdoutEnd());
    this.child.stderr.on('data', (chunk) => {
      // Keep the last 256 KiB of logs for failure messages.
      this.stderrChunks.push(chunk);
      this.stderrBytes += chunk.length;
      while (this.stderrBytes > 256 * 1024 && this.stderrChunks.length > 1) {
        this.stderrBytes -= this.stderrChunks.shift().length;
      }
    });
    this.exitPromise = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.violation(`could not start ${PADDOCK_BIN}: ${err.message}`);
        this.exited = true;
        this.exitInfo = { code: null, signal: null, error: err };
        resolve(this.exitInfo);
      });
      this.child.on('exit', (code, signal) => {
        this.exited = true;
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    this.closedPromise = new Promise((resolve) => this.child.on('close', resolve));
    this.closedPromise.then(() => {
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new Error(`${p.method}: the server exited before answering ` +
          `(exit ${JSON.stringify(this.exitInfo)}); its stderr ends with:\n${this.stderrTail()}`));
      }
      this.pending.clear();
      this.emit('close');
    });
    return this;
  }

  stderrText() {
    return Buffer.concat(this.stderrChunks).toString('utf8');
  }

  // The server's stderr once it matches `pattern`, or as it is after `timeoutMs`: a log line
  // comes on another pipe than the answers, and may arrive after an answer that followed it.
  async stderrMatching(pattern, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stderrText()) && Date.now() < deadline) await sleep(20);
    return this.stderrText();
  }

  stderrTail(n = 3000) {
    const s = this.stderrText();
    return s.length > n ? s.slice(-n) : s;
  }

  violation(text) {
    this.violations.push(text);
    this.emit('violation', text);
  }

  // ---- reading ---------------------------------------------------------------------------------

  #onStdout(chunk) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      this.#append(chunk.subarray(start, nl));
      this.#line();
      start = nl + 1;
    }
    if (start < chunk.length) this.#append(chunk.subarray(start));
  }

  #append(part) {
    // Lines over MAX_LINE_BYTES are a violation but still read (up to HARD_CAP) so the request
    // they answer is not left hanging.
    if (this.outLen + part.length > HARD_CAP) {
      if (!this.oversized) {
        const head = Buffer.concat(this.outChunks).subarray(0, 300).toString('utf8');
        this.violation(`a stdout line is longer than ${HARD_CAP} bytes; it starts with ${head}`);
      }
      this.oversized = true;
      this.outChunks = [];
      this.outLen = 0;
      return;
    }
    this.outChunks.push(Buffer.from(part));
    this.outLen += part.length;
  }

  #line() {
    const bytes = Buffer.concat(this.outChunks);
    const wasOversized = this.oversized;
    this.outChunks = [];
    this.outLen = 0;
    this.oversized = false;
    this.lines++;
    if (wasOversized) return;
    if (bytes.length > MAX_LINE_BYTES) {
      this.violation(`a stdout line is ${bytes.length} bytes, over the ${MAX_LINE_BYTES}-byte cap; ` +
        `it starts with ${bytes.subarray(0, 300).toString('utf8')}`);
    }
    let text;
    try {
      text = decoder.decode(bytes);
    } catch {
      this.violation(`a stdout line is not valid UTF-8: ${excerpt(bytes.toString('latin1'), 300)}`);
      return;
    }
    let message;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.violation(`a stdout line is not JSON (${err.message}): ${excerpt(JSON.stringify(text), 500)}`);
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.violation(`a stdout line is not a single JSON object: ${excerpt(text, 500)}`);
      return;
    }
    this.#dispatch(message, text);
  }

  #onStdoutEnd() {
    if (this.outLen > 0 || this.oversized) {
      const head = Buffer.concat(this.outChunks).subarray(0, 300).toString('utf8');
      this.violation(`stdout ended in the middle of a line (no final newline): ${head}`);
    }
  }

  #dispatch(message, text) {
    this.messages.push(message);
    const isResponse = 'id' in message && ('result' in message || 'error' in message) && !('method' in message);
    let version;
    let method;
    let pending;
    let clientCapabilities = this.clientCapabilities;
    if (isResponse) {
      const key = JSON.stringify(message.id);
      pending = this.pending.get(key);
      if (pending) {
        this.pending.delete(key);
        method = pending.method;
        version = pending.version;
        clientCapabilities = pending.capabilities ?? clientCapabilities;
        if (method === 'initialize' && message.result && typeof message.result.protocolVersion === 'string') {
          version = message.result.protocolVersion;
          this.negotiated = version;
        }
      } else if (message.id !== null) {
        const again = this.answered.has(key);
        this.violation(`a response for ${again ? 'an already answered' : 'an unknown'} request id ${key}: ${excerpt(text, 500)}`);
      }
      if (message.id !== null) this.answered.add(key);
    } else if (message.method === 'notifications/progress' && message.params) {
      version = this.progressVersions.get(JSON.stringify(message.params.progressToken));
    }
    version ??= this.negotiated ?? LATEST_LEGACY;
    const problems = checkServerMessage(message, { version, method, clientCapabilities });
    for (const p of problems) {
      this.violation(`${p}\n    message: ${excerpt(text, 2000)}`);
    }
    if (pending) {
      clearTimeout(pending.timer);
      pending.resolve(message);
    }
    this.emit('message', message);
  }

  // Checks a transcript recorded elsewhere (tap-server.mjs): what the client wrote, then what the
  // server wrote. The process is not started.
  replay(clientBytes, serverBytes) {
    for (const line of clientBytes.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      let message;
      try { message = JSON.parse(line); } catch { continue; }
      const info = this.#track(message);
      if (info) this.#expect(message.id, info);
    }
    this.#onStdout(serverBytes);
    this.#onStdoutEnd();
    return this;
  }

  // ---- writing ---------------------------------------------------------------------------------

  nextId() {
    return this.nextIdValue++;
  }

  #track(message) {
    if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined;
    if (!('method' in message) || !('id' in message)) return undefined;
    const meta = message.params?._meta;
    let version;
    const asked = meta?.[META_VERSION];
    if (typeof asked === 'string') {
      // A stateless request: answered in the revision it names, or in the newest one (whose
      // schema defines UnsupportedProtocolVersionError) when the server does not know it.
      version = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].includes(asked) ? asked : MODERN;
    } else if (message.method !== 'initialize') {
      version = this.negotiated;
    }
    if (message.method === 'initialize') this.clientCapabilities = message.params?.capabilities ?? {};
    if (meta && 'progressToken' in meta) {
      this.progressVersions.set(JSON.stringify(meta.progressToken), version ?? this.negotiated ?? LATEST_LEGACY);
    }
    return { method: message.method, version, capabilities: meta?.[META_CAPS] };
  }

  // Writes one message as a line. Requests are tracked so their answers are matched.
  send(message) {
    const info = this.#track(message);
    if (info) this.#expect(message.id, info);
    return this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  // Writes bytes as they are; `expectId` registers the request id they carry (if any).
  writeRaw(data, { expectId, method = 'raw', version } = {}) {
    if (expectId !== undefined) this.#expect(expectId, { method, version });
    return new Promise((resolve) => {
      if (!this.child.stdin.writable) return resolve(false);
      this.child.stdin.write(data, (err) => resolve(!err));
    });
  }

  #expect(id, info) {
    const key = JSON.stringify(id);
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    promise.catch(() => {});
    this.pending.set(key, { ...info, resolve, reject, promise });
  }

  // The promise of the response to request `id` (sent through send or writeRaw with expectId).
  response(id, timeoutMs = 60000) {
    const p = this.pending.get(JSON.stringify(id));
    if (!p) {
      const done = this.messages.find((m) => 'id' in m && !('method' in m) && JSON.stringify(m.id) === JSON.stringify(id));
      if (done) return Promise.resolve(done);
      return Promise.reject(new Error(`no request with id ${JSON.stringify(id)} is waiting`));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(
        `${p.method} (id ${JSON.stringify(id)}): no answer within ${timeoutMs} ms; stderr ends with:\n${this.stderrTail()}`)), timeoutMs);
      p.promise.then((m) => { clearTimeout(timer); resolve(m); }, (e) => { clearTimeout(timer); reject(e); });
    });
  }

  // Sends a request and resolves with the whole response message.
  async request(method, params, { id = this.nextId(), timeoutMs = 60000 } = {}) {
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const answer = this.response.bind(this);
    this.send(message);
    return answer(id, timeoutMs);
  }

  // Sends a request and resolves with its result; an error response rejects with McpError.
  async call(method, params, options) {
    const response = await this.request(method, params, options);
    if (response.error) throw new McpError(method, response.error);
    return response.result;
  }

  notify(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    return this.send(message);
  }

  async initialize(protocolVersion = LATEST_LEGACY, capabilities = {}) {
    const result = await this.call('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: { name: 'paddock-e2e', version: '1.0.0' },
    });
    await this.notify('notifications/initialized');
    return result;
  }

  // tools/call in the era in use: with `modern`, the per-request _meta of 2026-07-28.
  async callTool(name, args = {}, { modern = false, progressToken, timeoutMs } = {}) {
    const params = { name, arguments: args };
    if (modern || progressToken !== undefined) {
      params._meta = modern ? modernMeta() : {};
      if (progressToken !== undefined) params._meta.progressToken = progressToken;
    }
    return this.call('tools/call', params, { timeoutMs });
  }

  // tools/list (cached per process), for outputSchema checks.
  async tools({ modern = false } = {}) {
    if (!this.toolList) {
      const result = await this.call('tools/list', modern ? { _meta: modernMeta() } : {});
      this.toolList = result.tools;
    }
    return this.toolList;
  }

  // Checks a tools/call result's structuredContent against the tool's declared outputSchema.
  async checkOutputSchema(name, result) {
    const tool = (await this.tools()).find((t) => t.name === name);
    assert.ok(tool, `tools/list has no tool ${name}`);
    if (!tool.outputSchema) return;
    if (result.isError && result.structuredContent === undefined) return;
    assert.ok(result.structuredContent !== undefined,
      `${name} declares an outputSchema but its result has no structuredContent: ${excerpt(JSON.stringify(result))}`);
    const problems = checkAgainstDeclaredSchema(tool.outputSchema, result.structuredContent);
    assert.deepEqual(problems, [], `${name}'s structuredContent does not match its outputSchema: ` +
      `${excerpt(JSON.stringify(result.structuredContent))}`);
  }

  waitFor(predicate, timeoutMs = 10000, what = 'a message') {
    const found = this.messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (!predicate(m)) return;
        stopWaiting();
        resolve(m);
      };
      const onClose = () => { stopWaiting(); reject(new Error(`the server exited while waiting for ${what}`)); };
      const timer = setTimeout(() => { stopWaiting(); reject(new Error(`waited ${timeoutMs} ms for ${what} in vain; the server's stderr ends with:\n${this.stderrTail(1500)}`)); }, timeoutMs);
      const stopWaiting = () => {
        clearTimeout(timer);
        this.off('message', onMessage);
        this.off('close', onClose);
      };
      this.on('message', onMessage);
      this.on('close', onClose);
    });
  }

  // ---- ending ----------------------------------------------------------------------------------

  closeStdin() {
    if (this.child.stdin.writable) this.child.stdin.end();
  }

  // Resolves with {code, signal} or undefined when the process is still running after timeoutMs.
  async waitExit(timeoutMs = 10000) {
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs, undefined); });
    const info = await Promise.race([this.exitPromise, timeout]);
    clearTimeout(timer);
    return info;
  }

  // Ends the process however it takes (EOF, then SIGTERM, then SIGKILL) and removes its temp dir.
  async stop() {
    if (!this.child) return;
    if (!this.exited) {
      this.closeStdin();
      if (!(await this.waitExit(5000))) {
        this.child.kill('SIGTERM');
        if (!(await this.waitExit(3000))) {
          this.child.kill('SIGKILL');
          await this.waitExit(3000);
        }
      }
    }
    await Promise.race([this.closedPromise, sleep(2000)]);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  // Stops the server and fails on any protocol violation seen during the test.
  async finish() {
    await this.stop();
    this.assertClean();
  }

  assertClean() {
    if (this.violations.length === 0) return;
    const list = this.violations.map((v, i) => `  ${i + 1}. ${v}`).join('\n');
    assert.fail(`${this.label} wrote ${this.violations.length} invalid line(s) on stdout:\n${list}\n` +
      `its stderr ends with:\n${this.stderrTail(1500)}`);
  }
}

// Starts a server for test `t`: it is stopped (and its temp dir removed) when the test ends, if
// the test has not called finish() itself.
export function startServer(t, options) {
  const server = new McpProcess(options).start();
  cleanup(t, () => server.stop());
  return server;
}

// Runs `body(server)` against a fresh server, then checks the server's stdout. A failure of the
// body is reported with any protocol violations appended.
export async function withServer(t, options, body) {
  if (typeof options === 'function') { body = options; options = {}; }
  const server = startServer(t, options);
  try {
    await body(server);
  } catch (err) {
    if (server.violations.length) {
      err.message += `\n(also, the server wrote invalid lines:\n  ${server.violations.join('\n  ')})`;
    }
    throw err;
  }
  await server.finish();
}

export function textOf(result) {
  return (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

export function describe(result) {
  return excerpt(JSON.stringify(result), 3000);
}
