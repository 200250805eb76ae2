// JSON-RPC errors: parse error, invalid request, unknown method, unknown tool, bad tool arguments.
import assert from 'node:assert/strict';
import test from 'node:test';
import { describe, textOf, withServer } from './support/server.mjs';

// Writes `line` as is and waits for the error it earns; `id` is the id the answer must carry
// (null when the request's id cannot be determined).
async function expectError(server, line, { codes, id }) {
  const from = server.messages.length;
  await server.writeRaw(`${line}\n`, id === null ? {} : { expectId: id });
  const answer = await server.waitFor(
    (m) => server.messages.indexOf(m) >= from && ('error' in m || 'result' in m),
    10000, `an answer to ${line.slice(0, 80)}`);
  assert.ok(answer.error, `${line.slice(0, 80)} should get an error, got ${describe(answer)}`);
  assert.ok(codes.includes(answer.error.code), `${line.slice(0, 80)}: expected error ${codes.join(' or ')}, got ${describe(answer)}`);
  // A missing id is taken as null here; 'errors whose request id cannot be read carry "id": null'
  // checks that one thing.
  assert.deepEqual('id' in answer ? answer.id : null, id, `${line.slice(0, 80)}: the error's id`);
  assert.equal(typeof answer.error.message, 'string');
  // Still serving.
  const pong = await server.request('ping');
  assert.ok(pong.result, `ping after ${line.slice(0, 80)}: ${describe(pong)}`);
  return answer;
}

test('a line that is not JSON gets -32700', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    await expectError(server, 'this is not json', { codes: [-32700], id: null });
    await expectError(server, '{"jsonrpc":"2.0","id":91,"method":"ping"', { codes: [-32700], id: null });
    await expectError(server, '{"jsonrpc":"2.0","id":92,"method":"ping"}}', { codes: [-32700], id: null });
    await expectError(server, '{"jsonrpc":"2.0","id":93,"method":"ping",}', { codes: [-32700], id: null });
  });
});

// JSON-RPC 2.0 wants "id": null on an error about a message whose id cannot be read, but no MCP
// schema allows a null id. From 2025-11-25 on the schema lets such an error go without an id,
// which is what paddock sends; under 2025-06-18 and older there is no valid answer at all, so
// paddock logs the problem on stderr and goes on serving.
const unreadable = ['this is not json', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', '42', '[]'];

test('2025-11-25: errors whose request id cannot be read carry no id', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize('2025-11-25');
    for (const line of unreadable) {
      const from = server.messages.length;
      await server.writeRaw(`${line}\n`);
      const answer = await server.waitFor((m) => server.messages.indexOf(m) >= from && 'error' in m, 10000, `an answer to ${line}`);
      assert.ok(!('id' in answer), `${line}: ${describe(answer)}`);
      assert.ok([-32700, -32600].includes(answer.error.code), `${line}: ${describe(answer)}`);
    }
  });
});

test('2025-06-18: errors whose request id cannot be read are not answered, and serving goes on', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize('2025-06-18');
    const from = server.messages.length;
    for (const line of unreadable) await server.writeRaw(`${line}\n`);
    const pong = await server.request('ping');
    assert.ok(pong.result, describe(pong));
    const errors = server.messages.slice(from).filter((m) => 'error' in m);
    assert.deepEqual(errors, [], 'no schema-invalid error responses');
  });
});

test('a parse error before initialize is answered too', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await expectError(server, '{{{', { codes: [-32700], id: null });
    await server.initialize();
  });
});

test('JSON that is not a valid request gets -32600', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    await expectError(server, '{"jsonrpc":"1.0","id":4,"method":"ping"}', { codes: [-32600], id: 4 });
    await expectError(server, '{"id":5,"method":"ping"}', { codes: [-32600], id: 5 });
    await expectError(server, '{"jsonrpc":"2.0","id":6,"method":7}', { codes: [-32600], id: 6 });
    await expectError(server, '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', { codes: [-32600], id: null });
    await expectError(server, '{"jsonrpc":"2.0","id":true,"method":"ping"}', { codes: [-32600], id: null });
    await expectError(server, '{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}', { codes: [-32600, -32602], id: 7 });
    await expectError(server, '42', { codes: [-32600], id: null });
    await expectError(server, '"hello"', { codes: [-32600], id: null });
    await expectError(server, 'null', { codes: [-32600], id: null });
    await expectError(server, '[]', { codes: [-32600], id: null });
  });
});

test('a JSON-RPC batch (removed from MCP in 2025-06-18) is refused with one error object', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    await expectError(server, '[{"jsonrpc":"2.0","id":8,"method":"ping"}]', { codes: [-32600], id: null });
  });
});

test('an unknown method gets -32601 with its id', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    for (const method of ['no/such/method', 'tools/lisst', 'prompts/nope']) {
      const response = await server.request(method, {});
      assert.equal(response.error?.code, -32601, `${method}: ${describe(response)}`);
    }
    await server.call('ping');
  });
});

test('an unknown notification is ignored, not answered', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const from = server.messages.length;
    await server.notify('notifications/no_such_thing', { x: 1 });
    await server.notify('notifications/cancelled', { requestId: 12345, reason: 'no such request' });
    await server.notify('notifications/progress', { progressToken: 'x', progress: 1 });
    const pong = await server.request('ping');
    assert.ok(pong.result);
    const between = server.messages.slice(from).filter((m) => m !== pong);
    assert.deepEqual(between, [], 'nothing answers a notification');
  });
});

test('tools/call of an unknown tool gets -32602', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const response = await server.request('tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(response.error?.code, -32602, describe(response));
    const missingName = await server.request('tools/call', { arguments: {} });
    assert.equal(missingName.error?.code, -32602, `tools/call without a name: ${describe(missingName)}`);
  });
});

test('invalid tool arguments give a result with isError true that says what is wrong', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const cases = [
      [{}, /code/i],
      [{ code: 42 }, /code/i],
      [{ code: 'print(1)', language: 'cobol' }, /cobol|language/i],
      [{ code: 'print(1)', timeout: 'soon' }, /timeout/i],
      [{ code: 'print(1)', libraries: 'numpy' }, /librar/i],
      [{ code: 'print(1)', files: [{ content: 'no path' }] }, /path|files/i],
    ];
    for (const [args, mention] of cases) {
      const result = await server.callTool('execute_code', args);
      assert.equal(result.isError, true, `execute_code ${JSON.stringify(args)}: ${describe(result)}`);
      assert.match(textOf(result), mention, `execute_code ${JSON.stringify(args)} names the problem`);
    }
    const details = await server.callTool('get_language_details', {});
    assert.equal(details.isError, true, `get_language_details without a language: ${describe(details)}`);
  });
});
