// The 2.x TypeScript client (@modelcontextprotocol/client): its legacy mode (initialize) and
// pinned to 2026-07-28 (server/discover, per-request _meta, no initialize).
import assert from 'node:assert/strict';
import test from 'node:test';
import { EXPECTED_TOOLS, MODERN } from './support/config.mjs';
import { connectSdk2, finishClient } from './support/clients.mjs';
import { describe } from './support/server.mjs';

test('2.x client, legacy mode: initialize, tools, resources', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: 'legacy' });
  const { client, transport } = conn;
  assert.equal(client.getProtocolEra(), 'legacy');
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  assert.ok(transport.sent.some((m) => m.method === 'initialize'));
  const { tools } = await client.listTools();
  for (const name of EXPECTED_TOOLS) assert.ok(tools.some((tool) => tool.name === name), name);
  const result = await client.callTool({ name: 'execute_code', arguments: { code: 'print("legacy 2.x")' } });
  assert.equal(result.isError, false, describe(result));
  assert.equal(result.structuredContent.stdout, 'legacy 2.x\n');
  const read = await client.readResource({ uri: 'sandbox://languages' });
  JSON.parse(read.contents[0].text);
  await finishClient(conn);
});

test('2.x client pinned to 2026-07-28: discover, tools, resources without initialize', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: MODERN });
  const { client, transport } = conn;
  assert.equal(client.getProtocolEra(), 'modern');
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  const discovered = client.getDiscoverResult();
  assert.ok(discovered?.supportedVersions?.includes(MODERN), JSON.stringify(discovered));
  const { tools } = await client.listTools();
  for (const name of EXPECTED_TOOLS) assert.ok(tools.some((tool) => tool.name === name), name);
  const result = await client.callTool({ name: 'execute_code', arguments: { code: 'print("modern 2.x")' } });
  assert.equal(result.isError, false, describe(result));
  assert.equal(result.structuredContent.stdout, 'modern 2.x\n');
  const failed = await client.callTool({ name: 'execute_code', arguments: { code: 'import sys; sys.exit(5)' } });
  assert.equal(failed.isError, true, describe(failed));
  assert.equal(failed.structuredContent.exit_code, 5);
  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === 'sandbox://languages'));
  const read = await client.readResource({ uri: 'sandbox://languages' });
  JSON.parse(read.contents[0].text);
  const again = await client.discover();
  assert.ok(again.supportedVersions.includes(MODERN));

  assert.ok(!transport.sent.some((m) => m.method === 'initialize'), 'no initialize in the modern era');
  for (const m of transport.sent.filter((msg) => 'id' in msg && 'method' in msg)) {
    assert.equal(m.params?._meta?.['io.modelcontextprotocol/protocolVersion'], MODERN, `${m.method} carries its revision`);
  }
  const responses = conn.server.messages.filter((m) => 'result' in m);
  for (const r of responses) assert.equal(r.result.resultType, 'complete', describe(r));
  await finishClient(conn);
});

test('2.x client in auto mode picks the modern era', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: 'auto' });
  assert.equal(conn.client.getProtocolEra(), 'modern');
  assert.equal(conn.client.getNegotiatedProtocolVersion(), MODERN);
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code: 'print(1 + 1)' } });
  assert.equal(result.structuredContent.stdout, '2\n', describe(result));
  await finishClient(conn);
});

test('2.x client pinned to 2026-07-28 gets progress and can cancel', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: MODERN });
  const progress = [];
  const code = 'import time\nfor i in range(4):\n    print(f"tick-{i}", flush=True)\n    time.sleep(0.2)';
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code } }, { onprogress: (p) => progress.push(p) });
  assert.equal(result.isError, false, describe(result));
  assert.ok(progress.some((p) => /tick-\d/.test(p.message ?? '')), JSON.stringify(progress));
  const controller = new AbortController();
  const call = conn.client.callTool({ name: 'execute_code', arguments: { code: 'import time\ntime.sleep(30)' } }, { signal: controller.signal });
  call.catch(() => {});
  await new Promise((r) => setTimeout(r, 500));
  controller.abort('e2e');
  await assert.rejects(call);
  const after = await conn.client.callTool({ name: 'execute_code', arguments: { code: 'print("still here")' } });
  assert.equal(after.structuredContent.stdout, 'still here\n');
  await finishClient(conn);
});
