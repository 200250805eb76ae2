// Every tool result a model reads is bounded (64 KiB of text by default) and says what it left
// out and how to get the rest, in the text itself: read_file in byte ranges, large binary files
// pointed to, long listings, errors quoting a hostile value, and output folded where it repeats.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import test from 'node:test';
import { describe, textOf, withServer } from './support/server.mjs';

const CAP = 64 * 1024;
const textBytes = (result) => (result.content || [])
  .filter((c) => c.type === 'text').reduce((n, c) => n + Buffer.byteLength(c.text, 'utf8'), 0);

async function ok(server, tool, args) {
  const result = await server.callTool(tool, args, { timeoutMs: 120000 });
  await server.checkOutputSchema(tool, result);
  assert.equal(result.isError, false, `${tool}: ${describe(result)}`);
  return result;
}

async function session(server) {
  return (await ok(server, 'create_session', {})).structuredContent.session_id;
}

// The text a range read shows, without its closing "[path: bytes ...]" line.
const body = (result) => textOf(result).replace(/\n\[[^\n]*: bytes \d+ to \d+ of \d+ shown[^\n]*\]$/, '');

test('read_file gives a 780 KB text file in ranges of at most 64 KiB that join into the file', { timeout: 180000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    // Multi-byte characters everywhere, so that range edges fall inside them.
    const made = await ok(server, 'execute_code', {
      session_id,
      code: 'import hashlib\nrows = "".join(f"{i},naïve ünïcödé €{i * 7}\\n" for i in range(26000))\n'
        + 'open("big.csv", "w").write(rows)\nprint(len(rows.encode()), hashlib.sha256(rows.encode()).hexdigest())',
    });
    const [size, digest] = made.structuredContent.stdout.trim().split(' ');
    assert.ok(Number(size) > 780000, size);

    const first = await ok(server, 'read_file', { session_id, path: 'big.csv' });
    assert.ok(textBytes(first) <= CAP, `${textBytes(first)} bytes of text`);
    assert.equal(first.structuredContent.delivery, 'text');
    assert.equal(first.structuredContent.size, Number(size));
    const next = first.structuredContent.next_offset;
    assert.match(textOf(first), new RegExp(`bytes 0 to ${next} of ${size} shown; [\\d]+ bytes more: read_file with offset ${next} reads on; download_file`), textOf(first));

    const parts = [body(first)];
    let offset = next;
    for (let calls = 0; offset !== undefined; calls++) {
      assert.ok(calls < 40, 'the ranges move on');
      const part = await ok(server, 'read_file', { session_id, path: 'big.csv', offset });
      assert.ok(textBytes(part) <= CAP, `${textBytes(part)} bytes of text at ${offset}`);
      assert.equal(part.structuredContent.offset, offset, describe(part));
      parts.push(body(part));
      offset = part.structuredContent.next_offset;
    }
    const joined = Buffer.from(parts.join(''), 'utf8');
    assert.equal(joined.length, Number(size));
    assert.equal(crypto.createHash('sha256').update(joined).digest('hex'), digest);

    const small = await ok(server, 'read_file', { session_id, path: 'big.csv', offset: 5, length: 10 });
    assert.match(textOf(small), /^ve ünïc\n\[big\.csv: bytes 6 to 15 of \d+ shown/, textOf(small));
    const past = await server.callTool('read_file', { session_id, path: 'big.csv', offset: 10000000 });
    assert.equal(past.isError, true, describe(past));
    assert.match(textOf(past), /^offset 10000000 is past the end of big\.csv, which has \d+ bytes/);
  });
});

test('read_file of a 900 KB binary file says in words how to get it, and inlines no megabyte of base64', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    await ok(server, 'execute_code', { session_id, code: 'open("model.bin", "wb").write(bytes(i * 7 % 251 for i in range(900000)))' });
    const read = await ok(server, 'read_file', { session_id, path: 'model.bin' });
    assert.ok(JSON.stringify(read.content).length < CAP, `${JSON.stringify(read.content).length} characters of content`);
    assert.match(textOf(read), /^model\.bin is not text \(application\/octet-stream, 900000 bytes\).*download_file copies it to the host/, describe(read));
    assert.ok(read.content.some((c) => c.type === 'resource_link'), 'and a link for clients that follow one');
    const range = await ok(server, 'read_file', { session_id, path: 'model.bin', offset: 100 });
    assert.match(textOf(range), /^model\.bin is not text at byte 100/, describe(range));
  });
});

