// notifications/cancelled (sent by the 1.x SDK when a call's AbortSignal fires) and timeouts kill
// the whole run: its program and whatever the program started.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import test from 'node:test';
import { connectSdk1, finishClient } from './support/clients.mjs';
import { descendants, describeProcs, settledDescendants, isUserCode, networkPoliciesOf, podsOf, waitForDescendants, waitGone } from './support/procs.mjs';
import { describe, sleep } from './support/server.mjs';

const key = (p) => `${p.pid}/${p.starttime}`;

// The processes below the server that are the run's, once `ready(list)` holds for them: those it
// added, and the warm interpreter that was waiting for it (started before the call, it is the
// run's program once the call comes; the one the pool makes next starts only after the call).
async function runProcesses(server, baseline, ready) {
  const known = new Set(baseline.filter((p) => !isUserCode(p)).map(key));
  const list = await waitForDescendants(server.pid, (all) => ready(all.filter((p) => !known.has(key(p)))), 15000);
  assert.ok(list, `the run never showed up below the server (pid ${server.pid}): ${describeProcs(descendants(server.pid))}`);
  return list.filter((p) => !known.has(key(p)));
}

test('cancelling a 60 s run leaves no process of it behind', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client, server } = conn;
  const baseline = await settledDescendants(server.pid);
  const marker = `marker-${crypto.randomUUID()}`;
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'execute_code', arguments: { code: `import time\n# ${marker}\nprint("sleeping", flush=True)\ntime.sleep(60)`, timeout: 90 } },
    undefined, { signal: controller.signal, timeout: 120000 });
  call.catch(() => {});
  const procs = await runProcesses(server, baseline, (list) => list.some(isUserCode));
  // In a cluster the run's pod has no network: a deny-all NetworkPolicy holds it while it runs.
  if (process.env.PADDOCK_BACKEND === 'kubernetes') {
    assert.equal(networkPoliciesOf(server.pid).length, 1, 'the running pod has its NetworkPolicy');
  }
  controller.abort('e2e cancels the run');
  await assert.rejects(call, 'the aborted call rejects on the client');
  const cancelled = conn.transport.sent.find((m) => m.method === 'notifications/cancelled');
  assert.ok(cancelled, 'the client sent notifications/cancelled');
  const left = await waitGone(procs, 2000);
  assert.deepEqual(left, [], `2 s after notifications/cancelled these are still running:\n  ${describeProcs(left)}`);
  // In a cluster the run's pod goes too (its keeper is the cluster's, not counted above).
  let pods = podsOf(server.pid);
  for (let i = 0; i < 50 && pods.length > 0; i++) {
    await sleep(100);
    pods = podsOf(server.pid);
  }
  assert.deepEqual(pods, [], '5 s after notifications/cancelled the run\'s pod is still there');
  assert.deepEqual(networkPoliciesOf(server.pid), [], 'and its NetworkPolicy went with it');
  // The server stays usable and does not answer the cancelled request late.
  const after = await client.callTool({ name: 'execute_code', arguments: { code: 'print("after")' } });
  assert.equal(after.structuredContent?.stdout, 'after\n', describe(after));
  await sleep(300);
  const late = server.messages.filter((m) => 'id' in m && m.id === cancelled.params.requestId && !('method' in m));
  assert.deepEqual(late, [], 'a cancelled request should not be answered');
  await finishClient(conn);
});

const SPAWNS_A_CHILD = 'import subprocess, time\nsubprocess.Popen(["sleep", "60"])\nprint("spawned", flush=True)\ntime.sleep(60)';
const hasChild = (list) => list.some((p) => p.comm === 'sleep') && list.some((p) => p.comm.startsWith('python'));

test("cancelling also kills the processes the run's program started", { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client, server } = conn;
  const baseline = await settledDescendants(server.pid);
  const controller = new AbortController();
  const call = client.callTool({ name: 'execute_code', arguments: { code: SPAWNS_A_CHILD, timeout: 90 } },
    undefined, { signal: controller.signal, timeout: 120000 });
  call.catch(() => {});
  const procs = await runProcesses(server, baseline, hasChild);
  controller.abort('e2e cancels the run');
  await assert.rejects(call);
  const left = await waitGone(procs, 2000);
  assert.deepEqual(left, [], `2 s after notifications/cancelled these are still running:\n  ${describeProcs(left)}`);
  await finishClient(conn);
});

test("a timeout kills the run's program and its children", { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client, server } = conn;
  const baseline = await settledDescendants(server.pid);
  const call = client.callTool({ name: 'execute_code', arguments: { code: SPAWNS_A_CHILD, timeout: 3 } });
  const procs = await runProcesses(server, baseline, hasChild);
  const result = await call;
  assert.equal(result.structuredContent?.timed_out, true, describe(result));
  const left = await waitGone(procs, 2000);
  assert.deepEqual(left, [], `2 s after the timeout these are still running:\n  ${describeProcs(left)}`);
  await finishClient(conn);
});
