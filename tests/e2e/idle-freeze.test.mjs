// Idle sessions cost nothing (docs/sessions.md): a session left idle for `--idle-freeze` seconds
// is frozen, every process of its sandbox stopped (cgroup v2's cgroup.freeze where the sandbox has
// a cgroup of its own, else SIGSTOP from its init), and get_session and list_sessions say so. The
// next call or file operation thaws it first, and a live interpreter's state survives. A session
// in use is never frozen under its call. The frozen state is checked from the host, in /proc.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { descendants, describeProcs, waitGone } from './support/procs.mjs';
import { describe, sleep, textOf, withServer } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

const BACKEND = process.env.PADDOCK_BACKEND || 'native';
// Only the native backend freezes sessions; the others' sessions always say frozen: false.
const NATIVE = BACKEND === 'native';
// No warm sandboxes or ready kernels: the server's only sandbox is then the session's.
const ARGS = ['--idle-freeze', '1', '--warm', '0'];

function nsPids(pid) {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^NSpid:\s*(.*)$/m);
    return line ? line[1].trim().split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

// The sandbox's own processes: everything below a PID namespace's first process (paddock's
// relay and the sandbox's init), less those firsts themselves.
function sandboxProcesses(serverPid) {
  const all = descendants(serverPid);
  const firsts = new Set(all.filter((p) => nsPids(p.pid).at(-1) === 1).map((p) => p.pid));
  const below = new Set();
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (below.has(p.pid) || firsts.has(p.pid)) continue;
      if (firsts.has(p.ppid) || below.has(p.ppid)) {
        below.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => below.has(p.pid));
}

const cgroupMount = (() => {
  const line = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => / - cgroup2 /.test(l));
  return line ? line.split(' ')[4] : undefined;
})();

