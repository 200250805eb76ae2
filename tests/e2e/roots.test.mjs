// `paddock mcp --share-roots ro|rw` (issue 53, item 4) through the official clients' roots
// handlers: the folders a client lists as its roots become shares named after their folders,
// and follow the client's notifications/roots/list_changed; a root that is not a local folder,
// the whole filesystem, one that overlaps another share, or one whose name is taken is skipped
// with a line on stderr that says why. Without the flag, the server never asks for roots. Every
// line the server writes (its roots/list requests too) is checked against the era's schema.
// upload_file and download_file go through each backend's own file copy, so this runs on every
// backend.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { callTool, connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { MODERN } from './support/config.mjs';
import { describe, sleep, textOf } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

const ERAS = [
  { name: '1.x client, 2025-06-18', connect: (t, options) => connectSdk1(t, { ...options, initializeVersion: '2025-06-18' }) },
  { name: '1.x client, 2025-11-25', connect: (t, options) => connectSdk1(t, options) },
  { name: '2.x client, legacy', connect: (t, options) => connectSdk2(t, { ...options, mode: 'legacy' }) },
];
const ROOTS = { roots: { listChanged: true } };

// Folders named alpha, beta and gamma (each with a file saying its name) in a fresh folder the
// sandbox user (another id than ours) can read.
function folders(t) {
  const parent = temporaryFolder(t, 'paddock-roots-');
  fs.chmodSync(parent, 0o755);
  const made = { parent };
  for (const name of ['alpha', 'beta', 'gamma']) {
    made[name] = path.join(parent, name);
    fs.mkdirSync(made[name], { mode: 0o777 });
    fs.chmodSync(made[name], 0o777);
    fs.writeFileSync(path.join(made[name], 'name.txt'), `${name}\n`, { mode: 0o644 });
  }
  return made;
}

const uri = (folder) => `file://${folder.split('/').map(encodeURIComponent).join('/')}`;

// The stderr lines that say which roots are shared, once there are `count` of them.
async function sharedLines(server, count) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const lines = server.stderrText().split('\n').filter((line) => /--share-roots: \d+ roots? shared/.test(line));
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) assert.fail(`waited in vain for ${count} "roots shared" lines; stderr ends with:\n${server.stderrTail()}`);
    await sleep(50);
  }
}

async function ok(conn, name, args) {
  const result = await callTool(conn, name, args);
  assert.equal(result.isError, false, `${name} ${JSON.stringify(args)}: ${describe(result)}`);
  return result;
}

async function shareNames(conn, session_id) {
  const state = await ok(conn, 'get_session', { session_id });
  return state.structuredContent.shares.map(({ name, writable }) => `${name}:${writable ? 'rw' : 'ro'}`);
}

