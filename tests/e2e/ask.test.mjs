// `paddock mcp --ask network` and `--ask preview` (issue 53) through the official clients'
// elicitation handlers: when a sandbox's program connects to a host the allowlist does not cover,
// or the model asks to open a port to the user's browser, the server asks the user through the
// client (elicitation/create mid-call up to 2025-11-25, an input_required result the client
// answers and retries with in 2026-07-28) and does what the answer says. Every case runs in each
// era a host may speak, because each asks on a different path: the 1.x client at 2025-06-18 (no
// `mode` in the question) and 2025-11-25, the 2.x client in its legacy mode and pinned to
// 2026-07-28. The handler below stands in for the host's dialog: it records each question and
// answers as the case says. Every line the server writes is checked against the MCP schema of
// the era (support/schemas.mjs), a question included, and only a client that declared the
// elicitation capability may be asked. The registry answers through the proxy here
// (PADDOCK_ALLOW_PRIVATE opens its test address).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { callTool, connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { MODERN, PADDOCK_BIN } from './support/config.mjs';
import { describe, sleep, textOf } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

// Only the native backend has the egress proxy and previews that --ask guards.
const NATIVE = (process.env.PADDOCK_BACKEND || 'native') === 'native';
const SKIP = !NATIVE && '--ask guards the native backend\'s egress proxy and previews';

const ERAS = [
  // A client of 2025-06-18 declares `elicitation: {}` and gets questions without `mode`.
  { name: '1.x client, 2025-06-18', mode: false, elicitation: {},
    connect: (t, options) => connectSdk1(t, { ...options, initializeVersion: '2025-06-18' }) },
  { name: '1.x client, 2025-11-25', mode: true, elicitation: { form: {} },
    connect: (t, options) => connectSdk1(t, options) },
  { name: '2.x client, legacy', mode: true, elicitation: { form: {} },
    connect: (t, options) => connectSdk2(t, { ...options, mode: 'legacy' }) },
  { name: `2.x client, ${MODERN}`, mode: true, elicitation: { form: {} }, modern: true,
    connect: (t, options) => connectSdk2(t, { ...options, mode: MODERN }) },
];

const HOST = 'registry.npmjs.org';
const TARGET = `${HOST}:443`;
const DECISIONS = ['once', 'session', 'deny'];

// The user's answers, as the handler gives them.
const accept = (decision) => () => ({ action: 'accept', content: { decision } });
const decline = () => ({ action: 'decline' });
const cancel = () => ({ action: 'cancel' });
const never = () => new Promise(() => {});
const after = (ms, answer) => async (params) => { await sleep(ms); return answer(params); };

// Fetches `url` `times` times with urllib (each call its own connection through the proxy) and
// prints the status of each, or the code and body of a refusal.
function fetchCode(url, times = 1) {
  return `
import urllib.request, urllib.error
for _ in range(${times}):
    try:
        print(urllib.request.urlopen('${url}', timeout=30).status)
    except urllib.error.HTTPError as e:
        print(e.code, e.read().decode().strip())
`;
}

// The registry over TLS (a CONNECT tunnel), and over plain HTTP: only there does urllib see the
// proxy's 403 as an HTTPError with its body (a refused tunnel is an OSError without it).
const REGISTRY = `https://${HOST}/left-pad`;
const PLAIN = `http://${HOST}/left-pad`;
const PLAIN_TARGET = `${HOST}:80`;

function auditFile(t) {
  const dir = temporaryFolder(t, 'paddock-ask-audit-');
  return path.join(dir, 'audit.jsonl');
}

// The audit lines of the answers (tool "ask"): who asked (session, null for a fresh call), about
// what (target "host:port") and the answer.
function askLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
    .filter((line) => line.tool === 'ask')
    .map(({ session, subject, target, asker, answer }) => ({ session, subject, target, asker, answer }));
}

// A client of `era` connected to `paddock mcp --ask WHAT --audit-log FILE ARGS...`; `answer`
// (params, n) answers the n-th question, and `questions` keeps every question's params. Without
// `answer`, the client declares no elicitation capability.
async function askingClient(t, era, { ask = 'network', args = [], answer } = {}) {
  const audit = auditFile(t);
  const questions = [];
  const elicit = answer && ((params) => {
    questions.push(params);
    return answer(params, questions.length);
  });
  const conn = await era.connect(t, {
    args: ['--ask', ask, '--audit-log', audit, ...args],
    capabilities: answer ? { elicitation: era.elicitation } : {},
    elicit,
  });
  return {
    ...conn,
    questions,
    asked: () => askLines(audit),
    call: (name, args, options) => callTool(conn, name, args, options),
  };
}

