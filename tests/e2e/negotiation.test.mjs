// The legacy (initialize) era: version negotiation, ping, logging/setLevel, capabilities.
import assert from 'node:assert/strict';
import test from 'node:test';
import { LATEST_LEGACY, LEGACY_VERSIONS } from './support/config.mjs';
import { withServer } from './support/server.mjs';

for (const version of LEGACY_VERSIONS) {
  test(`initialize with ${version} is answered with ${version}`, { timeout: 30000 }, async (t) => {
    await withServer(t, async (server) => {
      const result = await server.initialize(version);
      assert.equal(result.protocolVersion, version);
      assert.equal(typeof result.serverInfo?.name, 'string');
      assert.equal(typeof result.serverInfo?.version, 'string');
      assert.ok(result.capabilities?.tools, 'the tools capability');
      assert.ok(result.capabilities?.resources, 'the resources capability');
      assert.ok(result.capabilities?.logging, 'the logging capability');
      // The negotiated revision is then in use: tools/list answers in it (checked by the tap).
      const { tools } = await server.call('tools/list', {});
      assert.ok(tools.length > 0);
    });
  });
}

test('initialize with an unknown version gets the latest legacy version', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const result = await server.initialize('2099-01-01');
    assert.equal(result.protocolVersion, LATEST_LEGACY);
    await server.call('tools/list', {});
  });
});

test('ping answers an empty result, before and after initialize', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    const before = await server.request('ping');
    assert.ok(before.result || before.error, 'ping before initialize is answered');
    if (before.result) assert.deepEqual(Object.keys(before.result).filter((k) => k !== '_meta'), []);
    await server.initialize();
    const after = await server.call('ping');
    assert.deepEqual(Object.keys(after).filter((k) => k !== '_meta'), []);
    const withParams = await server.call('ping', {});
    assert.deepEqual(Object.keys(withParams).filter((k) => k !== '_meta'), []);
  });
});

test('logging/setLevel accepts every level and refuses an unknown one', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']) {
      const result = await server.call('logging/setLevel', { level });
      assert.deepEqual(Object.keys(result).filter((k) => k !== '_meta'), [], `setLevel ${level}`);
    }
    const bad = await server.request('logging/setLevel', { level: 'loud' });
    assert.equal(bad.error?.code, -32602, `an unknown level is invalid params: ${JSON.stringify(bad)}`);
    // Still serving.
    await server.call('ping');
  });
});

test('logging/setLevel: log lines at the level and above come as notifications/message, none below', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const logs = () => server.messages.filter((m) => m.method === 'notifications/message');
    assert.deepEqual(logs(), [], 'no log messages before logging/setLevel');
    // An unknown method's error is logged at debug, before the error response is written.
    await server.call('logging/setLevel', { level: 'debug' });
    const first = await server.request('paddock/no-such-method');
    assert.equal(first.error?.code, -32601, JSON.stringify(first));
    const atLevel = logs().filter((m) => String(m.params.data).includes('paddock/no-such-method'));
    assert.equal(atLevel.length, 1, JSON.stringify(logs()));
    assert.equal(atLevel[0].params.level, 'debug');
    // Below the level: not sent.
    await server.call('logging/setLevel', { level: 'info' });
    const second = await server.request('paddock/another-method');
    assert.equal(second.error?.code, -32601, JSON.stringify(second));
    await server.call('ping');
    assert.deepEqual(logs().filter((m) => String(m.params.data).includes('paddock/another-method')), [],
      JSON.stringify(logs()));
  });
});

test('string and integer request ids are echoed exactly', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    for (const id of ['abc', 'with "quotes" and \u00e9', 0, 2 ** 31, -7]) {
      const response = await server.request('ping', {}, { id });
      assert.deepEqual(response.id, id);
      assert.ok(response.result, JSON.stringify(response));
    }
  });
});
