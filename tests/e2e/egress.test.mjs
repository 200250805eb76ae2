// The egress allowlist through the official clients (paddock mcp --allow-host): programs reach
// the hosts the user named through a proxy outside the sandbox and nothing else, installers
// reach their package index alone, and the model learns which host was refused without being
// able to widen the list. These machines reach the npm registry (allowed here) and Debian's
// mirrors (refused). On docker, podman and kubernetes an allowlist is refused with a message
// that names the backend: never the open network instead.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { PADDOCK_BIN } from './support/config.mjs';
import { describe, textOf } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

const BACKEND = process.env.PADDOCK_BACKEND || 'native';
const NATIVE = BACKEND === 'native';

function auditFile(t) {
  const dir = temporaryFolder(t, 'paddock-egress-audit-');
  return path.join(dir, 'audit.jsonl');
}

function auditLines(file) {
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

async function run(client, args) {
  return client.callTool({ name: 'execute_code', arguments: args });
}

// Python's urllib honours the proxy variables: the allowed registry answers, Debian's mirror is
// a 403 whose body names it.
const URLLIB = `
import urllib.request, urllib.error
for url in ('https://registry.npmjs.org/left-pad', 'http://deb.debian.org/debian/'):
    try:
        print(url, urllib.request.urlopen(url, timeout=30).status)
    except urllib.error.HTTPError as e:
        print(url, e.code, e.read().decode().strip())
`;

test('an allowed host is reached, another is refused, and the model is told which', { timeout: 120000 }, async (t) => {
  const audit = auditFile(t);
  const conn = await connectSdk1(t, { args: ['--allow-host', 'registry.npmjs.org', '--audit-log', audit] });
  const { client } = conn;
  const result = await run(client, { language: 'python', code: URLLIB });
  if (!NATIVE) {
    assert.equal(result.isError, true, describe(result));
    assert.match(textOf(result), new RegExp(`the ${BACKEND} backend cannot enforce an egress allowlist`));
    await finishClient(conn);
    return;
  }
  assert.equal(result.isError, false, describe(result));
  const out = result.structuredContent.stdout;
  assert.match(out, /^https:\/\/registry\.npmjs\.org\/left-pad 200$/m, out);
  assert.match(out, /^http:\/\/deb\.debian\.org\/debian\/ 403 paddock: deb\.debian\.org:80 is refused: it is not in the allowlist/m, out);
  assert.deepEqual(result.structuredContent.network,
    { denied: [{ host: 'deb.debian.org', port: 80, reason: 'it is not in the allowlist' }] });
  // One line the model can pass on to the user.
  const lines = textOf(result).split('\n').filter((line) => line.startsWith('network: '));
  assert.equal(lines.length, 1, textOf(result));
  assert.match(lines[0], /^network: refused deb\.debian\.org:80 \(it is not in the allowlist\)\. Only the user can allow a host/);
  // The instructions say what is reachable.
  assert.match(client.getInstructions(), /The user allowed programs to reach these hosts, and no others: registry\.npmjs\.org\./);
  // node's fetch ignores the proxy variables: it cannot connect at all, and says so at once.
  const fetched = await run(client, {
    language: 'javascript',
    code: "fetch('https://deb.debian.org/debian/').then((r) => console.log(r.status), (e) => console.log('failed', e.cause && e.cause.code));",
  });
  assert.equal(fetched.structuredContent.stdout.trim(), 'failed EAI_AGAIN', describe(fetched));
  // The audit log has the destinations, allowed and refused, and nothing of the requests.
  const line = auditLines(audit).find((l) => l.tool === 'execute_code' && l.language === 'python');
  assert.deepEqual(line.network, {
    allowed: [{ host: 'registry.npmjs.org', port: 443 }],
    denied: [{ host: 'deb.debian.org', port: 80, reason: 'it is not in the allowlist' }],
  });
  assert.ok(!JSON.stringify(line).includes('left-pad'), JSON.stringify(line));
  await finishClient(conn);
});

test('no tool argument carries network settings: the model cannot widen the list', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk2(t, { args: ['--allow-host', 'registry.npmjs.org'] });
  const { tools } = await conn.client.listTools();
  for (const tool of tools) {
    const names = Object.keys(tool.inputSchema.properties || {});
    for (const name of names) assert.doesNotMatch(name, /network|allow|proxy|host$/i, `${tool.name}.${name}`);
  }
  // An unknown argument is refused, not quietly taken.
  const widened = await run(conn.client, { language: 'python', code: 'print(1)', allow_host: ['deb.debian.org'] });
  assert.equal(widened.isError, true, describe(widened));
  await finishClient(conn);
});