// The questions as the server wrote them: elicitation/create requests, or the requests of an
// input_required result in 2026-07-28.
function wireQuestions(server) {
  const asked = [];
  for (const message of server.messages) {
    if (message.method === 'elicitation/create') asked.push(message.params);
    for (const request of Object.values(message.result?.inputRequests ?? {})) {
      if (request.method === 'elicitation/create') asked.push(request.params);
    }
  }
  return asked;
}

// Checks that the handler saw every question the server wrote, each in the era's form (`mode`
// from 2025-11-25 on, none before), and in 2026-07-28 that each input_required was answered by
// a retry echoing its requestState; then closes the client and checks every line written.
async function finish(era, conn) {
  const wire = wireQuestions(conn.server);
  assert.equal(wire.length, conn.questions.length, `questions on the wire: ${JSON.stringify(wire)}`);
  for (const params of wire) {
    if (era.mode) assert.equal(params.mode, 'form', JSON.stringify(params));
    else assert.ok(!('mode' in params), `a 2025-06-18 question has no mode: ${JSON.stringify(params)}`);
  }
  if (era.modern) {
    const states = conn.server.messages.filter((m) => m.result?.resultType === 'input_required').map((m) => m.result.requestState);
    const retried = conn.transport.sent.filter((m) => m.method === 'tools/call' && m.params.inputResponses);
    for (const state of states.filter((s) => s !== undefined)) {
      assert.ok(retried.some((m) => m.params.requestState === state), `no retry echoes requestState ${state}`);
    }
  }
  await finishClient(conn);
}

// The values the user may choose for `decision`: 2025-06-18's enum (named by enumNames), and from
// 2025-11-25 on the titled single-select enum (oneOf of const and title).
const choices = (schema) => {
  const decision = schema.properties?.decision;
  return decision?.enum ?? decision?.oneOf?.map((choice) => choice.const);
};

// A network question: who asks (a fresh call, or the session named by its id), what connects
// (its program) and where (HOST:PORT), with the three decisions to choose from. The wording
// around them is the server's to choose.
function assertNetworkQuestion(params, { target = TARGET, session } = {}) {
  const who = session ? `Sandbox session ${session}` : 'A fresh sandbox';
  const wants = `wants to connect to ${target} (its program)`;
  assert.ok(params.message.startsWith(who), `asked by ${who}: ${params.message}`);
  assert.ok(params.message.includes(wants), `${wants}: ${params.message}`);
  const schema = params.requestedSchema;
  assert.equal(schema.type, 'object', JSON.stringify(schema));
  assert.deepEqual(schema.required, ['decision']);
  assert.equal(schema.properties.decision.type, 'string');
  assert.deepEqual(choices(schema), DECISIONS, JSON.stringify(schema));
}

// An audit line of an answer about the registry.
const asked = (answer, { session = null, port = 443 } = {}) =>
  ({ session, subject: 'network', target: `${HOST}:${port}`, asker: 'program', answer });

// What of a result tells why a case failed: the program's streams and how it ended, and the
// network record (describe() would show the text blocks first, which repeat the streams).
function summary(result) {
  const { stdout, stderr = '', exit_code, timed_out, network } = result.structuredContent ?? {};
  if (stdout === undefined) return describe(result);
  return JSON.stringify({ isError: result.isError, stdout, stderr: stderr.slice(-1500), exit_code, timed_out,
    network: JSON.stringify(network)?.slice(0, 1500) });
}

// An execute_code call whose program ran to its end.
async function ran(conn, args, options) {
  const result = await conn.call('execute_code', { language: 'python', ...args }, options);
  assert.equal(result.isError, false, summary(result));
  return result;
}

// The result's "network: ..." lines.
const networkLines = (result) => textOf(result).split('\n').filter((line) => line.startsWith('network: '));

