// notifications/progress carries the output of a run as it is printed.
import assert from 'node:assert/strict';
import test from 'node:test';
import { connectSdk1, finishClient } from './support/clients.mjs';
import { describe } from './support/server.mjs';

test('a run that prints every 200 ms sends progress with the printed text', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const progress = [];
  const code = 'import time\nfor i in range(6):\n    print(f"tick-{i}", flush=True)\n    time.sleep(0.2)';
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
    onprogress: (p) => progress.push({ ...p, at: Date.now() }),
    timeout: 50000,
  });
  const done = Date.now();
  assert.equal(result.isError, false, describe(result));
  assert.ok(progress.length >= 1, 'at least one notifications/progress');
  assert.ok(progress.some((p) => /tick-\d/.test(p.message ?? '')), `progress messages: ${JSON.stringify(progress)}`);
  assert.ok(progress.some((p) => done - p.at > 200), 'progress arrived while the run was going, not all at the end');
  for (let i = 1; i < progress.length; i++) {
    assert.ok(progress[i].progress > progress[i - 1].progress, `progress increases: ${JSON.stringify(progress)}`);
  }
  await finishClient(conn);
});

test('no progress notifications without a progressToken', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const code = 'import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.2)';
  await conn.client.callTool({ name: 'execute_code', arguments: { code } });
  const progress = conn.server.messages.filter((m) => m.method === 'notifications/progress');
  assert.deepEqual(progress, []);
  await finishClient(conn);
});
