// Malicious or broken input on stdin: the server answers the bad line with the right error and
// goes on serving.
import assert from 'node:assert/strict';
import test from 'node:test';
import { describe, withServer } from './support/server.mjs';

// Writes `bytes` (one line, newline included) and returns the first answer that belongs to it:
// anything with id `id`, or an error whose id is null (or, wrongly, missing: JSON-RPC 2.0 requires
// "id": null when the id could not be read; checked by the caller through idOf).
async function answerTo(server, bytes, id, timeoutMs = 60000) {
  const from = server.messages.length;
  server.writeRaw(bytes, { expectId: id });
  return server.waitFor(
    (m) => server.messages.indexOf(m) >= from && !('method' in m) &&
      (JSON.stringify(m.id) === JSON.stringify(id) || ((m.id === null || !('id' in m)) && 'error' in m)),
    timeoutMs, `an answer to request ${JSON.stringify(id)}`);
}

// The id of an answer, null when it has none: that an unreadable id is answered with "id": null
// and not with no id is errors.test.mjs's concern, this file's is surviving the input.
const idOf = (m) => ('id' in m ? m.id : null);

async function stillServing(server) {
  const pong = await server.request('ping', {}, { timeoutMs: 20000 });
  assert.ok(pong.result, `ping after the bad line: ${describe(pong)}`);
}

test('a 100 MB line is refused (or handled) and the server goes on', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const head = Buffer.from('{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"');
    const tail = Buffer.from('"}}\n');
    const line = Buffer.alloc(head.length + 100 * 1024 * 1024 + tail.length, 0x61);
    head.copy(line, 0);
    tail.copy(line, line.length - tail.length);
    const answer = await answerTo(server, line, 'big');
    if (answer.error) {
      assert.ok([-32700, -32600].includes(answer.error.code), `the 100 MB line's error: ${describe(answer)}`);
      assert.ok([null, 'big'].includes(idOf(answer)), `the 100 MB line's error id: ${describe(answer)}`);
    } else {
      assert.ok(answer.result, describe(answer));
    }
    await stillServing(server);
  });
});

test('a 100 MB line without a newline before EOF does not hang the server', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    await stillServing(server);
    await server.writeRaw(Buffer.alloc(100 * 1024 * 1024, 0x5b)); // '[' x 100 MiB, no newline
    server.closeStdin();
    const exit = await server.waitExit(30000);
    assert.ok(exit, `the server did not exit within 30 s of EOF; stderr:\n${server.stderrTail()}`);
    assert.equal(exit.code, 0, `exit status after EOF: ${JSON.stringify(exit)}`);
  });
});

test('invalid UTF-8 gets a parse error and the server goes on', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const line = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"u","method":"ping","params":{"s":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      Buffer.from('"}}\n'),
    ]);
    const answer = await answerTo(server, line, 'u');
    assert.equal(answer.error?.code, -32700, `invalid UTF-8: ${describe(answer)}`);
    assert.ok([null, 'u'].includes(idOf(answer)), `invalid UTF-8: the error's id: ${describe(answer)}`);
    await stillServing(server);
    // Invalid UTF-8 inside tool arguments: the same.
    const call = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"u2","method":"tools/call","params":{"name":"execute_code","arguments":{"code":"print(\''),
      Buffer.from([0xc0, 0xaf]),
      Buffer.from('\')"}}}\n'),
    ]);
    const answer2 = await answerTo(server, call, 'u2');
    assert.equal(answer2.error?.code, -32700, `invalid UTF-8 in tool arguments: ${describe(answer2)}`);
    assert.ok([null, 'u2'].includes(idOf(answer2)), `invalid UTF-8 in tool arguments: the error's id: ${describe(answer2)}`);
    await stillServing(server);
  });
});

test('100000-deep nesting is refused without crashing the server', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const depth = 100000;
    // Unclosed: not JSON at all.
    let answer = await answerTo(server, `${'['.repeat(depth)}\n`, null);
    assert.equal(answer.error?.code, -32700, `unclosed nesting: ${describe(answer)}`);
    assert.equal(idOf(answer), null, `unclosed nesting: the error's id: ${describe(answer)}`);
    await stillServing(server);
    // Balanced: JSON, but not a request (or too deep to parse).
    answer = await answerTo(server, `${'['.repeat(depth)}${']'.repeat(depth)}\n`, null);
    assert.ok([-32700, -32600].includes(answer.error?.code), `balanced nesting: ${describe(answer)}`);
    assert.equal(idOf(answer), null, `balanced nesting: the error's id: ${describe(answer)}`);
    await stillServing(server);
    // Deep nesting inside a request's params.
    const line = `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}\n`;
    answer = await answerTo(server, line, 'deep');
    if (answer.error) {
      assert.ok([-32700, -32600, -32602].includes(answer.error.code), `deep params: ${describe(answer)}`);
      assert.ok([null, 'deep'].includes(idOf(answer)), `deep params: the error's id: ${describe(answer)}`);
    }
    await stillServing(server);
  });
});

test('NUL bytes and control characters in a line are a parse error', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const line = Buffer.from('{"jsonrpc":"2.0","id":"n","method":"ping"\u0000}\n');
    const answer = await answerTo(server, line, 'n');
    assert.equal(answer.error?.code, -32700, describe(answer));
    assert.ok([null, 'n'].includes(idOf(answer)), `the error's id: ${describe(answer)}`);
    await stillServing(server);
  });
});

test('2000 pipelined requests are all answered, each once', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const ids = Array.from({ length: 2000 }, (_, i) => `p${i}`);
    const lines = ids.map((id) => JSON.stringify({ jsonrpc: '2.0', id, method: id.endsWith('7') ? 'tools/list' : 'ping' })).join('\n');
    const answers = ids.map((id) => {
      server.writeRaw('', { expectId: id, method: id.endsWith('7') ? 'tools/list' : 'ping' });
      return server.response(id, 50000);
    });
    await server.writeRaw(`${lines}\n`);
    const got = await Promise.all(answers);
    for (const m of got) assert.ok(m.result, describe(m));
  });
});

// The code names the Java class, and the server finds the name before any sandbox runs: a search
// that backtracked (std::regex recursed once per blank) overflowed the server's stack on a few
// hundred kilobytes of blanks and took every session down with it.
test('Java code built to make the class-name search recurse is run, and the server goes on', { timeout: 180000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const code = `public${' '.repeat(1 << 20)}class Far { public static void main(String[] a) { System.out.println("far"); } }\n`;
    const run = await server.callTool('execute_code', { language: 'java', code }, { timeoutMs: 150000 });
    assert.equal(run.structuredContent?.exit_code, 0, describe(run));
    assert.match(run.structuredContent?.stdout ?? '', /^far/, describe(run));
    await stillServing(server);
  });
});
