// Shared host folders (paddock mcp --share): upload_file, download_file and create_session's
// mounts through the official clients, and every refusal the issue lists, each tried for real.
// On docker, podman and kubernetes, files go through the backend's own file copy, and mounts are
// refused with a message saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { PADDOCK_BIN } from './support/config.mjs';
import { describe, textOf } from './support/server.mjs';
import { cleanup, temporaryFolder } from './support/cleanup.mjs';

const BACKEND = process.env.PADDOCK_BACKEND || 'native';
const NATIVE = BACKEND === 'native';
const ROOT = process.getuid() === 0;

function sha256(data) {
  return 'sha256:' + crypto.createHash('sha256').update(data).digest('hex');
}

// A folder the sandbox user (another id than ours) can read: mkdtemp makes them 0700.
function folder(t, name) {
  const dir = temporaryFolder(t, `paddock-share-${name}-`);
  fs.chmodSync(dir, 0o755);
  return dir;
}

// data (read-only): a 20 MB CSV, a folder with a symlink and a FIFO in it, and symlinks that
// lead out of the share. results (read-write). project (read-only): a module and its tests.
function shares(t) {
  const data = folder(t, 'data');
  const rows = ['id,amount'];
  let sum = 0;
  for (let i = 0, length = 0; length < 20e6; i++) {
    const amount = (i * 7919) % 10007;
    sum += amount;
    rows.push(`${i},${amount}`);
    length += rows[rows.length - 1].length + 1;
  }
  fs.writeFileSync(path.join(data, 'sales.csv'), rows.join('\n') + '\n');
  fs.mkdirSync(path.join(data, 'bundle/inner'), { recursive: true });
  fs.writeFileSync(path.join(data, 'bundle/a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(data, 'bundle/inner/b.sh'), '#!/bin/sh\necho beta\n', { mode: 0o755 });
  fs.mkdirSync(path.join(data, 'bundle/empty'));
  fs.symlinkSync('/etc/passwd', path.join(data, 'bundle/passwd-link'));
  spawnSync('mkfifo', [path.join(data, 'bundle/fifo')]);
  fs.symlinkSync('/etc', path.join(data, 'etc-link'));
  fs.symlinkSync('/etc/passwd', path.join(data, 'passwd-link'));
  fs.symlinkSync('bundle/a.txt', path.join(data, 'inside-link.txt'));  // stays inside: allowed
  const results = folder(t, 'results');
  const project = folder(t, 'project');
  fs.writeFileSync(path.join(project, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  fs.writeFileSync(path.join(project, 'test_calc.py'),
    'import unittest\nimport calc\n\nclass T(unittest.TestCase):\n' +
    '    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n\n' +
    '    def test_more(self):\n        self.assertEqual(calc.add(-1, 1), 0)\n');
  for (const f of ['calc.py', 'test_calc.py']) fs.chmodSync(path.join(project, f), 0o644);
  const audit = path.join(results, '..', path.basename(results) + '.audit.jsonl');
  cleanup(t, () => fs.rmSync(audit, { force: true }));
  return {
    data, results, project, audit, sum, csv: fs.readFileSync(path.join(data, 'sales.csv')),
    args: ['--share', `${data}=data`, '--share', `${results}=results:rw`, '--share', `${project}=project`,
      '--audit-log', audit],
  };
}

async function call(client, name, args) {
  return client.callTool({ name, arguments: args });
}

async function ok(client, name, args) {
  const result = await call(client, name, args);
  assert.equal(result.isError, false, `${name} ${JSON.stringify(args)}: ${describe(result)}`);
  return result;
}

async function refused(client, name, args, pattern) {
  const result = await call(client, name, args);
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} must be refused: ${describe(result)}`);
  assert.match(textOf(result), pattern, describe(result));
  return result;
}

async function session(client, args = {}) {
  const created = await ok(client, 'create_session', args);
  return created.structuredContent.session_id;
}

function auditLines(file) {
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
}

test('a 20 MB CSV from a share is summed by pandas, and the result stays under 1 KiB', { timeout: 180000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk1(t, { args: s.args });
  const { client } = conn;
  const session_id = await session(client);
  const up = await ok(client, 'upload_file', { session_id, host_path: 'data/sales.csv' });
  assert.ok(JSON.stringify(up).length < 1024, `the tool result is ${JSON.stringify(up).length} bytes: ${describe(up)}`);
  assert.equal(up.structuredContent.size, s.csv.length);
  assert.equal(up.structuredContent.sha256, sha256(s.csv));
  assert.equal(up.structuredContent.path, 'sales.csv');
  const run = await ok(client, 'execute_code', {
    session_id, code: 'import pandas as pd\nprint(int(pd.read_csv("sales.csv")["amount"].sum()))',
  });
  assert.equal(run.structuredContent.stdout.trim(), String(s.sum), describe(run));
  // By an absolute host path inside the share, to another name.
  const again = await ok(client, 'upload_file', { session_id, host_path: path.join(s.data, 'bundle/a.txt'), path: 'in/copy.txt' });
  assert.equal(again.structuredContent.sha256, sha256('alpha\n'));
  // A symlink that stays inside its share is followed.
  const inside = await ok(client, 'upload_file', { session_id, host_path: 'data/inside-link.txt', path: 'linked.txt' });
  assert.equal(inside.structuredContent.sha256, sha256('alpha\n'));
  const both = await ok(client, 'execute_code', { session_id, code: 'print(open("in/copy.txt").read() + open("linked.txt").read(), end="")' });
  assert.equal(both.structuredContent.stdout, 'alpha\nalpha\n');
  const lines = auditLines(s.audit).filter((l) => l.tool === 'upload_file' && l.outcome === 'done');
  assert.equal(lines.length, 3, JSON.stringify(lines));
  assert.equal(lines[0].host_files[0].host_path, path.join(fs.realpathSync(s.data), 'sales.csv'));
  assert.equal(lines[0].host_files[0].bytes, s.csv.length);
  assert.equal(lines[0].host_files[0].action, 'upload');
  await finishClient(conn);
});

test('a folder uploads whole, its symlinks and FIFO skipped and never followed', { timeout: 120000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk2(t, { args: s.args });
  const { client } = conn;
  const session_id = await session(client, { language: 'bash' });
  await refused(client, 'upload_file', { session_id, host_path: 'data/bundle' }, /is a folder; pass recursive: true/);
  const up = await ok(client, 'upload_file', { session_id, host_path: 'data/bundle', recursive: true });
  // passwd-link and fifo always; the empty folder too where the backend makes none.
  assert.equal(up.structuredContent.skipped, NATIVE ? 2 : 3, describe(up));
  assert.equal(up.structuredContent.size, 'alpha\n'.length + '#!/bin/sh\necho beta\n'.length);
  const manifest = `${sha256('alpha\n').slice(7)}  a.txt\n${sha256('#!/bin/sh\necho beta\n').slice(7)}  inner/b.sh\n`;
  assert.equal(up.structuredContent.sha256, sha256(manifest));
  const run = await ok(client, 'execute_code', {
    session_id, code: 'cd bundle && find . | sort && cat a.txt && ' + (NATIVE ? './inner/b.sh' : 'sh inner/b.sh'),
  });
  const listed = run.structuredContent.stdout;
  assert.match(listed, /\.\/inner\/b\.sh/);
  assert.doesNotMatch(listed, /passwd-link|fifo/, listed);
  if (NATIVE) assert.match(listed, /\.\/empty\n/);
  assert.match(listed, /alpha\nbeta\n$/);
  await finishClient(conn);
});

test('a result file is downloaded into a read-write share, and never over a file unless asked', { timeout: 120000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk2(t, { args: s.args });
  const { client } = conn;
  const session_id = await session(client);
  await ok(client, 'execute_code', { session_id, code: 'import os\nos.makedirs("out", exist_ok=True)\nopen("out/report.csv", "w").write("name,total\\nx,42\\n" * 1000)' });
  const expected = 'name,total\nx,42\n'.repeat(1000);
  const down = await ok(client, 'download_file', { session_id, path: 'out/report.csv', host_path: 'results/deep/report.csv' });
  assert.ok(JSON.stringify(down).length < 1024, describe(down));
  assert.equal(fs.readFileSync(path.join(s.results, 'deep/report.csv'), 'utf8'), expected);
  assert.equal(down.structuredContent.sha256, sha256(expected));
  assert.equal(down.structuredContent.size, expected.length);
  await refused(client, 'download_file', { session_id, path: 'out/report.csv', host_path: 'results/deep/report.csv' },
    /exists; pass overwrite: true/);
  await ok(client, 'execute_code', { session_id, code: 'open("out/report.csv", "w").write("new\\n")' });
  await ok(client, 'download_file', { session_id, path: 'out/report.csv', host_path: 'results/deep/report.csv', overwrite: true });
  assert.equal(fs.readFileSync(path.join(s.results, 'deep/report.csv'), 'utf8'), 'new\n');
  // A symlink planted in the share is neither followed nor replaced, even with overwrite.
  const victim = path.join(s.data, 'victim.txt');
  fs.writeFileSync(victim, 'untouched\n');
  fs.symlinkSync(victim, path.join(s.results, 'planted'));
  for (const overwrite of [false, true]) {
    await refused(client, 'download_file', { session_id, path: 'out/report.csv', host_path: 'results/planted', overwrite },
      /symlink on the host; downloads never follow or replace one/);
  }
  assert.equal(fs.readFileSync(victim, 'utf8'), 'untouched\n');
  assert.ok(fs.lstatSync(path.join(s.results, 'planted')).isSymbolicLink());
  // A symlinked folder on the way out of the share is refused too.
  fs.symlinkSync(s.data, path.join(s.results, 'to-data'));
  await refused(client, 'download_file', { session_id, path: 'out/report.csv', host_path: 'results/to-data/x.csv' }, /leads outside the share 'results'/);
  assert.ok(!fs.existsSync(path.join(s.data, 'x.csv')));
  // A download that fails leaves no folder it made behind.
  await refused(client, 'download_file', { session_id, path: 'no-such-file', host_path: 'results/made/for/nothing.txt' }, /no such file/);
  assert.ok(!fs.existsSync(path.join(s.results, 'made')));
  // No temporary file is left beside the targets.
  const leftovers = fs.readdirSync(path.join(s.results, 'deep')).filter((f) => f.includes('.paddock-'));
  assert.deepEqual(leftovers, []);
  const audited = auditLines(s.audit).filter((l) => l.tool === 'download_file');
  assert.ok(audited.some((l) => l.outcome === 'done' && l.host_files[0].host_path === path.join(fs.realpathSync(s.results), 'deep/report.csv') && l.host_files[0].bytes === expected.length), JSON.stringify(audited));
  assert.ok(audited.some((l) => l.outcome === 'refused' && l.host_files[0].host_path === 'results/planted'), JSON.stringify(audited));
  await finishClient(conn);
});

test('uploads over the size and file caps are refused before anything is copied', { timeout: 60000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk2(t, { args: [...s.args, '--share-max-bytes', '1m', '--share-max-files', '3'] });
  const { client } = conn;
  const session_id = await session(client);
  await refused(client, 'upload_file', { session_id, host_path: 'data/sales.csv' }, /is 19\.\d MiB, over 1\.0 MiB \(the server's --share-max-bytes\)/);
  const many = path.join(s.data, 'many');
  fs.mkdirSync(many);
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(many, `f${i}`), 'x');
  await refused(client, 'upload_file', { session_id, host_path: 'data/many', recursive: true }, /holds more than 3 files and folders \(the server's --share-max-files\)/);
  // Symlinks are never copied, but they count: a folder of them is no way around the cap.
  const links = path.join(s.data, 'links');
  fs.mkdirSync(links);
  for (let i = 0; i < 5; i++) fs.symlinkSync('/etc/passwd', path.join(links, `l${i}`));
  await refused(client, 'upload_file', { session_id, host_path: 'data/links', recursive: true }, /holds more than 3 files and folders/);
  const listed = await ok(client, 'list_files', { session_id });
  assert.ok(!listed.structuredContent.entries.some((e) => ['sales.csv', 'many'].includes(e.name)), describe(listed));
  await ok(client, 'execute_code', { session_id, code: 'open("big.bin", "wb").write(b"y" * (2 << 20))' });
  await refused(client, 'download_file', { session_id, path: 'big.bin', host_path: 'results/big.bin' }, /is larger than 1\.0 MiB/);
  assert.ok(!fs.existsSync(path.join(s.results, 'big.bin')));
  assert.deepEqual(fs.readdirSync(s.results), []);
  await finishClient(conn);
});

test('every way out of a share is refused', { timeout: 120000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk1(t, { args: s.args });
  const { client } = conn;
  const session_id = await session(client);
  const up = (host_path) => ({ session_id, host_path, path: 'stolen' });
  await refused(client, 'upload_file', up('/etc/passwd'), /is not inside a shared folder/);
  await refused(client, 'upload_file', up('data/../x'), /leads outside the share 'data'/);
  await refused(client, 'upload_file', up(`data/../${path.basename(s.results)}/x`), /leads outside the share 'data'/);
  await refused(client, 'upload_file', up('data/etc-link/passwd'), /leads outside the share 'data'/);
  await refused(client, 'upload_file', up('data/passwd-link'), /leads outside the share 'data'/);
  await refused(client, 'upload_file', up(path.join(s.data, '..', 'etc')), /not inside a shared folder|leads outside/);
  await refused(client, 'upload_file', up('nosuch/file'), /'nosuch' is not a share; host_path starts with one of: data, results, project/);
  await refused(client, 'upload_file', up('data/bundle/fifo'), /neither a regular file nor a folder/);
  await refused(client, 'upload_file', { session_id, host_path: 'data/sales.csv', path: '../escape' }, /leads out of the work directory/);
  await refused(client, 'download_file', { session_id, path: 'stolen', host_path: 'data/out.txt' }, /the share 'data' is read-only/);
  await refused(client, 'download_file', { session_id, path: 'x', host_path: '/tmp/out.txt' }, /not inside a shared folder/);
  const listed = await ok(client, 'list_files', { session_id });
  assert.ok(!listed.structuredContent.entries.some((e) => e.name === 'stolen'), describe(listed));
  // Tool arguments cannot add a share: there is no such argument.
  await refused(client, 'create_session', { mounts: [{ share: '/etc' }] }, /'\/etc' is not a share/);
  const refusals = auditLines(s.audit).filter((l) => l.outcome === 'refused');
  assert.ok(refusals.some((l) => l.host_files[0].host_path === '/etc/passwd'), JSON.stringify(refusals));
  await finishClient(conn);
});

test('a project folder mounted read-only: its tests run, and writes fail', { timeout: 120000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk1(t, { args: s.args });
  const { client } = conn;
  if (!NATIVE) {
    await refused(client, 'create_session', { language: 'bash', mounts: [{ share: 'project' }] },
      new RegExp(`mounts work on the native backend only; on ${BACKEND} copy files in and out with upload_file`));
    await finishClient(conn);
    return;
  }
  await refused(client, 'create_session', { mounts: [{ share: 'project', rw: true }] }, /read-only, so it cannot be mounted rw/);
  await refused(client, 'create_session', { mounts: [{ share: 'project', path: '/etc/x' }] }, /must be a folder inside \/work or \/mnt/);
  await refused(client, 'create_session', { mounts: [{ share: 'project', path: '/work/' }] }, /must be a folder inside \/work or \/mnt/);
  const session_id = await session(client, { language: 'bash', mounts: [{ share: 'project' }] });
  const state = await ok(client, 'get_session', { session_id });
  assert.deepEqual(state.structuredContent.mounts, [{ share: 'project', path: '/work/project', writable: false }]);
  assert.deepEqual(state.structuredContent.shares.map((x) => [x.name, x.writable]), [['data', false], ['results', true], ['project', false]]);
  const run = await ok(client, 'execute_code', {
    session_id,
    code: 'cd project && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -v 2>&1 | tail -3\n' +
      'touch new-file 2>&1 || echo WRITE-REFUSED\n' +
      'echo x >> calc.py 2>&1 || echo APPEND-REFUSED\n' +
      'grep " /work/project " /proc/self/mountinfo',
  });
  const out = run.structuredContent.stdout;
  assert.match(out, /Ran 2 tests/);
  assert.match(out, /\nOK\n/);
  assert.match(out, /Read-only file system/);
  assert.match(out, /WRITE-REFUSED/);
  assert.match(out, /APPEND-REFUSED/);
  assert.match(out, / \/work\/project ro,nosuid,nodev/, out);
  assert.ok(!fs.existsSync(path.join(s.project, 'new-file')));
  assert.equal(fs.readFileSync(path.join(s.project, 'calc.py'), 'utf8'), 'def add(a, b):\n    return a + b\n');
  const mounts = auditLines(s.audit).filter((l) => l.tool === 'create_session' && l.outcome === 'done');
  assert.equal(mounts[0].host_files[0].action, 'mount');
  assert.equal(mounts[0].host_files[0].host_path, fs.realpathSync(s.project));
  await finishClient(conn);
});

test('a read-write mount writes as the share owner on the host', { timeout: 120000 }, async (t) => {
  const s = shares(t);
  if (!NATIVE) {
    // No skip on the container backends: the read-write mount is refused there, by name.
    const conn = await connectSdk2(t, { args: s.args });
    await refused(conn.client, 'create_session', { language: 'bash', mounts: [{ share: 'results', rw: true }] },
      new RegExp(`mounts work on the native backend only; on ${BACKEND}`));
    await finishClient(conn);
    return;
  }
  // As root, the share goes to an unprivileged owner: sandboxes never write as host root.
  const owner = ROOT ? 65534 : process.getuid();
  const conn = await connectSdk2(t, { args: s.args });
  const { client } = conn;
  if (ROOT) {
    // Still root's: refused, naming the share and not its host path.
    const refusal = await refused(client, 'create_session', { language: 'bash', mounts: [{ share: 'results', rw: true }] },
      /share 'results' is owned by root, and sandboxes never run as host root/);
    assert.ok(!textOf(refusal).includes(s.results), textOf(refusal));
    fs.chownSync(s.results, owner, owner);
  }
  const session_id = await session(client, { language: 'bash', mounts: [{ share: 'results', path: '/mnt/results', rw: true }] });
  await ok(client, 'execute_code', { session_id, code: 'echo written > /mnt/results/made.txt && grep " /mnt/results " /proc/self/mountinfo' });
  const made = path.join(s.results, 'made.txt');
  assert.equal(fs.readFileSync(made, 'utf8'), 'written\n');
  assert.equal(fs.statSync(made).uid, owner);
  // What download_file makes in the share is the owner's too, folders and file, even from root.
  await ok(client, 'execute_code', { session_id, code: 'echo result > out.txt' });
  await ok(client, 'download_file', { session_id, path: 'out.txt', host_path: 'results/new/out.txt' });
  assert.equal(fs.statSync(path.join(s.results, 'new')).uid, owner);
  assert.equal(fs.statSync(path.join(s.results, 'new/out.txt')).uid, owner);
  assert.equal(fs.readFileSync(path.join(s.results, 'new/out.txt'), 'utf8'), 'result\n');
  await finishClient(conn);
});

test('bad shares stop the server at start-up with one line', { timeout: 60000 }, async (t) => {
  const s = shares(t);
  const file = path.join(s.data, 'sales.csv');
  for (const [args, pattern] of [
    [['--share', '/no/such/folder'], /^paddock mcp: error: share \/no\/such\/folder: No such file or directory \(give an existing folder/],
    [['--share', file], /is not a folder/],
    [['--share', `${s.data}=bad name`], /is not a share name/],
    [['--share', `${s.data}=same`, '--share', `${s.results}=same`], /two shares are named 'same'/],
  ]) {
    const run = spawnSync(PADDOCK_BIN, ['mcp', ...args], { input: '', encoding: 'utf8', timeout: 20000 });
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0], pattern);
  }
  const env = spawnSync(PADDOCK_BIN, ['mcp'], { input: '', encoding: 'utf8', timeout: 20000, env: { ...process.env, PADDOCK_SHARE: '/no/such' } });
  assert.equal(env.status, 2, env.stderr);
});

test('the instructions and get_session name the shares', { timeout: 60000 }, async (t) => {
  const s = shares(t);
  const conn = await connectSdk1(t, { args: s.args });
  const instructions = conn.client.getInstructions();
  assert.match(instructions, /Host folders the user shared: data \(read-only\), results \(read-write\), project \(read-only\)/);
  assert.ok(!instructions.includes(s.data), 'the host paths stay out of the instructions');
  const session_id = await session(conn.client);
  const state = await ok(conn.client, 'get_session', { session_id });
  assert.match(textOf(state), /shares: data \(read-only\), results \(read-write\), project \(read-only\)/);
  assert.deepEqual(state.structuredContent.transfer_limits, { max_bytes: 2 ** 30, max_files: 10000 });
  await finishClient(conn);
});
