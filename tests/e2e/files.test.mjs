// write_file, read_file, list_files in a session, and their confinement to the session's work dir.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { describe, textOf, withServer } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

async function session(server) {
  const result = await server.callTool('create_session', {});
  assert.equal(result.isError, false, describe(result));
  return result.structuredContent.session_id;
}

async function ok(server, tool, args) {
  const result = await server.callTool(tool, args);
  await server.checkOutputSchema(tool, result);
  assert.equal(result.isError, false, `${tool} ${JSON.stringify(args).slice(0, 200)}: ${describe(result)}`);
  return result;
}

async function refused(server, tool, args) {
  const result = await server.callTool(tool, args);
  assert.equal(result.isError, true, `${tool} ${JSON.stringify(args)} must be refused: ${describe(result)}`);
  return result;
}

test('write_file then read_file and execute_code see the same text', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    const text = 'line one\nh\u00e9llo \u2603\n';
    await ok(server, 'write_file', { session_id, path: 'notes.txt', content: text });
    const read = await ok(server, 'read_file', { session_id, path: 'notes.txt' });
    assert.equal(read.content.length, 1, describe(read));
    assert.deepEqual(read.content[0], { type: 'text', text }, describe(read));
    const run = await ok(server, 'execute_code', { session_id, code: 'print(open("notes.txt", encoding="utf-8").read(), end="")' });
    assert.equal(run.structuredContent.stdout, text);
    await ok(server, 'write_file', { session_id, path: 'explicit.txt', content: 'utf8 text', encoding: 'utf-8' });
    const back = await ok(server, 'read_file', { session_id, path: 'explicit.txt' });
    assert.equal(back.content[0].text, 'utf8 text');
    // And a file the code wrote.
    await ok(server, 'execute_code', { session_id, code: 'open("from_code.txt", "w").write("made by code")' });
    const made = await ok(server, 'read_file', { session_id, path: 'from_code.txt' });
    assert.equal(made.content[0].text, 'made by code');
  });
});

test('list_files lists names, types and sizes', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    await ok(server, 'write_file', { session_id, path: 'top.txt', content: '12345' });
    await ok(server, 'write_file', { session_id, path: 'dir/sub/deep.txt', content: 'abc' });
    await ok(server, 'execute_code', { session_id, code: 'import os\nos.symlink("top.txt", "ln")' });
    const root = await ok(server, 'list_files', { session_id });
    const entries = root.structuredContent?.entries;
    assert.ok(Array.isArray(entries), describe(root));
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    assert.equal(byName['top.txt']?.type, 'file', describe(root));
    assert.equal(byName['top.txt'].size, 5);
    assert.equal(byName.dir?.type, 'directory', describe(root));
    assert.equal(byName.ln?.type, 'symlink', describe(root));
    for (const e of entries) assert.ok(['file', 'directory', 'symlink', 'other'].includes(e.type), JSON.stringify(e));
    const sub = await ok(server, 'list_files', { session_id, path: 'dir/sub' });
    assert.deepEqual(sub.structuredContent.entries.map((e) => [e.name, e.type, e.size]), [['deep.txt', 'file', 3]]);
    await refused(server, 'list_files', { session_id, path: 'no/such/dir' });
  });
});

test('read_file returns a PNG as an image', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    await ok(server, 'write_file', { session_id, path: 'dot.png', content: PNG_1x1, encoding: 'base64' });
    const read = await ok(server, 'read_file', { session_id, path: 'dot.png' });
    const image = read.content.find((c) => c.type === 'image');
    assert.ok(image, describe(read));
    assert.equal(image.mimeType, 'image/png');
    assert.equal(image.data, PNG_1x1);
  });
});

test('read_file returns other binary data as an embedded resource blob', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await ok(server, 'write_file', { session_id, path: 'all.bin', content: bytes.toString('base64'), encoding: 'base64' });
    const check = await ok(server, 'execute_code', { session_id, code: 'print(open("all.bin", "rb").read() == bytes(range(256)))' });
    assert.equal(check.structuredContent.stdout, 'True\n', 'write_file decoded base64');
    const read = await ok(server, 'read_file', { session_id, path: 'all.bin' });
    const block = read.content.find((c) => c.type === 'resource');
    assert.ok(block, describe(read));
    assert.equal(typeof block.resource.uri, 'string');
    assert.ok(Buffer.from(block.resource.blob, 'base64').equals(bytes), 'the blob is the file');
  });
});