test('list_files of 1,500 long names fits in 64 KiB of text and says what it left out', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    await ok(server, 'execute_code', { session_id, code: 'import os\nos.mkdir("many")\nfor i in range(1500):\n    open(f"many/{i:05d}-" + "x" * 200, "w").close()' });
    const listed = await ok(server, 'list_files', { session_id, path: 'many' });
    assert.ok(textBytes(listed) <= CAP, `${textBytes(listed)} bytes of text`);
    assert.equal(listed.structuredContent.more, true);
    assert.match(textOf(listed), /\d+ more entries not shown here, and more than 1000 entries in all, only the first 1000 by name listed: list a subdirectory with path/, textOf(listed).slice(-400));
  });
});

test('an error quoting a huge hostile value is cut to 64 KiB of text', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const hostile = 's-' + 'A'.repeat(300000);
    for (const tool of ['get_session', 'read_file', 'close_session']) {
      const args = tool === 'read_file' ? { session_id: hostile, path: 'x' } : { session_id: hostile };
      const result = await server.callTool(tool, args);
      assert.equal(result.isError, true, describe(result));
      assert.ok(textBytes(result) <= CAP, `${tool}: ${textBytes(result)} bytes of text`);
      assert.match(textOf(result), /bytes left out here/, describe(result));
      assert.match(textOf(result), /tool results are capped at 65536 bytes of text/, describe(result));
    }
  });
});

test('a fork loop\'s repeated tracebacks are folded, and the notes never send the model to structuredContent', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const code = [
      'import sys',
      'for i in range(400):',
      '    sys.stderr.write("Traceback (most recent call last):\\n  File \\"/work/main.py\\", line 4, in <module>\\n    os.fork()\\nBlockingIOError: [Errno 11] Resource temporarily unavailable\\n")',
      'for i in range(20000):',
      '    print("row", i)',
    ].join('\n');
    const result = await server.callTool('execute_code', { code }, { timeoutMs: 120000 });
    assert.equal(result.isError, false, describe(result));
    const text = textOf(result);
    assert.match(text, /BlockingIOError: \[Errno 11\] Resource temporarily unavailable\n… the same 4 lines 399 more times\n/, text);
    assert.doesNotMatch(text, /structuredContent/, text);
    assert.match(text, /\(stdout was \d+ bytes; shown here: its start and its end; to keep all of it, run the code in a session/, text);
  });
});

test('a byte range never shows part of a passed-through value: it starts before the value, masked', { timeout: 120000 }, async (t) => {
  const secret = 'tok-range-5e1f2a9c';
  await withServer(t, { env: { E2E_RANGE_TOKEN: secret, PADDOCK_PASS_THROUGH_ENV: 'E2E_RANGE_TOKEN' } }, async (server) => {
    await server.initialize();
    const session_id = await session(server);
    await ok(server, 'execute_code', { session_id, code: 'import os\nopen("s.txt", "w").write("x" * 100 + os.environ["E2E_RANGE_TOKEN"] + "y" * 100)' });
    for (const [offset, length] of [[105, 50], [117, 10], [0, 103], [90, 15], [101, 1]]) {
      const read = await ok(server, 'read_file', { session_id, path: 's.txt', offset, length });
      const text = textOf(read);
      for (let at = 0; at + 4 <= secret.length; at++) {
        assert.ok(!text.includes(secret.slice(at, at + 4)), `[${offset}, +${length}] shows part of the value: ${text}`);
      }
    }
    const inside = await ok(server, 'read_file', { session_id, path: 's.txt', offset: 105, length: 50 });
    assert.match(textOf(inside), /^x{12}\*\*\*y{20}\n\[s\.txt: bytes 88 to 138 of 218 shown; 80 bytes more: read_file with offset 138/, textOf(inside));
  });
});
