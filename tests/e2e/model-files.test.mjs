// What a model sees of a session's files through the official clients: source and data files
// come back as text with their own MIME type, text with an unknown extension as text/plain,
// list_files leaves paddock's own files out unless asked, and list_sessions reads like prose.
import assert from 'node:assert/strict';
import test from 'node:test';
import { connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { describe, textOf } from './support/server.mjs';

const BACKEND = process.env.PADDOCK_BACKEND || 'native';

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name} ${JSON.stringify(args).slice(0, 200)}: ${describe(result)}`);
  return result;
}

// A python session whose code left a CSV, a text file with no known extension, a binary file and
// a tool cache in /work, as programs do. Not live: each call is a program of its own, whose code
// paddock writes to main.py (a live session's cells are no file: live-sessions.test.mjs).
async function sessionWithFiles(client) {
  // Listing first makes the clients check every result against its tool's outputSchema.
  await client.listTools();
  const created = await call(client, 'create_session', { language: 'python', live: false });
  assert.equal(created.structuredContent.live, false, describe(created));
  const session_id = created.structuredContent.session_id;
  const code = [
    'import os',
    'os.makedirs("outputs", exist_ok=True)',
    'open("outputs/result.csv", "w").write("x,y\\n1,2\\n")',
    'open("outputs/summary.dat", "w").write("mean 3.5\\nnaïve\\n")',
    'open("outputs/blob.dat", "wb").write(bytes([0, 1, 2, 255]))',
    'os.makedirs(".cache/pip", exist_ok=True)',
    'open("notes", "w").write("no extension, plain text\\n")',
    'print("written")',
  ].join('\n');
  const run = await call(client, 'execute_code', { session_id, code });
  assert.equal(run.structuredContent.stdout, 'written\n', describe(run));
  return { session_id, code };
}

async function readText(client, session_id, path) {
  const read = await call(client, 'read_file', { session_id, path });
  assert.equal(read.content.length, 1, describe(read));
  assert.equal(read.content[0].type, 'text', `${path} comes back as text: ${describe(read)}`);
  assert.equal(read.structuredContent.delivery, 'text', describe(read));
  return read;
}

test('read_file gives source and data files as text with their MIME type (1.x client)', { timeout: 90000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client } = conn;
  const { session_id, code } = await sessionWithFiles(client);

  const source = await readText(client, session_id, 'main.py');
  assert.equal(source.content[0].text, code);
  assert.equal(source.structuredContent.mime_type, 'text/x-python', describe(source));

  const csv = await readText(client, session_id, 'outputs/result.csv');
  assert.equal(csv.content[0].text, 'x,y\n1,2\n');
  assert.equal(csv.structuredContent.mime_type, 'text/csv', describe(csv));

  for (const [path, text] of [['outputs/summary.dat', 'mean 3.5\nnaïve\n'], ['notes', 'no extension, plain text\n']]) {
    const read = await readText(client, session_id, path);
    assert.equal(read.content[0].text, text);
    assert.equal(read.structuredContent.mime_type, 'text/plain', `${path}: ${describe(read)}`);
  }
  const binary = await call(client, 'read_file', { session_id, path: 'outputs/blob.dat' });
  assert.equal(binary.content[0].type, 'resource', describe(binary));
  assert.equal(binary.structuredContent.mime_type, 'application/octet-stream', describe(binary));

  // resources/read of the same file labels it the same way.
  const uri = `sandbox://sessions/${session_id}/files/outputs/summary.dat`;
  const resource = await client.readResource({ uri });
  assert.equal(resource.contents[0].mimeType, 'text/plain', describe(resource));
  assert.equal(resource.contents[0].text, 'mean 3.5\nnaïve\n');

  // A run without a session returns its outputs/ as artifacts, labelled the same way (a session
  // keeps its files instead).
  const fresh = await call(client, 'execute_code', { code });
  const types = Object.fromEntries(fresh.structuredContent.artifacts.map((a) => [a.name, a.mime_type]));
  assert.deepEqual(types, {
    'outputs/blob.dat': 'application/octet-stream',
    'outputs/result.csv': 'text/csv',
    'outputs/summary.dat': 'text/plain',
  }, describe(fresh));
  await finishClient(conn);
});

test('list_files hides paddock\'s own files unless all is true (2.x client)', { timeout: 90000 }, async (t) => {
  const conn = await connectSdk2(t);
  const { client } = conn;
  const { session_id } = await sessionWithFiles(client);
  // paddock's own: the code's file and the pip cache always; .paddock (the plot hook) where the
  // backend's sessions have it (the native backend's do).
  const all = await call(client, 'list_files', { session_id, all: true });
  const every = all.structuredContent.entries.map((e) => e.name);
  assert.equal(all.structuredContent.hidden, 0, describe(all));
  const own = ['.paddock', '.cache', 'main.py'].filter((name) => every.includes(name));
  for (const name of ['.cache', 'main.py', 'outputs', 'notes']) assert.ok(every.includes(name), `${name} missing with all: ${every}`);
  if (BACKEND === 'native') assert.ok(own.includes('.paddock'), `.paddock missing with all: ${every}`);

  const listed = await call(client, 'list_files', { session_id });
  const names = listed.structuredContent.entries.map((e) => e.name);
  for (const name of own) assert.ok(!names.includes(name), `${name} listed by default: ${names}`);
  for (const name of ['outputs', 'notes']) assert.ok(names.includes(name), `${name} missing: ${names}`);
  assert.equal(listed.structuredContent.hidden, own.length, describe(listed));
  const text = textOf(listed);
  for (const name of own) assert.doesNotMatch(text, new RegExp(`^  ${name.replace('.', '\\.')}\\b`, 'm'), text);
  assert.match(text, /all: true/, 'the text says how to see what was left out');
  assert.equal(every.length, names.length + own.length);

  // Asked for by name, paddock's directory is listed: nothing in it is hidden from a caller.
  const inside = await call(client, 'list_files', { session_id, path: '.cache' });
  assert.ok(inside.structuredContent.entries.length > 0, describe(inside));
  const outputs = await call(client, 'list_files', { session_id, path: 'outputs' });
  assert.deepEqual(outputs.structuredContent.entries.map((e) => e.name).sort(), ['blob.dat', 'result.csv', 'summary.dat']);
  assert.equal(outputs.structuredContent.hidden, 0);
  // One byte, one entry: no "1 bytes".
  await call(client, 'write_file', { session_id, path: 'one.txt', content: 'x' });
  const one = await call(client, 'list_files', { session_id });
  assert.match(textOf(one), /one\.txt \(1 byte\)/, textOf(one));
  await finishClient(conn);
});

test('list_sessions gives idle times in whole units', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client } = conn;
  await client.listTools();
  const created = await call(client, 'create_session', { language: 'python' });
  const session_id = created.structuredContent.session_id;
  const listed = await call(client, 'list_sessions', {});
  const text = textOf(listed);
  assert.doesNotMatch(text, /0\.000000/, text);
  assert.match(text, new RegExp(`^${session_id} python, open, idle \\d+ (s|min|h|d)$`, 'm'), text);
  const details = await call(client, 'get_session', { session_id });
  assert.match(textOf(details), /old, idle \d+ (s|min|h|d), /, textOf(details));
  assert.doesNotMatch(textOf(details), /\b1 (processes|runs)\b/, textOf(details));
  await finishClient(conn);
});