for (const era of ERAS) {
  test(`${era.name}: two roots are shared read-only, and a change replaces them between calls`, { timeout: 120000 }, async (t) => {
    const f = folders(t);
    let listed = [{ uri: uri(f.alpha), name: 'Alpha project' }, { uri: uri(f.beta) }];
    let asked = 0;
    const conn = await era.connect(t, {
      capabilities: ROOTS, roots: () => { asked += 1; return listed; }, args: ['--share-roots', 'ro'],
    });
    assert.match(conn.client.getInstructions(), /The folders the client lists as its roots are shared too \(read-only\)/);
    await sharedLines(conn.server, 1);
    assert.equal(asked, 1, 'the roots are asked for once after the handshake');
    const session_id = (await ok(conn, 'create_session', { language: 'bash' })).structuredContent.session_id;
    assert.deepEqual(await shareNames(conn, session_id), ['alpha:ro', 'beta:ro']);
    await ok(conn, 'upload_file', { session_id, host_path: 'alpha/name.txt', path: 'a.txt' });
    const read = await ok(conn, 'execute_code', { session_id, code: 'cat a.txt', language: 'bash' });
    assert.match(textOf(read), /alpha/);

    // Read-only roots: nothing writes into them (download_file is not even listed).
    const { tools } = await conn.client.listTools();
    assert.ok(!tools.some((tool) => tool.name === 'download_file'), 'download_file is listed with read-only roots');

    listed = [{ uri: uri(f.beta) }, { uri: uri(f.gamma) }];
    await conn.client.sendRootsListChanged();
    const lines = await sharedLines(conn.server, 2);
    assert.match(lines[1], /2 roots shared: beta \(.*\), gamma \(/);
    assert.deepEqual(await shareNames(conn, session_id), ['beta:ro', 'gamma:ro']);
    const gone = await callTool(conn, 'upload_file', { session_id, host_path: 'alpha/name.txt', path: 'b.txt' });
    assert.equal(gone.isError, true, describe(gone));
    assert.match(textOf(gone), /'alpha' is not a share; host_path starts with one of: beta, gamma/);
    await ok(conn, 'upload_file', { session_id, host_path: 'gamma/name.txt', path: 'g.txt' });

    // An empty list withdraws every root share.
    listed = [];
    await conn.client.sendRootsListChanged();
    await sharedLines(conn.server, 3);
    assert.deepEqual(await shareNames(conn, session_id), []);
    await finishClient(conn);
  });
}

test('read-write roots: download_file writes into one, as its folder\'s owner', { timeout: 120000 }, async (t) => {
  const f = folders(t);
  const conn = await connectSdk1(t, { capabilities: ROOTS, roots: () => [{ uri: uri(f.alpha) }], args: ['--share-roots', 'rw'] });
  assert.match(conn.client.getInstructions(), /shared too \(read-write\)/);
  await sharedLines(conn.server, 1);
  const session_id = (await ok(conn, 'create_session', { language: 'bash' })).structuredContent.session_id;
  assert.deepEqual(await shareNames(conn, session_id), ['alpha:rw']);
  await ok(conn, 'execute_code', { session_id, code: 'echo made > out.txt', language: 'bash' });
  await ok(conn, 'download_file', { session_id, path: 'out.txt', host_path: 'alpha/out.txt' });
  assert.equal(fs.readFileSync(path.join(f.alpha, 'out.txt'), 'utf8'), 'made\n');
  assert.equal(fs.statSync(path.join(f.alpha, 'out.txt')).uid, fs.statSync(f.alpha).uid);
  await finishClient(conn);
});

test('roots that are no local folder, the whole filesystem, in another share or named alike are skipped, each with a line', { timeout: 60000 }, async (t) => {
  const f = folders(t);
  const twin = path.join(f.gamma, 'beta');  // named beta too, and inside the --share gamma
  fs.mkdirSync(twin);
  const elsewhere = path.join(f.parent, 'other');
  fs.mkdirSync(path.join(elsewhere, 'alpha'), { recursive: true });
  const listed = [
    { uri: uri(f.alpha) },
    { uri: uri(path.join(f.alpha, 'name.txt')), name: 'a file' },
    { uri: 'https://example.com/repo' },
    { uri: 'file://build-host/srv/repo' },
    { uri: 'file:///' },
    { uri: uri(path.join(f.parent, 'missing')) },
    { uri: uri(twin) },
    { uri: uri(path.join(elsewhere, 'alpha')) },
    { uri: uri(f.parent) },
    { uri: 'file:///tmp/%zz' },
  ];
  const conn = await connectSdk1(t, {
    capabilities: ROOTS, roots: () => listed, args: ['--share-roots', 'ro', '--share', `${f.gamma}=gamma`],
  });
  const [line] = await sharedLines(conn.server, 1);
  assert.match(line, /1 root shared: alpha \(/);
  const log = conn.server.stderrText();
  for (const reason of [
    /root file:\/\/\S+\/alpha\/name\.txt \(a file\) is not shared: it is not a folder/,
    /root https:\/\/example\.com\/repo is not shared: it is not a file:\/\/ URI/,
    /root file:\/\/build-host\/srv\/repo is not shared: it is on another host/,
    /root file:\/\/\/ is not shared: it is the whole filesystem/,
    /root file:\/\/\S+\/missing is not shared: it cannot be opened: No such file or directory/,
    /root file:\/\/\S+\/gamma\/beta is not shared: it lies in the share 'gamma'/,
    /root file:\/\/\S+\/other\/alpha is not shared: it would be named 'alpha', which another share is/,
    /root file:\/\/\S+\/paddock-roots-\w+ is not shared: it holds the share 'gamma'/,
    /root file:\/\/\/tmp\/%zz is not shared: it has a broken %-escape/,
  ]) assert.match(log, reason);
  const session_id = (await ok(conn, 'create_session', { language: 'bash' })).structuredContent.session_id;
  assert.deepEqual(await shareNames(conn, session_id), ['gamma:ro', 'alpha:ro']);
  await finishClient(conn);
});

test('without --share-roots the roots are never asked for, and a client without roots is told in the log', { timeout: 60000 }, async (t) => {
  const f = folders(t);
  let asked = 0;
  const plain = await connectSdk1(t, { capabilities: ROOTS, roots: () => { asked += 1; return [{ uri: uri(f.alpha) }]; } });
  assert.ok(!/roots/.test(plain.client.getInstructions()), 'the instructions speak of roots without --share-roots');
  await ok(plain, 'get_supported_languages', {});
  assert.equal(asked, 0);
  assert.ok(!plain.server.messages.some((message) => message.method === 'roots/list'));
  const { tools } = await plain.client.listTools();
  assert.ok(!tools.some((tool) => tool.name === 'upload_file'), 'upload_file is listed with no share and no roots');
  await finishClient(plain);

  const rootless = await connectSdk1(t, { args: ['--share-roots', 'ro'] });
  await ok(rootless, 'get_supported_languages', {});
  const told = /--share-roots: the client did not declare the roots capability, so no root is shared/;
  assert.match(await rootless.server.stderrMatching(told), told);
  assert.ok(!rootless.server.messages.some((message) => message.method === 'roots/list'));
  await finishClient(rootless);
});

test(`a ${MODERN} client is not asked for roots, and its instructions do not promise them`, { timeout: 60000 }, async (t) => {
  const f = folders(t);
  let asked = 0;
  const conn = await connectSdk2(t, {
    mode: MODERN, capabilities: ROOTS, roots: () => { asked += 1; return [{ uri: uri(f.alpha) }]; }, args: ['--share-roots', 'ro'],
  });
  assert.ok(!/roots/.test(conn.client.getInstructions() || ''), 'the instructions promise roots in an era without roots/list_changed');
  await ok(conn, 'get_supported_languages', {});
  assert.equal(asked, 0);
  await finishClient(conn);
});

test('a late answer to roots/list, for a list since changed, is dropped', { timeout: 60000 }, async (t) => {
  const f = folders(t);
  let calls = 0;
  const conn = await connectSdk1(t, {
    capabilities: ROOTS,
    // The first answer comes after the second: it lists what the client no longer has.
    roots: async () => {
      calls += 1;
      if (calls === 1) { await sleep(1500); return [{ uri: uri(f.alpha) }]; }
      return [{ uri: uri(f.beta) }];
    },
    args: ['--share-roots', 'ro'],
  });
  while (calls < 1) await sleep(20);
  await conn.client.sendRootsListChanged();
  await sharedLines(conn.server, 1);
  await sleep(2000);
  const lines = await sharedLines(conn.server, 1);
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /1 root shared: beta/);
  await finishClient(conn);
});
