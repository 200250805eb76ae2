// notifications/cancelled (sent by the 1.x SDK when a call's AbortSignal fires) kills the run.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import test from 'node:test';
import { connectSdk1, finishClient } from './support/clients.mjs';
import { describeProcs, isUserCode, waitForDescendants, waitGone } from './support/procs.mjs';
import { describe, sleep } from './support/server.mjs';

test('cancelling a 60 s run leaves no process of it behind', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client, server } = conn;
  const marker = `marker-${crypto.randomUUID()}`;
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'execute_code', arguments: { code: `import time\n# ${marker}\nprint("sleeping", flush=True)\ntime.sleep(60)`, timeout: 90 } },
    undefined, { signal: controller.signal, timeout: 120000 });
  call.catch(() => {});
  const procs = await waitForDescendants(server.pid, (list) => list.some(isUserCode), 15000);
  assert.ok(procs, `the run never showed up below the server (pid ${server.pid})`);
  controller.abort('e2e cancels the run');
  await assert.rejects(call, 'the aborted call rejects on the client');
  const cancelled = (conn.transport.sent).find((m) => m.method === 'notifications/cancelled');
  assert.ok(cancelled, 'the client sent notifications/cancelled');
  const left = await waitGone(procs, 2000);
  assert.deepEqual(left, [], `2 s after notifications/cancelled these are still running:\n  ${describeProcs(left)}`);
  // The server stays usable and does not answer the cancelled request late.
  const after = await client.callTool({ name: 'execute_code', arguments: { code: 'print("after")' } });
  assert.equal(after.structuredContent?.stdout, 'after\n', describe(after));
  await sleep(300);
  const late = server.messages.filter((m) => 'id' in m && m.id === cancelled.params.requestId && !('method' in m));
  assert.deepEqual(late, [], 'a cancelled request should not be answered');
  await finishClient(conn);
});
