// `paddock wrap` (docs/wrap.md) with real MCP servers from the npm registry, installed on their
// first start as a user's client would install them (`npx -y PKG`, through the wrapper's egress
// proxy), and driven by the official SDK client: tools are listed and called, files land only in
// the shares, denied tools are gone, audit lines are written, and when the client closes the
// wrapper exits 0 with nothing left running.
//
// Every line the wrapper writes is checked against the MCP schemas (support/server.mjs), as for
// `paddock mcp`. Each test has a state directory of its own, so each downloads its package.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PADDOCK_BIN } from './support/config.mjs';
import { describeProcs, processTable, settledDescendants, waitGone } from './support/procs.mjs';
import { describe, textOf } from './support/server.mjs';
import { TappingTransport } from './support/transport.mjs';
import { cleanup, temporaryFolder } from './support/cleanup.mjs';

// wrap reads its flags alone (never PADDOCK_*): where the registry sits at a reserved address,
// the suite's PADDOCK_ALLOW_PRIVATE becomes the flag a user would write in the config line.
const PRIVATE = process.env.PADDOCK_ALLOW_PRIVATE ? ['--allow-private', process.env.PADDOCK_ALLOW_PRIVATE] : [];
// wrap always runs its server in a native sandbox; the container backends' passes of the suite
// would only run the same tests again.
const NATIVE = (process.env.PADDOCK_BACKEND || 'native') === 'native';
const ROOT = process.getuid() === 0;
// The first start downloads the package (a few seconds to a minute on a slow registry).
const TIMEOUT = 240000;
const clientInfo = { name: 'paddock-e2e-wrap', version: '1.0.0' };

function tempDir(t, name, mode = 0o700) {
  const dir = temporaryFolder(t, `paddock-wrap-${name}-`);
  fs.chmodSync(dir, mode);
  return dir;
}

// Every process whose command line names `marker` (the test's own state directory): the wrapped
// server's processes, wherever they were reparented to.
function processesNaming(marker) {
  return [...processTable().values()].filter((p) => p.state !== 'Z' && p.cmdline.includes(marker));
}

// The wrapper through the tapping transport (every line schema-checked), with the 1.x SDK client.
async function connect(t, args, label) {
  const transport = new TappingTransport({ label });
  transport.server.args = ['wrap', ...args];
  const client = new Client(clientInfo, { capabilities: {} });
  cleanup(t, () => client.close().catch(() => {}));
  try {
    await client.connect(transport);
  } catch (err) {
    err.message += `\n${label}'s stderr ends with:\n${transport.server.stderrTail()}`;
    throw err;
  }
  return { client, server: transport.server };
}

// Closes the client (EOF on the wrapper's stdin), then checks: the wrapper exited with status 0,
// wrote only valid lines, and left no process behind (neither its descendants of a moment ago
// nor anything naming the state directory).
async function closeAndCheck({ client, server }, stateDir) {
  const procs = await settledDescendants(server.pid);
  assert.ok(procs.length > 0, 'the wrapped server runs under the wrapper');
  await client.close();
  await server.finish();
  assert.deepEqual(server.exitInfo, { code: 0, signal: null }, `the wrapper's exit; stderr:\n${server.stderrTail()}`);
  const left = await waitGone(procs, 3000);
  assert.deepEqual(left, [], `left running after the wrapper exited:\n  ${describeProcs(left)}`);
  const named = processesNaming(stateDir);
  assert.deepEqual(named, [], `processes naming ${stateDir}:\n  ${describeProcs(named)}`);
}

async function call(client, name, args) {
  return client.callTool({ name, arguments: args });
}

async function ok(client, name, args) {
  const result = await call(client, name, args);
  assert.ok(!result.isError, `${name} ${JSON.stringify(args)}: ${describe(result)}`);
  return result;
}

