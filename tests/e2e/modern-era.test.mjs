// The 2026-07-28 era on raw stdio: no initialize, every request carries its revision and client
// capabilities in _meta; results say resultType, cacheable ones ttlMs and cacheScope.
import assert from 'node:assert/strict';
import test from 'node:test';
import { MODERN } from './support/config.mjs';
import { describe, modernMeta, textOf, withServer } from './support/server.mjs';

function assertCacheable(result, what) {
  assert.equal(result.resultType, 'complete', `${what}.resultType`);
  assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0, `${what}.ttlMs: ${result.ttlMs}`);
  assert.ok(['public', 'private'].includes(result.cacheScope), `${what}.cacheScope: ${result.cacheScope}`);
}

test('server/discover lists the supported versions and capabilities', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const result = await server.call('server/discover', { _meta: modernMeta() });
    assert.ok(Array.isArray(result.supportedVersions), describe(result));
    assert.ok(result.supportedVersions.includes(MODERN), `supportedVersions: ${result.supportedVersions}`);
    for (const v of result.supportedVersions) assert.match(v, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(result.capabilities?.tools, 'the tools capability');
    assert.ok(result.capabilities?.resources, 'the resources capability');
    assertCacheable(result, 'server/discover');
  });
});

test('tools/list and tools/call work without initialize', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const list = await server.call('tools/list', { _meta: modernMeta() });
    assertCacheable(list, 'tools/list');
    assert.ok(list.tools.some((tool) => tool.name === 'execute_code'));
    const result = await server.callTool('execute_code', { code: 'print(6 * 7)' }, { modern: true });
    assert.equal(result.resultType, 'complete', describe(result));
    assert.equal(result.isError, false, describe(result));
    assert.equal(result.structuredContent?.stdout, '42\n', describe(result));
    assert.match(textOf(result), /42/);
  });
});

test('resources/list and resources/read carry cache hints', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const list = await server.call('resources/list', { _meta: modernMeta() });
    assertCacheable(list, 'resources/list');
    assert.ok(list.resources.some((r) => r.uri === 'sandbox://languages'), describe(list));
    const read = await server.call('resources/read', { uri: 'sandbox://languages', _meta: modernMeta() });
    assertCacheable(read, 'resources/read');
    assert.equal(read.contents[0].mimeType, 'application/json');
    JSON.parse(read.contents[0].text);
  });
});

test('an unsupported _meta protocolVersion gets -32022 with requested and supported', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    for (const method of ['tools/list', 'server/discover']) {
      const response = await server.request(method, { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': '1999-01-01' }) });
      assert.equal(response.error?.code, -32022, `${method}: ${describe(response)}`);
      assert.equal(response.error.data?.requested, '1999-01-01', describe(response));
      assert.ok(Array.isArray(response.error.data?.supported), describe(response));
      assert.ok(response.error.data.supported.includes(MODERN), describe(response));
    }
    // Still serving modern requests afterwards.
    const list = await server.call('tools/list', { _meta: modernMeta() });
    assert.ok(list.tools.length > 0);
  });
});

test('modern requests are independent: each one is answered in its own revision', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const results = await Promise.all([
      server.call('tools/list', { _meta: modernMeta() }),
      server.call('resources/list', { _meta: modernMeta() }),
      server.call('server/discover', { _meta: modernMeta() }),
    ]);
    for (const r of results) assert.equal(r.resultType, 'complete');
  });
});

test('progress in the modern era, and no log messages unless a request asks with logLevel', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const code = 'import time\nfor i in range(4):\n    print(f"tick-{i}", flush=True)\n    time.sleep(0.2)';
    const result = await server.callTool('execute_code', { code }, { modern: true, progressToken: 'modern-progress' });
    assert.equal(result.isError, false, describe(result));
    const progress = server.messages.filter((m) => m.method === 'notifications/progress');
    assert.ok(progress.length >= 1, 'notifications/progress for a request with a progressToken');
    assert.ok(progress.every((m) => m.params.progressToken === 'modern-progress'));
    assert.ok(progress.some((m) => /tick-\d/.test(m.params.message ?? '')), JSON.stringify(progress));
    const logs = server.messages.filter((m) => m.method === 'notifications/message');
    assert.deepEqual(logs, [], 'notifications/message without io.modelcontextprotocol/logLevel in _meta');
  });
});