test('a session installs from its package index through the proxy, and its code reaches nothing else', { timeout: 180000 }, async (t) => {
  const audit = auditFile(t);
  const conn = await connectSdk1(t, { args: ['--audit-log', audit] });
  const { client } = conn;
  const created = await client.callTool({ name: 'create_session', arguments: { language: 'javascript' } });
  assert.equal(created.isError, false, describe(created));
  const session_id = created.structuredContent.session_id;
  const installed = await client.callTool({ name: 'install_libraries', arguments: { session_id, libraries: ['left-pad'] } });
  if (!NATIVE) {
    // An engine's session container has no network at all, and says so.
    assert.equal(installed.isError, true, describe(installed));
    assert.match(textOf(installed), /session has no network, so its installer cannot reach a package index/);
    await finishClient(conn);
    return;
  }
  assert.equal(installed.isError, false, describe(installed));
  const used = await run(client, {
    session_id,
    code: "console.log(require('left-pad')('x', 3, '-'));\n" +
      "const net = require('net');\n" +
      "const s = net.connect(3128, '127.0.0.1', () => s.write('CONNECT registry.npmjs.org:443 HTTP/1.1\\r\\n\\r\\n'));\n" +
      "s.on('data', (d) => { console.log(d.toString().split('\\r\\n')[0]); s.destroy(); });\n" +
      "s.on('error', (e) => console.log('error', e.code));\n",
  });
  assert.equal(used.structuredContent.stdout, '--x\nHTTP/1.1 403 Forbidden\n', describe(used));
  const lines = auditLines(audit);
  const install = lines.find((l) => l.tool === 'install_libraries');
  assert.deepEqual(install.network.allowed, [{ host: 'registry.npmjs.org', port: 443 }], JSON.stringify(install));
  assert.deepEqual(install.network.denied, []);
  await finishClient(conn);
});

test('without the registry on the list, an install fails with the 403 naming the host', { timeout: 120000 }, async (t) => {
  const dir = temporaryFolder(t, 'paddock-egress-policy-');
  fs.chmodSync(dir, 0o755);
  // Over the suite's own override (an engine's image), with the built-in allowlist installer.
  const suite = process.env.PADDOCK_POLICY_DIR && path.join(process.env.PADDOCK_POLICY_DIR, 'javascript.json');
  const base = suite && fs.existsSync(suite) ? JSON.parse(fs.readFileSync(suite, 'utf8')) : {};
  fs.writeFileSync(path.join(dir, 'javascript.json'), JSON.stringify({
    ...base, name: 'javascript', network: { install: 'allowlist', install_allow: ['deb.debian.org'] },
  }));
  fs.chmodSync(path.join(dir, 'javascript.json'), 0o644);
  const conn = await connectSdk2(t, { env: { PADDOCK_POLICY_DIR: dir } });
  const result = await run(conn.client, { language: 'javascript', code: '1', libraries: ['left-pad'] });
  assert.equal(result.isError, true, describe(result));
  if (!NATIVE) {
    // Never the engine's open network instead: a refusal that names what to do.
    assert.match(textOf(result), new RegExp(`the ${BACKEND} backend cannot limit a library installer to its package index`));
    await finishClient(conn);
    return;
  }
  assert.equal(result.structuredContent.phase, 'install');
  assert.match(textOf(result), /403 Forbidden - GET https:\/\/registry\.npmjs\.org\/left-pad/);
  assert.match(textOf(result), /^network: refused registry\.npmjs\.org:443 \(it is not in the allowlist\)/m);
  await finishClient(conn);
});

test('a bad pattern stops the server at start-up with one line', { timeout: 60000 }, async () => {
  for (const [args, env, pattern] of [
    [['--allow-host', '*.com'], {}, /^paddock mcp: error: --allow-host: allowed host '\*\.com' is a wildcard over a whole top-level domain; use example\.org/],
    [[], { PADDOCK_ALLOW_HOSTS: 'ok.org,bad host' }, /^paddock mcp: error: PADDOCK_ALLOW_HOSTS: allowed host 'bad host' is not a host name/],
    [['--allow-host', 'ok.org', '--network', 'user'], {}, /cannot be combined with --network user/],
  ]) {
    const ran = spawnSync(PADDOCK_BIN, ['mcp', ...args], { input: '', encoding: 'utf8', timeout: 20000, env: { ...process.env, ...env } });
    assert.equal(ran.status, 2, `${args.join(' ')}: ${ran.stderr}`);
    const lines = ran.stderr.trim().split('\n');
    assert.equal(lines.length, 1, ran.stderr);
    assert.match(lines[0], pattern);
  }
});