async function failed(client, name, args, pattern) {
  const result = await call(client, name, args);
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} must fail: ${describe(result)}`);
  assert.match(textOf(result), pattern, describe(result));
  return result;
}

test('server-filesystem writes into its read-write share only', { skip: !NATIVE && 'wrap runs natively whatever the backend', timeout: TIMEOUT }, async (t) => {
  const state = tempDir(t, 'state');
  // A read-write share is written as its owner; root's sandboxes never write as host root, so as
  // root the folder goes to an unprivileged owner, as in shares.test.mjs. The read-only share is
  // read as an id of the sandbox's own: it is open to every user.
  const owner = ROOT ? 65534 : process.getuid();
  const notes = tempDir(t, 'notes', 0o755);
  if (ROOT) fs.chownSync(notes, owner, owner);
  const ro = tempDir(t, 'ro', 0o755);
  fs.writeFileSync(path.join(ro, 'readme.txt'), 'read me\n');
  fs.chmodSync(path.join(ro, 'readme.txt'), 0o644);
  const conn = await connect(t, ['--state-dir', state, ...PRIVATE, '--profile', 'filesystem',
    '--share', `${notes}=notes:rw`, '--share', `${ro}=ro`, '--',
    'npx', '-y', '@modelcontextprotocol/server-filesystem', '/work/notes', '/work/ro', '/etc'], 'paddock wrap (filesystem)');
  const { client } = conn;
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ['write_file', 'list_directory', 'list_allowed_directories']) {
    assert.ok(names.includes(name), `${name} in ${names}`);
  }
  const read = names.includes('read_text_file') ? 'read_text_file' : 'read_file';

  await ok(client, 'write_file', { path: '/work/notes/hello.md', content: '# from the sandbox\n' });
  assert.equal(fs.readFileSync(path.join(notes, 'hello.md'), 'utf8'), '# from the sandbox\n');
  assert.equal(fs.statSync(path.join(notes, 'hello.md')).uid, owner);
  const back = await ok(client, read, { path: '/work/ro/readme.txt' });
  assert.match(textOf(back), /read me/);
  const listed = await ok(client, 'list_directory', { path: '/work/notes' });
  assert.match(textOf(listed), /hello\.md/);

  // Outside the directories the server was given: the server's own refusal.
  await failed(client, 'write_file', { path: '/home/server/outside.txt', content: 'x' }, /denied|outside|not allowed/i);
  // Inside them, but in the read-only share: the sandbox refuses the write.
  await failed(client, 'write_file', { path: '/work/ro/new.txt', content: 'x' }, /read-only|EROFS|EACCES|permission/i);
  assert.ok(!fs.existsSync(path.join(ro, 'new.txt')));
  assert.deepEqual(fs.readdirSync(ro), ['readme.txt']);
  // /etc is one of its directories, yet the host's shadow file is not there to read.
  await failed(client, read, { path: '/etc/shadow' }, /ENOENT|no such file|EACCES|permission|denied/i);
  // Nothing but the one file reached the host's read-write folder.
  assert.deepEqual(fs.readdirSync(notes), ['hello.md']);
  await closeAndCheck(conn, state);
});

test('server-memory keeps its graph in its kept home from one start to the next', { skip: !NATIVE && 'wrap runs natively whatever the backend', timeout: TIMEOUT }, async (t) => {
  const state = tempDir(t, 'state');
  const args = ['--state-dir', state, ...PRIVATE, '--profile', 'memory', '--', 'npx', '-y', '@modelcontextprotocol/server-memory'];
  const first = await connect(t, args, 'paddock wrap (memory)');
  const created = await ok(first.client, 'create_entities', {
    entities: [{ name: 'paddock', entityType: 'project', observations: ['sandboxes MCP servers'] }],
  });
  assert.match(textOf(created), /paddock/);
  await closeAndCheck(first, state);
  const kept = fs.readdirSync(state, { recursive: true }).filter((f) => String(f).endsWith('memory.json'));
  assert.equal(kept.length, 1, `one memory.json under ${state}: ${kept}`);

  // The second start as a client's config line starts it: the SDK's own stdio transport.
  const transport = new StdioClientTransport({ command: PADDOCK_BIN, args: ['wrap', ...args], stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr += chunk; });
  const client = new Client(clientInfo, { capabilities: {} });
  cleanup(t, () => client.close().catch(() => {}));
  await client.connect(transport);
  const pid = transport.pid;
  // The SDK's transport keeps its child to itself and says nothing of its exit status: read from
  // the child it holds.
  const exited = new Promise((resolve) => transport._process.once('exit', (code, signal) => resolve({ code, signal })));
  const graph = await ok(client, 'read_graph', {});
  const text = textOf(graph);
  assert.match(text, /"name":\s*"paddock"/, text);
  assert.match(text, /sandboxes MCP servers/, text);
  const procs = await settledDescendants(pid);
  await client.close();
  assert.deepEqual(await exited, { code: 0, signal: null }, `the wrapper's exit; stderr:\n${stderr}`);
  assert.deepEqual(await waitGone(procs, 3000), [], 'nothing of the second start is left');
  assert.deepEqual(processesNaming(state), []);
});

test('server-everything: echo round trip, a denied tool gone and refused, audit lines', { skip: !NATIVE && 'wrap runs natively whatever the backend', timeout: TIMEOUT }, async (t) => {
  const state = tempDir(t, 'state');
  const audit = path.join(state, 'audit.jsonl');
  const conn = await connect(t, ['--state-dir', state, ...PRIVATE, '--audit-log', audit, '--profile', 'everything',
    '--deny-tool', 'get-sum', '--', 'npx', '-y', '@modelcontextprotocol/server-everything'], 'paddock wrap (everything)');
  const { client } = conn;
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('echo'), `echo in ${names}`);
  assert.ok(!names.includes('get-sum'), `get-sum is denied, yet listed: ${names}`);

  const message = 'hello through the wrapper ✓';
  const echoed = await ok(client, 'echo', { message });
  assert.equal(textOf(echoed), `Echo: ${message}`);
  await assert.rejects(call(client, 'get-sum', { a: 1, b: 2 }), (err) => {
    assert.match(String(err.message), /denied/i);
    return true;
  });
  await closeAndCheck(conn, state);

  const lines = fs.readFileSync(audit, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const echo = lines.filter((l) => l.wrapped_tool === 'echo');
  assert.equal(echo.length, 1, JSON.stringify(lines));
  assert.equal(echo[0].tool, 'tools/call');
  assert.equal(echo[0].server, 'everything');
  assert.equal(echo[0].outcome, 'ok');
  assert.equal(typeof echo[0].duration_ms, 'number');
  assert.deepEqual(Object.keys(echo[0].arguments), ['message']);
  // A value's size is that of its JSON text, in bytes.
  assert.equal(echo[0].arguments.message, Buffer.byteLength(JSON.stringify(message)), JSON.stringify(echo[0]));
  assert.ok(!JSON.stringify(lines).includes('hello through'), 'values are not written without --audit-values');
  const denied = lines.filter((l) => l.wrapped_tool === 'get-sum');
  assert.equal(denied.length, 1, JSON.stringify(lines));
  assert.notEqual(denied[0].outcome, 'ok');
  assert.deepEqual(Object.keys(denied[0].arguments).sort(), ['a', 'b']);
});
