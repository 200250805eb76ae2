// How the server ends: EOF on stdin or SIGTERM ends it with status 0, quickly, and takes every
// sandbox it started with it.
import assert from 'node:assert/strict';
import test from 'node:test';
import { describeProcs, isUserCode, waitForDescendants, waitGone } from './support/procs.mjs';
import { describe, startServer } from './support/server.mjs';

const LONG_RUN = 'import time\nprint("started", flush=True)\ntime.sleep(30)\nprint("not cancelled")';

// Starts a 30 s run and resolves with the server's descendants once its python3 is running.
async function startLongRun(server) {
  const call = server.callTool('execute_code', { code: LONG_RUN, timeout: 60 }, { timeoutMs: 90000 });
  call.catch(() => {});
  const procs = await waitForDescendants(server.pid, (list) => list.some(isUserCode), 15000);
  assert.ok(procs, `no python3 below the server (pid ${server.pid}) within 15 s of execute_code; stderr:\n${server.stderrTail()}`);
  return { call, procs };
}

test('EOF on stdin when idle: exit status 0 within 3 s', { timeout: 30000 }, async (t) => {
  const server = startServer(t);
  await server.initialize();
  await server.call('tools/list', {});
  server.closeStdin();
  const exit = await server.waitExit(3000);
  assert.ok(exit, `still running 3 s after EOF; stderr:\n${server.stderrTail()}`);
  assert.deepEqual(exit, { code: 0, signal: null });
  server.assertClean();
});

test('EOF before initialize: exit status 0', { timeout: 30000 }, async (t) => {
  const server = startServer(t);
  server.closeStdin();
  const exit = await server.waitExit(3000);
  assert.ok(exit, 'still running 3 s after EOF');
  assert.deepEqual(exit, { code: 0, signal: null });
  server.assertClean();
});

test('EOF during a long run and with an open session: exit 0 within 5 s, no process left', { timeout: 60000 }, async (t) => {
  const server = startServer(t);
  await server.initialize();
  const session = await server.callTool('create_session', { language: 'python' });
  assert.equal(session.isError, false, describe(session));
  const warm = await server.callTool('execute_code', { session_id: session.structuredContent.session_id, code: 'open("a.txt", "w").write("x")' });
  assert.equal(warm.isError, false, describe(warm));
  const { procs } = await startLongRun(server);
  const started = Date.now();
  server.closeStdin();
  const exit = await server.waitExit(5000);
  assert.ok(exit, `still running 5 s after EOF with a run in flight; stderr:\n${server.stderrTail()}`);
  assert.deepEqual(exit, { code: 0, signal: null }, `exit after ${Date.now() - started} ms`);
  const left = await waitGone(procs, 2000);
  assert.deepEqual(left, [], `processes of the server still running after it exited:\n  ${describeProcs(left)}`);
  server.assertClean();
});

test('SIGTERM during a long run: exit status 0, no process left', { timeout: 60000 }, async (t) => {
  const server = startServer(t);
  await server.initialize();
  const { call, procs } = await startLongRun(server);
  process.kill(server.pid, 'SIGTERM');
  const exit = await server.waitExit(5000);
  assert.ok(exit, `still running 5 s after SIGTERM; stderr:\n${server.stderrTail()}`);
  assert.deepEqual(exit, { code: 0, signal: null });
  const left = await waitGone(procs, 2000);
  assert.deepEqual(left, [], `processes of the server still running after it exited:\n  ${describeProcs(left)}`);
  // The in-flight call may have been answered (cancelled/error) or not; it must not hang.
  await call.then(() => {}, () => {});
  server.assertClean();
});