test('read_file of a file over 1 MiB returns a resource_link that resources/read serves', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    const made = await ok(server, 'execute_code', {
      session_id,
      code: 'import hashlib\ndata = bytes(i * 7 % 251 for i in range(1536 * 1024))\nopen("big.bin", "wb").write(data)\nprint(hashlib.sha256(data).hexdigest())',
    });
    const digest = made.structuredContent.stdout.trim();
    const read = await ok(server, 'read_file', { session_id, path: 'big.bin' });
    const link = read.content.find((c) => c.type === 'resource_link');
    assert.ok(link, `a resource_link: ${describe(read)}`);
    assert.equal(typeof link.uri, 'string');
    assert.equal(typeof link.name, 'string');
    const contents = await server.call('resources/read', { uri: link.uri });
    assert.equal(contents.contents.length, 1, describe(contents));
    const c = contents.contents[0];
    const data = c.blob !== undefined ? Buffer.from(c.blob, 'base64') : Buffer.from(c.text, 'utf8');
    assert.equal(data.length, 1536 * 1024);
    assert.equal(crypto.createHash('sha256').update(data).digest('hex'), digest);
  });
});

test('paths outside the work dir are refused', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    for (const p of ['../x', '../../etc/passwd', '/etc/passwd', 'a/../../x']) {
      const r = await refused(server, 'read_file', { session_id, path: p });
      assert.doesNotMatch(textOf(r), /root:x:0:0/);
      await refused(server, 'write_file', { session_id, path: p === '/etc/passwd' ? '/tmp/paddock-e2e-abs' : p, content: 'x' });
    }
    await refused(server, 'list_files', { session_id, path: '..' });
    await refused(server, 'list_files', { session_id, path: '/' });
    assert.ok(!fs.existsSync('/tmp/paddock-e2e-abs'));
  });
});

test('symlinks made by code do not lead read_file, write_file or list_files out', { timeout: 60000 }, async (t) => {
  // A host directory the symlinks point at, with a secret in it.
  const outside = temporaryFolder(t, 'paddock-e2e-outside-');
  fs.chmodSync(outside, 0o777);
  const secret = `secret-${crypto.randomUUID()}`;
  fs.writeFileSync(path.join(outside, 'secret.txt'), secret);
  fs.chmodSync(path.join(outside, 'secret.txt'), 0o644);

  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    const made = await ok(server, 'execute_code', {
      session_id,
      code: [
        'import os',
        'os.symlink("/etc", "link")',
        `os.symlink(${JSON.stringify(outside)}, "escape")`,
        `os.symlink(${JSON.stringify(path.join(outside, 'secret.txt'))}, "secret-link")`,
        `os.symlink(${JSON.stringify(path.join(outside, 'new.txt'))}, "dangling")`,
        'os.makedirs("sub", exist_ok=True)',
        'os.symlink("../escape", "sub/up")',
        'print("ok")',
      ].join('\n'),
    });
    assert.equal(made.structuredContent.stdout, 'ok\n');

    const passwd = await refused(server, 'read_file', { session_id, path: 'link/passwd' });
    assert.doesNotMatch(textOf(passwd), /root:x:0:0/);
    for (const p of ['escape/secret.txt', 'secret-link', 'sub/up/secret.txt']) {
      const r = await refused(server, 'read_file', { session_id, path: p });
      assert.ok(!JSON.stringify(r).includes(secret), `${p} leaked the host file`);
    }
    for (const p of ['escape/pwned.txt', 'dangling', 'sub/up/pwned2.txt', 'link/paddock-e2e-pwned']) {
      await refused(server, 'write_file', { session_id, path: p, content: 'pwned' });
    }
    await refused(server, 'write_file', { session_id, path: 'secret-link', content: 'overwritten' });
    const listed = await server.callTool('list_files', { session_id, path: 'escape' });
    assert.equal(listed.isError, true, `list_files through a symlink: ${describe(listed)}`);
    assert.ok(!JSON.stringify(listed).includes('secret.txt'), 'list_files listed the host directory');

    assert.deepEqual(fs.readdirSync(outside).sort(), ['secret.txt'], 'nothing was written outside');
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), secret);
    assert.ok(!fs.existsSync('/etc/paddock-e2e-pwned'));
  });
});