for (const era of ERAS) {
  test(`${era.name}: an answer "once" allows that connection only`, { skip: SKIP, timeout: 120000 }, async (t) => {
    const conn = await askingClient(t, era, { answer: accept('once') });
    const first = await ran(conn, { code: fetchCode(REGISTRY) });
    assert.equal(first.structuredContent.stdout, '200\n', summary(first));
    assert.equal(conn.questions.length, 1, JSON.stringify(conn.questions));
    assertNetworkQuestion(conn.questions[0]);
    assert.deepEqual(first.structuredContent.network?.allowed_by_user, [{ host: HOST, port: 443, scope: 'once' }], summary(first));
    assert.ok(networkLines(first).includes(`network: the user allowed ${TARGET} once`), textOf(first));
    // Once means once: the next connection of the same call to the same host asks again.
    const twice = await ran(conn, { code: fetchCode(REGISTRY, 2) });
    assert.equal(twice.structuredContent.stdout, '200\n200\n', summary(twice));
    assert.equal(conn.questions.length, 3, JSON.stringify(conn.questions));
    for (const entry of twice.structuredContent.network?.allowed_by_user ?? []) {
      assert.deepEqual(entry, { host: HOST, port: 443, scope: 'once' }, summary(twice));
    }
    assert.deepEqual(conn.asked(), [asked('once'), asked('once'), asked('once')]);
    await finish(era, conn);
  });

  // Live sessions (a kernel that stays) and the others run cells differently: both must ask once.
  for (const live of [true, false]) {
    test(`${era.name}: an answer "session" holds for the rest of a ${live ? 'live' : 'non-live'} session`, { skip: SKIP, timeout: 180000 }, async (t) => {
      const conn = await askingClient(t, era, { answer: accept('session') });
      const created = await conn.call('create_session', { language: 'python', live });
      assert.equal(created.isError, false, describe(created));
      const session_id = created.structuredContent.session_id;
      for (const n of [1, 2]) {
        const result = await ran(conn, { session_id, code: fetchCode(REGISTRY) });
        assert.equal(result.structuredContent.stdout, '200\n', `call ${n}: ${summary(result)}`);
        assert.equal(conn.questions.length, 1, JSON.stringify(conn.questions));
        if (n === 1) {
          assert.deepEqual(result.structuredContent.network?.allowed_by_user, [{ host: HOST, port: 443, scope: 'session' }], summary(result));
          assert.ok(networkLines(result).includes(`network: the user allowed ${TARGET} for this session`), textOf(result));
        }
      }
      assertNetworkQuestion(conn.questions[0], { session: session_id });
      assert.deepEqual(conn.asked(), [asked('session', { session: session_id })]);
      await finish(era, conn);
    });
  }

  // A fresh call's session is the call: asked once for its two connections, and again by the
  // next fresh call.
  test(`${era.name}: an answer "session" in a fresh call holds for the rest of that call`, { skip: SKIP, timeout: 120000 }, async (t) => {
    const conn = await askingClient(t, era, { answer: accept('session') });
    for (const n of [1, 2]) {
      const fresh = await ran(conn, { code: fetchCode(REGISTRY, 2) });
      assert.equal(fresh.structuredContent.stdout, '200\n200\n', summary(fresh));
      assert.equal(conn.questions.length, n, JSON.stringify(conn.questions));
      assertNetworkQuestion(conn.questions[n - 1]);
      assert.deepEqual(fresh.structuredContent.network?.allowed_by_user, [{ host: HOST, port: 443, scope: 'session' }], summary(fresh));
    }
    assert.deepEqual(conn.asked(), [asked('session'), asked('session')]);
    await finish(era, conn);
  });

  // Every answer but an allowance refuses the connection: a 403 from the proxy whose body says
  // why, and the same reason in the result and the audit log. In 2026-07-28 "no answer" is a
  // client that answers after --ask-timeout (it cannot retry the call without answering).
  const REFUSALS = [
    { what: 'a decline', answer: decline, reason: 'the user denied it', audit: 'denied' },
    { what: 'an accept with decision "deny"', answer: accept('deny'), reason: 'the user denied it', audit: 'denied' },
    { what: 'a cancel', answer: cancel, reason: 'the user dismissed the question', audit: 'dismissed' },
    { what: 'no answer within --ask-timeout', answer: era.modern ? after(4000, accept('once')) : never,
      args: ['--ask-timeout', '2'], reason: 'nobody answered within 2 s', audit: 'unanswered' },
  ];
  for (const refusal of REFUSALS) {
    test(`${era.name}: ${refusal.what} refuses the connection`, { skip: SKIP, timeout: 120000 }, async (t) => {
      const conn = await askingClient(t, era, { answer: refusal.answer, args: refusal.args });
      const result = await ran(conn, { code: fetchCode(PLAIN) });
      const out = result.structuredContent.stdout;
      assert.ok(out.startsWith(`403 paddock: ${PLAIN_TARGET} is refused: ${refusal.reason}`), summary(result));
      assert.equal(conn.questions.length, 1, JSON.stringify(conn.questions));
      assertNetworkQuestion(conn.questions[0], { target: PLAIN_TARGET });
      assert.deepEqual(result.structuredContent.network?.denied, [{ host: HOST, port: 80, reason: refusal.reason }], summary(result));
      assert.deepEqual(result.structuredContent.network?.allowed_by_user ?? [], [], summary(result));
      assert.deepEqual(conn.asked(), [asked(refusal.audit, { port: 80 })]);
      await finish(era, conn);
    });
  }

  test(`${era.name}: a client without elicitation gets the allowlist's refusal and is told why`, { skip: SKIP, timeout: 120000 }, async (t) => {
    const conn = await askingClient(t, era);
    const result = await ran(conn, { code: fetchCode(PLAIN) });
    assert.ok(result.structuredContent.stdout.startsWith(`403 paddock: ${PLAIN_TARGET} is refused: it is not in the allowlist`), summary(result));
    // The reason adds why nobody was asked.
    const denied = result.structuredContent.network?.denied ?? [];
    assert.equal(denied.length, 1, summary(result));
    assert.deepEqual({ ...denied[0], reason: undefined }, { host: HOST, port: 80, reason: undefined }, summary(result));
    assert.match(denied[0].reason, /^it is not in the allowlist, and this client cannot ask the user/, summary(result));
    // What the user can do: name the host, or use a client that can ask.
    assert.match(textOf(result), /--allow-host/, textOf(result));
    assert.match(textOf(result), /elicitation/, textOf(result));
    assert.deepEqual(conn.asked(), []);
    await finish(era, conn);
  });

  test(`${era.name}: an address in a reserved block is refused without a question`, { skip: SKIP, timeout: 120000 }, async (t) => {
    const conn = await askingClient(t, era, { answer: accept('once') });
    const result = await ran(conn, { code: fetchCode('http://10.0.0.1/') });
    assert.ok(result.structuredContent.stdout.startsWith('403 paddock: 10.0.0.1:80 is refused: '), summary(result));
    assert.equal(conn.questions.length, 0, JSON.stringify(conn.questions));
    const denied = result.structuredContent.network?.denied ?? [];
    assert.deepEqual(denied.map(({ host, port }) => ({ host, port })), [{ host: '10.0.0.1', port: 80 }], summary(result));
    assert.deepEqual(conn.asked(), []);
    await finish(era, conn);
  });

  // A program that opens 1,000 destinations cannot flood the user with questions: at most 3 per
  // call, the rest refused at once (each a 403), and the call ends.
  test(`${era.name}: a flood of destinations asks at most 3 questions`, { skip: SKIP, timeout: 180000 }, async (t) => {
    const conn = await askingClient(t, era, { answer: after(200, accept('deny')) });
    const code = `
import collections, concurrent.futures, os, socket, sys, time
start = time.monotonic()
proxy_host, proxy_port = os.environ['HTTPS_PROXY'].rstrip('/').rsplit('/', 1)[-1].rsplit(':', 1)
def attempt(port):
    # A CONNECT of its own per destination; its status line is the answer.
    try:
        with socket.create_connection((proxy_host, int(proxy_port)), timeout=60) as s:
            s.sendall(f'CONNECT ${HOST}:{port} HTTP/1.1\\r\\nHost: ${HOST}:{port}\\r\\n\\r\\n'.encode())
            line = s.makefile('rb').readline().split()
            return line[1].decode() if len(line) > 1 else 'closed'
    except OSError as e:
        return type(e).__name__
with concurrent.futures.ThreadPoolExecutor(32) as pool:
    print(sorted(collections.Counter(pool.map(attempt, range(1, 1001))).items()))
print(f'{time.monotonic() - start:.1f} s', file=sys.stderr)
`;
    const result = await ran(conn, { code, timeout: 150 }, { timeout: 170000 });
    assert.equal(result.structuredContent.stdout, "[('403', 1000)]\n", summary(result));
    const n = conn.questions.length;
    assert.ok(n >= 1 && n <= 3, `${n} questions: ${JSON.stringify(conn.questions)}`);
    for (const params of conn.questions) {
      const port = Number(params.message.match(/ registry\.npmjs\.org:(\d+) /)?.[1]);
      assert.ok(port >= 1 && port <= 1000, params.message);
      assertNetworkQuestion(params, { target: `${HOST}:${port}` });
    }
    const lines = conn.asked();
    assert.equal(lines.length, n, JSON.stringify(lines));
    for (const line of lines) assert.equal(line.answer, 'denied', JSON.stringify(line));
    await finish(era, conn);
  });

  // --ask preview lists expose_port without --allow-preview and asks before each port opens.
  test(`${era.name}: --ask preview asks before a port opens to the browser`, { skip: SKIP, timeout: 180000 }, async (t) => {
    const ANSWERS = { 8000: { action: 'accept', content: { decision: 'allow' } }, 8001: { action: 'accept', content: { decision: 'deny' } }, 8002: cancel() };
    const answer = (params) => ANSWERS[params.message.match(/port (\d+)/)?.[1]] ?? decline();
    const conn = await askingClient(t, era, { ask: 'preview', answer });
    const { tools } = await conn.client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'expose_port'), tools.map((tool) => tool.name).join(' '));
    const created = await conn.call('create_session', { language: 'python' });
    assert.equal(created.isError, false, describe(created));
    const session_id = created.structuredContent.session_id;
    // A server in a thread of the live interpreter outlives the cell that starts it.
    const serving = await ran(conn, {
      session_id,
      code: "import http.server, threading\n" +
        "site = http.server.ThreadingHTTPServer(('127.0.0.1', 8000), http.server.SimpleHTTPRequestHandler)\n" +
        "threading.Thread(target=site.serve_forever, daemon=True).start()\nprint('serving')",
    });
    assert.equal(serving.structuredContent.stdout, 'serving\n', summary(serving));
    const expose = (port) => conn.call('expose_port', { session_id, port });
    for (const [port, said] of [[8001, /denied/], [8002, /dismissed/]]) {
      const refused = await expose(port);
      assert.equal(refused.isError, true, describe(refused));
      assert.match(textOf(refused), said, describe(refused));
    }
    const opened = await expose(8000);
    assert.equal(opened.isError, false, describe(opened));
    assert.match(opened.structuredContent.url, /^http:\/\/127\.0\.0\.1:\d+\/\?paddock_preview=\w+$/, describe(opened));
    assert.equal(opened.structuredContent.accepting, true, describe(opened));
    assert.deepEqual(conn.questions.map((q) => q.message.match(/port (\d+)/)?.[1]), ['8001', '8002', '8000']);
    for (const params of conn.questions) {
      assert.ok(params.message.startsWith(`Session ${session_id} wants to open `), params.message);
      assert.match(params.message, /\bport 80\d\d to your browser\b/, params.message);
      assert.deepEqual(choices(params.requestedSchema), ['allow', 'deny'], JSON.stringify(params));
      assert.deepEqual(params.requestedSchema.required, ['decision']);
    }
    await finish(era, conn);
  });
}

// Only the native backend's sandboxes go through the egress proxy that holds a connection while
// the person is asked: on another backend the server refuses --ask network at start, in one line,
// rather than starting as if it would ask and refusing every call.
test('--ask network starts on the native backend alone, and elsewhere stops the server with one line', { timeout: 60000 }, () => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
    protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'e2e', version: '1' } } });
  const run = spawnSync(PADDOCK_BIN, ['mcp', '--ask', 'network', '--state-dir', 'none'],
    { input: initialize + '\n', encoding: 'utf8', timeout: 30000 });
  if (NATIVE) {
    assert.equal(run.status, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout.split('\n')[0]).id, 1, run.stdout);
    return;
  }
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /--ask network: the \w+ backend's sandboxes do not go through paddock's egress proxy, so nobody could be asked; leave it out and name hosts with --allow-host, or use the native backend/);
});