// Whether the kernel holds the process stopped: in a frozen cgroup (cgroup.freeze reads 1), or
// stopped by a signal (State T).
function stopped(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    if (/^State:\s*T/m.test(status)) return true;
    const unified = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').find((l) => l.startsWith('0::'));
    if (!cgroupMount || !unified) return false;
    const freeze = `${cgroupMount}${unified.slice(3)}/cgroup.freeze`;
    return fs.existsSync(freeze) && fs.readFileSync(freeze, 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

async function createSession(server) {
  // A first session of a user may unpack the image first: longer than a call's usual minute.
  const created = await server.callTool('create_session', { language: 'python' }, { timeoutMs: 300000 });
  assert.equal(created.isError, false, describe(created));
  if (NATIVE) assert.equal(created.structuredContent.live, true, describe(created));
  return created.structuredContent.session_id;
}

async function getSession(server, session_id) {
  const got = await server.callTool('get_session', { session_id });
  await server.checkOutputSchema('get_session', got);
  assert.equal(got.isError, false, describe(got));
  return got;
}

// Polls get_session until the session says frozen: true; a generous deadline, not a speed test.
async function waitFrozen(server, session_id, deadlineMs = 60000) {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const got = await getSession(server, session_id);
    if (got.structuredContent.frozen === true) return got;
    assert.ok(Date.now() < end, `not frozen after ${deadlineMs} ms idle: ${describe(got)}`);
    await sleep(200);
  }
}

async function ok(server, name, args) {
  const result = await server.callTool(name, args);
  assert.equal(result.isError, false, `${name}: ${describe(result)}`);
  return result;
}

test('an idle live session is frozen with its processes stopped, and the next call thaws it with its variables', { timeout: 180000 }, async (t) => {
  await withServer(t, { args: ARGS }, async (server) => {
    await server.initialize();
    const session_id = await createSession(server);
    await ok(server, 'execute_code', { session_id, code: 'x = 41' });
    if (!NATIVE) {
      await sleep(3000);
      const got = await getSession(server, session_id);
      assert.equal(got.structuredContent.frozen, false, describe(got));
      return;
    }
    const frozen = await waitFrozen(server, session_id);
    assert.match(textOf(frozen), /frozen/, describe(frozen));
    const procs = sandboxProcesses(server.pid);
    assert.ok(procs.length >= 2, `the kernel bridge and the kernel at least: ${describeProcs(procs)}`);
    const running = procs.filter((p) => !stopped(p.pid));
    assert.deepEqual(running, [], `still running in a frozen session:\n  ${describeProcs(running)}`);

    const listed = await ok(server, 'list_sessions', {});
    await server.checkOutputSchema('list_sessions', listed);
    const mine = listed.structuredContent.sessions.find((s) => s.session_id === session_id);
    assert.equal(mine?.frozen, true, describe(listed));
    assert.match(textOf(listed), /frozen/, describe(listed));

    const next = await ok(server, 'execute_code', { session_id, code: 'x + 1' });
    assert.equal(next.structuredContent.result, '42', describe(next));
    assert.equal(next.structuredContent.state_lost, false, describe(next));
    // With --idle-freeze 1 the session freezes again a second after a call: on a loaded machine
    // that can come before the processes are read. A reading counts only when the session was
    // not frozen again by the time it was taken (get_session after it says so).
    let again = [];
    for (let attempt = 0; ; ++attempt) {
      if (attempt > 0) await ok(server, 'execute_code', { session_id, code: 'x' });
      again = sandboxProcesses(server.pid);
      const after = await getSession(server, session_id);
      if (!after.structuredContent.frozen) break;
      assert.ok(attempt < 4, `frozen again before every reading: ${describe(after)}`);
    }
    assert.deepEqual(again.filter((p) => stopped(p.pid)), [], `still stopped after the call: ${describeProcs(again)}`);
  });
});

test('a file operation thaws a frozen session first', { timeout: 180000 }, async (t) => {
  await withServer(t, { args: ARGS }, async (server) => {
    await server.initialize();
    const session_id = await createSession(server);
    await ok(server, 'execute_code', { session_id, code: 'open("kept.txt", "w").write("before")\ny = 7' });
    if (!NATIVE) return;
    await waitFrozen(server, session_id);
    const read = await ok(server, 'read_file', { session_id, path: 'kept.txt' });
    assert.match(textOf(read), /before/, describe(read));
    const after = await getSession(server, session_id);
    assert.equal(after.structuredContent.frozen, false, describe(after));
    // Frozen again, then thawed by a write; the interpreter still has its variable.
    await waitFrozen(server, session_id);
    await ok(server, 'write_file', { session_id, path: 'new.txt', content: 'after' });
    const used = await ok(server, 'execute_code', { session_id, code: 'print(y, open("new.txt").read())' });
    assert.equal(used.structuredContent.stdout, '7 after\n', describe(used));
  });
});

test('a session is never frozen while a call runs in it', { timeout: 180000 }, async (t) => {
  await withServer(t, { args: ARGS }, async (server) => {
    await server.initialize();
    const session_id = await createSession(server);
    await ok(server, 'execute_code', { session_id, code: 'z = 5' });
    if (!NATIVE) return;
    // Well past the idle time, in steps the sandbox must take itself: a stopped process would
    // not count on.
    const call = server.callTool('execute_code', {
      session_id,
      code: 'import time\nn = 0\nfor _ in range(40):\n    time.sleep(0.1)\n    n += 1\nprint(n, z)',
      timeout: 120,
    });
    let finished = false;
    const result = call.finally(() => { finished = true; });
    let polls = 0;
    while (!finished) {
      const got = await getSession(server, session_id);
      if (!finished) {
        assert.equal(got.structuredContent.frozen, false, `frozen during a call: ${describe(got)}`);
        polls += 1;
      }
      await sleep(100);
    }
    const done = await result;
    assert.equal(done.isError, false, describe(done));
    assert.equal(done.structuredContent.stdout, '40 5\n', describe(done));
    assert.ok(polls > 0, 'get_session was asked during the call');
    // The setting is in force: once idle, the same session does freeze.
    await waitFrozen(server, session_id);
  });
});

test('--idle-freeze 0 turns freezing off', { timeout: 60000 }, async (t) => {
  await withServer(t, { args: ['--idle-freeze', '0', '--warm', '0'] }, async (server) => {
    await server.initialize();
    const session_id = await createSession(server);
    await ok(server, 'execute_code', { session_id, code: 'w = 1' });
    await sleep(3000);
    const got = await getSession(server, session_id);
    assert.equal(got.structuredContent.frozen, false, `--idle-freeze 0 froze it: ${describe(got)}`);
  });
});

test('a frozen session closes like any other: nothing of it is left', { timeout: 180000 }, async (t) => {
  await withServer(t, { args: ARGS }, async (server) => {
    await server.initialize();
    const session_id = await createSession(server);
    await ok(server, 'execute_code', { session_id, code: 'v = 3' });
    if (!NATIVE) return;
    await waitFrozen(server, session_id);
    const procs = sandboxProcesses(server.pid);
    assert.ok(procs.length >= 2, describeProcs(procs));
    const closed = await ok(server, 'close_session', { session_id });
    assert.equal(closed.structuredContent.closed, true, describe(closed));
    const left = await waitGone(procs, 30000);
    assert.deepEqual(left, [], `left after close_session:\n  ${describeProcs(left)}`);
  });
});

test('a session is not frozen while create_session sets it up (a kernel slow to start)', { timeout: 180000 }, async (t) => {
  if (!NATIVE) return;
  // The python policy with a kernel start-up that takes several idle periods.
  // From the checkout (tests/e2e/..), or from the copy of the source scripts/test lays out beside
  // its copy of tests/e2e.
  const policyFile = ['../../policies/python.json', '../source/policies/python.json']
    .map((relative) => new URL(relative, import.meta.url))
    .find((candidate) => fs.existsSync(candidate));
  assert.ok(policyFile, 'policies/python.json is neither in the checkout nor beside the suite');
  const policy = JSON.parse(fs.readFileSync(policyFile, 'utf8'));
  const kernel = { ...policy.kernel, startup: `${policy.kernel.startup}\nimport time as _t\n_t.sleep(4)\ndel _t` };
  const policies = temporaryFolder(t, 'paddock-e2e-policies-');
  fs.writeFileSync(path.join(policies, 'python.json'), JSON.stringify({ name: 'python', kernel }));
  fs.chmodSync(policies, 0o755);
  await withServer(t, { args: [...ARGS, '--policy-dir', policies] }, async (server) => {
    await server.initialize();
    const created = await server.callTool('create_session', { language: 'python' }, { timeoutMs: 300000 });
    assert.equal(created.isError, false, describe(created));
    assert.equal(created.structuredContent.live, true, `the kernel was stopped while it started: ${describe(created)}`);
    // Stopped while it started, the kernel's start-up overruns and the kernel is replaced.
    assert.equal(created.structuredContent.interpreter.restarts, 0, describe(created));
    assert.equal(created.structuredContent.interpreter.last_state_lost, undefined, describe(created));
    const { session_id } = created.structuredContent;
    const used = await ok(server, 'execute_code', { session_id, code: 'u = 6\nu * 7' });
    assert.equal(used.structuredContent.result, '42', describe(used));
  });
});
