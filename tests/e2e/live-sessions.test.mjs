// Live sessions (docs/sessions.md), through the official clients: on the native backend a python
// or R session keeps a Jupyter kernel, so variables, imports and loaded data persist from one
// execute_code call to the next, figures come back from the cell that drew them, a cell past its
// timeout or cancelled is interrupted and keeps the state, a dead interpreter is replaced (files
// kept), and nothing a cell starts outlives it. The container backends (docker, podman,
// kubernetes) keep no interpreter: their sessions say live: false with the reason and run each
// call as a new process, and each test checks that behaviour there instead. Every line the server
// writes is checked against the MCP schema (support/transport.mjs) and every structuredContent
// against its tool's outputSchema (call() below).
import assert from 'node:assert/strict';
import test from 'node:test';
import { MODERN } from './support/config.mjs';
import { connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { descendants, describeProcs, settledDescendants, stillAlive, waitForDescendants, waitGone } from './support/procs.mjs';
import { checkAgainstDeclaredSchema } from './support/schemas.mjs';
import { describe, sleep } from './support/server.mjs';

const BACKEND = process.env.PADDOCK_BACKEND || 'native';
// Only the native backend keeps an interpreter between calls.
const LIVE = BACKEND === 'native';
const NOT_LIVE_BACKEND = /^this backend keeps no interpreter between calls: each call of a session runs as a new process/;
// A live session's own processes between calls: the kernel bridge and the kernel.
const isKernel = (p) => /ipykernel|IRkernel|kernel bridge/.test(p.cmdline);

const textOf = (result) => (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
const imagesOf = (result) => (result.content || []).filter((c) => c.type === 'image');
const key = (p) => `${p.pid}/${p.starttime}`;

// A client of either SDK major (1: the 1.x client, legacy era; 2: the 2.x client pinned to the
// modern era; '2-legacy': the 2.x client with initialize), with call(name, args) that checks the
// result's structuredContent against the tool's outputSchema from tools/list.
async function connect(t, sdk, args) {
  const conn = sdk === 1 ? await connectSdk1(t, { args }) : await connectSdk2(t, { mode: sdk === 2 ? MODERN : 'legacy', args });
  const { tools } = await conn.client.listTools();
  const schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));
  conn.call = async (name, args, { signal, timeout = 120000 } = {}) => {
    const options = { signal, timeout };
    const result = sdk === 1
      ? await conn.client.callTool({ name, arguments: args }, undefined, options)
      : await conn.client.callTool({ name, arguments: args }, options);
    const schema = schemas.get(name);
    assert.ok(schemas.has(name), `tools/list has no tool ${name}`);
    if (schema && !(result.isError && result.structuredContent === undefined)) {
      assert.ok(result.structuredContent !== undefined, `${name} declares an outputSchema, its result has no structuredContent: ${describe(result)}`);
      assert.deepEqual(checkAgainstDeclaredSchema(schema, result.structuredContent), [],
        `${name}'s structuredContent does not match its outputSchema: ${describe(result)}`);
    }
    return result;
  };
  return conn;
}

// A call that must succeed.
async function ok(conn, name, args) {
  const result = await conn.call(name, args);
  assert.equal(result.isError, false, `${name} ${JSON.stringify(args).slice(0, 300)}: ${describe(result)}`);
  return result;
}

const run = (conn, session_id, code, extra = {}) => conn.call('execute_code', { session_id, code, ...extra });

// The sessions created live (createSession checked that they are exactly where they must be).
const liveSessions = new Set();

// A cell that must succeed and print `stdout` (and, in a live session, show `result` when given).
async function expectCell(conn, session_id, code, { stdout, result, images = 0 } = {}) {
  const r = await run(conn, session_id, code);
  const what = `${JSON.stringify(code)}: ${describe(r)}`;
  assert.equal(r.isError, false, what);
  if (stdout !== undefined) assert.equal(r.structuredContent.stdout, stdout, what);
  if (result !== undefined) assert.equal(r.structuredContent.result, result, what);
  assert.equal(imagesOf(r).length, images, `image blocks of ${what}`);
  if (liveSessions.has(session_id)) {
    assert.equal(r.structuredContent.live, true, what);
    assert.equal(r.structuredContent.state_lost, false, what);
    assert.ok(Number.isInteger(r.structuredContent.execution_count), what);
  } else {
    assert.notEqual(r.structuredContent.live, true, what);
    assert.equal(r.structuredContent.execution_count, undefined, what);
  }
  return r;
}

// create_session (or get_session, restart_session) says live or not, with the interpreter's
// state or the reason; `kernel` names the kernelspec a live session must run.
function expectLiveness(state, { kernel, reason = NOT_LIVE_BACKEND } = {}) {
  const what = JSON.stringify(state);
  if (!LIVE || !kernel) {
    assert.equal(state.live, false, what);
    assert.match(state.not_live_reason ?? '', reason, what);
    assert.equal(state.interpreter, undefined, what);
    return;
  }
  assert.equal(state.live, true, what);
  assert.equal(state.not_live_reason, undefined, what);
  const i = state.interpreter;
  assert.ok(i && typeof i === 'object', what);
  assert.equal(i.kernel, kernel, what);
  assert.ok(['idle', 'busy', 'starting'].includes(i.state), what);
  assert.ok(i.implementation && i.language_version, what);
  assert.ok(Number.isInteger(i.cells) && Number.isInteger(i.restarts), what);
}

async function createSession(conn, args, expected) {
  const created = await ok(conn, 'create_session', args);
  const state = created.structuredContent;
  assert.equal(typeof state.session_id, 'string', describe(created));
  expectLiveness(state, expected);
  if (state.live) liveSessions.add(state.session_id);
  return state;
}

// What list_files shows of /work by default, less .local (the user site directory, where
// libraries are installed and which a live python session's interpreter puts on its path).
async function userFiles(conn, session_id) {
  const listed = await ok(conn, 'list_files', { session_id });
  return listed.structuredContent.entries.map((e) => e.name).filter((name) => name !== '.local');
}

function expectPng(image, what) {
  assert.equal(image.mimeType, 'image/png', what);
  const bytes = Buffer.from(image.data, 'base64');
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${what}: not a PNG`);
}

test('python: a variable, an import and a DataFrame from a CSV persist; a figure comes back only from the call that drew it (1.x client)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, 1);
  const created = await createSession(conn, { language: 'python' }, { kernel: 'python3' });
  const { session_id } = created;
  if (LIVE) {
    assert.equal(created.interpreter.cells, 0, describe(created));
    assert.equal(created.interpreter.restarts, 0, describe(created));
    assert.match(created.interpreter.language_version, /^3\./, describe(created));
  }
  await ok(conn, 'write_file', { session_id, path: 'data.csv', content: 't,value\n1,10\n2,20\n3,30\n' });
  const load = 'x = 41\nimport numpy as np\nimport pandas as pd\ndf = pd.read_csv("/work/data.csv")';
  const draw = 'import matplotlib.pyplot as plt\nplt.plot(df["t"], df["value"])\nplt.title("from the DataFrame")\nplt.show()';

  if (!LIVE) {
    // Each call is a new process: the files stay, the variables do not.
    await expectCell(conn, session_id, load, { stdout: '' });
    const lost = await run(conn, session_id, 'print(x + 1)');
    assert.equal(lost.isError, true, `a variable must not persist without a live interpreter: ${describe(lost)}`);
    assert.match(lost.structuredContent.stderr, /NameError/, describe(lost));
    const drawn = await expectCell(conn, session_id, `import pandas as pd\ndf = pd.read_csv("data.csv")\n${draw}`, { images: 1 });
    expectPng(imagesOf(drawn)[0], describe(drawn));
    await expectCell(conn, session_id, 'print(open("data.csv").read().count("\\n"))', { stdout: '4\n' });
    assert.deepEqual(await userFiles(conn, session_id), ['data.csv']);
    await finishClient(conn);
    return;
  }

  // Call 1 defines x, imports numpy and pandas once, and loads the CSV.
  const first = await expectCell(conn, session_id, load, { stdout: '' });
  assert.equal(first.structuredContent.execution_count, 1, describe(first));
  assert.equal(first.structuredContent.result, undefined, `an assignment shows no value: ${describe(first)}`);
  // Call 2 uses all three; its final expression's value is the result.
  const second = await expectCell(conn, session_id, 'print(x + 1)\nprint(int(np.arange(4).sum()), len(df))\nint(df["value"].sum())',
    { stdout: '42\n6 3\n', result: '60' });
  assert.equal(second.structuredContent.execution_count, 2, describe(second));
  // Call 3 draws the DataFrame: the figure comes back as an image block and an artifact.
  const third = await expectCell(conn, session_id, draw, { images: 1 });
  expectPng(imagesOf(third)[0], describe(third));
  const figures = third.structuredContent.artifacts;
  assert.equal(figures.length, 1, describe(third));
  assert.match(figures[0].name, /(^|\/)figure-\d+\.png$/, describe(third));
  assert.equal(figures[0].mime_type, 'image/png', describe(third));
  // Call 4 still has everything, and draws nothing again.
  const fourth = await expectCell(conn, session_id, 'print(df.shape, type(np).__name__)\nx', { stdout: '(3, 2) module\n', result: '41' });
  assert.deepEqual(fourth.structuredContent.artifacts, [], describe(fourth));
  assert.equal(fourth.structuredContent.execution_count, 4, describe(fourth));

  // The interpreter leaves nothing of its own in sight in /work (no .ipython, .jupyter,
  // connection files): the session's files are the CSV.
  assert.deepEqual(await userFiles(conn, session_id), ['data.csv']);

  const state = (await ok(conn, 'get_session', { session_id })).structuredContent;
  expectLiveness(state, { kernel: 'python3' });
  assert.equal(state.interpreter.cells, 4, JSON.stringify(state));
  assert.equal(state.interpreter.state, 'idle', JSON.stringify(state));
  assert.equal(state.processes, 2, `between calls a live session runs its kernel bridge and its kernel: ${JSON.stringify(state)}`);
  await finishClient(conn);
});

test('python: a cell past its timeout is interrupted and keeps the state; a dead interpreter loses it, not the files; restart_session (2.x client)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, 2);
  const { session_id } = await createSession(conn, { language: 'python' }, { kernel: 'python3' });
  await expectCell(conn, session_id, 'x = 41\nopen("kept.txt", "w").write("kept")');

  const started = Date.now();
  const busy = await run(conn, session_id, 'while True: pass', { timeout: 2 });
  const took = Date.now() - started;
  assert.equal(busy.structuredContent.timed_out, true, describe(busy));
  assert.equal(busy.isError, true, describe(busy));

  if (!LIVE) {
    // A new process per call: the loop's process is killed and x never persisted anyway.
    const lost = await run(conn, session_id, 'print(x)');
    assert.equal(lost.isError, true, describe(lost));
    assert.match(lost.structuredContent.stderr, /NameError/, describe(lost));
    await expectCell(conn, session_id, 'print(open("kept.txt").read())', { stdout: 'kept\n' });
    const restart = await conn.call('restart_session', { session_id });
    assert.equal(restart.isError, true, `restart_session in a session that is not live: ${describe(restart)}`);
    assert.match(textOf(restart), /not live/, describe(restart));
    // stdin reaches a program that is a process of its own.
    const piped = await run(conn, session_id, 'print(input().upper())', { stdin: 'abc\n' });
    assert.equal(piped.structuredContent.stdout, 'ABC\n', describe(piped));
    await finishClient(conn);
    return;
  }

  // Interrupted within the 2 s timeout plus the grace, and the kernel came back: x is still there.
  assert.ok(took < 5000, `a 2 s timeout came back after ${took} ms`);
  assert.equal(busy.structuredContent.state_lost, false, describe(busy));
  assert.equal(busy.structuredContent.error?.ename, 'KeyboardInterrupt', describe(busy));
  await expectCell(conn, session_id, 'x', { result: '41' });

  // The interpreter dies: a new one starts, the result says so, the files stay, x is gone.
  const died = await run(conn, session_id, 'import os; os._exit(1)');
  assert.equal(died.isError, true, describe(died));
  assert.equal(died.structuredContent.state_lost, true, describe(died));
  const reason = died.structuredContent.state_lost_reason;
  assert.match(reason ?? '', /exit/, describe(died));
  await expectCell(conn, session_id, 'print(open("kept.txt").read())', { stdout: 'kept\n' });
  const gone = await run(conn, session_id, 'x');
  assert.equal(gone.isError, true, describe(gone));
  assert.equal(gone.structuredContent.error?.ename, 'NameError', describe(gone));
  assert.equal(gone.structuredContent.state_lost, false, describe(gone));
  const after = (await ok(conn, 'get_session', { session_id })).structuredContent;
  assert.equal(after.interpreter.restarts, 1, JSON.stringify(after));
  assert.equal(after.interpreter.last_state_lost, reason, JSON.stringify(after));

  // restart_session on purpose: the variables go, the files stay.
  await expectCell(conn, session_id, 'y = 7\nopen("also.txt", "w").write("also")');
  const restarted = await ok(conn, 'restart_session', { session_id });
  assert.equal(restarted.structuredContent.session_id, session_id, describe(restarted));
  expectLiveness(restarted.structuredContent, { kernel: 'python3' });
  assert.equal(restarted.structuredContent.interpreter.restarts, 2, describe(restarted));
  await expectCell(conn, session_id, 'print(open("kept.txt").read(), open("also.txt").read())\n"y" in globals()',
    { stdout: 'kept also\n', result: 'False' });

  // A live interpreter has no stdin to give: refused, with what to do instead.
  const stdin = await conn.call('execute_code', { session_id, code: 'print(input())', stdin: 'abc\n' });
  assert.equal(stdin.isError, true, describe(stdin));
  assert.match(textOf(stdin), /stdin/, describe(stdin));
  await finishClient(conn);
});

test('r: a session keeps a data frame and returns a base plot (2.x client, legacy mode)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, '2-legacy');
  const { session_id } = await createSession(conn, { language: 'r' }, { kernel: 'ir' });
  // (Not `df`: that is R's own F density, which always exists.)
  const define = 'kept <- data.frame(a = 1:3, b = c(4, 5, 6))';
  if (!LIVE) {
    await expectCell(conn, session_id, define);
    await expectCell(conn, session_id, 'cat(exists("kept"), "\\n")', { stdout: 'FALSE \n' });
    const drawn = await expectCell(conn, session_id, `${define}\nplot(kept$a, kept$b)`, { images: 1 });
    expectPng(imagesOf(drawn)[0], describe(drawn));
    await finishClient(conn);
    return;
  }
  await expectCell(conn, session_id, define, { stdout: '' });
  await expectCell(conn, session_id, 'cat(sprintf("%d rows, sum %g\\n", nrow(kept), sum(kept$b)))', { stdout: '3 rows, sum 15\n' });
  const drawn = await expectCell(conn, session_id, 'plot(kept$a, kept$b, main = "kept")', { images: 1 });
  expectPng(imagesOf(drawn)[0], describe(drawn));
  assert.equal(drawn.structuredContent.artifacts.length, 1, describe(drawn));
  // An R error is the cell's error; the data frame survives it.
  const failed = await run(conn, session_id, 'stop("boom")');
  assert.equal(failed.isError, true, describe(failed));
  assert.match(failed.structuredContent.error?.evalue ?? '', /boom/, describe(failed));
  await expectCell(conn, session_id, 'kept$c <- kept$a * kept$b\ncat(kept$c, "\\n")', { stdout: '4 10 18 \n' });
  await finishClient(conn);
});

test('two sessions do not see each other\'s variables, and a call without a session sees neither (2.x client)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, 2);
  const a = (await createSession(conn, { language: 'python' }, { kernel: 'python3' })).session_id;
  const b = (await createSession(conn, { language: 'python' }, { kernel: 'python3' })).session_id;
  await expectCell(conn, a, 'secret = "in a"\nonly_a = 1');
  await expectCell(conn, b, 'secret = "in b"');
  const look = 'print(globals().get("secret"), "only_a" in globals())';
  await expectCell(conn, a, look, { stdout: LIVE ? 'in a True\n' : 'None False\n' });
  await expectCell(conn, b, look, { stdout: LIVE ? 'in b False\n' : 'None False\n' });
  const fresh = await ok(conn, 'execute_code', { code: look });
  assert.equal(fresh.structuredContent.stdout, 'None False\n', describe(fresh));
  assert.notEqual(fresh.structuredContent.live, true, describe(fresh));
  await finishClient(conn);
});

test('close_session ends the session\'s kernel and bridge, and only them; the server\'s exit ends the rest (1.x client)', { timeout: 120000 }, async (t) => {
  // No pools: a kernel the server makes ready after session a would be counted as a's here, and
  // then become session b (the ready kernels have their own tests, ready_kernel_test.cc).
  const conn = await connect(t, 1, ['--warm', '0']);
  const { server } = conn;
  const known = new Set((await settledDescendants(server.pid)).map(key));
  const newSince = async (ready) => {
    const list = await waitForDescendants(server.pid, (all) => ready(all.filter((p) => !known.has(key(p)))), 15000);
    assert.ok(list, `the session never showed up below the server: ${describeProcs(descendants(server.pid))}`);
    const fresh = list.filter((p) => !known.has(key(p)));
    for (const p of fresh) known.add(key(p));
    return fresh;
  };
  const hasKernel = (list) => !LIVE || (list.some((p) => /ipykernel/.test(p.cmdline)) && list.some((p) => /kernel bridge/.test(p.cmdline)));
  const a = (await createSession(conn, { language: 'python' }, { kernel: 'python3' })).session_id;
  await expectCell(conn, a, 'x = 1');
  const procsA = await newSince(hasKernel);
  const b = (await createSession(conn, { language: 'python' }, { kernel: 'python3' })).session_id;
  await expectCell(conn, b, 'y = 2');
  const procsB = await newSince(hasKernel);

  const state = (await ok(conn, 'get_session', { session_id: a })).structuredContent;
  assert.equal(state.processes, LIVE ? 2 : 0, JSON.stringify(state));

  const closed = await ok(conn, 'close_session', { session_id: a });
  assert.equal(closed.structuredContent.closed, true, describe(closed));
  const left = await waitGone(procsA, 5000);
  assert.deepEqual(left, [], `5 s after close_session these of the session are still running:\n  ${describeProcs(left)}`);
  assert.deepEqual(stillAlive(procsB).map(key), procsB.map(key), 'closing one session ends no process of another');
  const kernels = descendants(server.pid).filter(isKernel);
  assert.equal(kernels.length, LIVE ? 2 : 0, `one bridge and one kernel left, session b's:\n  ${describeProcs(kernels)}`);
  await expectCell(conn, b, LIVE ? 'print(y)' : 'print(2)', { stdout: '2\n' });
  const closedUse = await conn.call('get_session', { session_id: a });
  assert.equal(closedUse.isError, true, describe(closedUse));

  // The client goes away with session b still open: its kernel goes with the server.
  await finishClient(conn);
  const remaining = await waitGone(procsB, 5000);
  assert.deepEqual(remaining, [], `5 s after the server exited these are still running:\n  ${describeProcs(remaining)}`);
});

test('a process a cell started is dead by the next cell (2.x client)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, 2);
  const { server } = conn;
  const { session_id } = await createSession(conn, { language: 'python' }, { kernel: 'python3' });
  // Its output goes nowhere: on kubernetes an exec waits for every holder of its stdout, so a
  // child that keeps it runs the call into its timeout (a limit of that backend, not of this).
  const spawned = await expectCell(conn, session_id, 'import subprocess\np = subprocess.Popen(["sleep", "100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint(p.pid)');
  assert.match(spawned.structuredContent.stdout, /^\d+\n$/, describe(spawned));
  // No `sleep 100` below the server (or in its containers) once the call has returned.
  const sleeps = () => descendants(server.pid).filter((p) => p.cmdline === 'sleep 100');
  let sleeping = sleeps();
  for (let i = 0; i < 20 && sleeping.length; i++) {
    await sleep(100);
    sleeping = sleeps();
  }
  assert.deepEqual(sleeping, [], `after the cell: ${describeProcs(sleeping)}`);
  // Nor running inside the sandbox (in a live interpreter it is a zombie until the cell's Popen
  // object reaps it).
  const scan = [
    'import os',
    'running = []',
    'for pid in filter(str.isdigit, os.listdir("/proc")):',
    '    try:',
    '        stat = open(f"/proc/{pid}/stat").read()',
    '        argv = open(f"/proc/{pid}/cmdline").read().split(chr(0))',
    '    except OSError:',
    '        continue',
    '    if stat[stat.rindex(")") + 2] != "Z" and argv[:2] == ["sleep", "100"]:',
    '        running.append(pid)',
    'print(running)',
  ].join('\n');
  await expectCell(conn, session_id, scan, { stdout: '[]\n' });
  if (LIVE) {
    // The cell's Popen object is still there; its process was killed (SIGKILL) when the cell ended.
    await expectCell(conn, session_id, 'print(p.poll())', { stdout: '-9\n' });
  }
  await finishClient(conn);
});

test('notifications/cancelled interrupts a running cell and the session keeps working (1.x client)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, 1);
  const { client, server, transport } = conn;
  const { session_id } = await createSession(conn, { language: 'python' }, { kernel: 'python3' });
  await expectCell(conn, session_id, 'y = 5\nopen("kept.txt", "w").write("kept")');
  const controller = new AbortController();
  const call = client.callTool(
    { name: 'execute_code', arguments: { session_id, code: 'import time\nprint("sleeping", flush=True)\ntime.sleep(60)', timeout: 90 } },
    undefined, { signal: controller.signal, timeout: 120000 });
  call.catch(() => {});
  // Running: the interpreter is busy (live) or the call's processes are there.
  let running = false;
  for (let i = 0; i < 150 && !running; i++) {
    await sleep(100);
    const state = (await ok(conn, 'get_session', { session_id })).structuredContent;
    running = LIVE ? state.interpreter?.state === 'busy' : state.processes > 0;
  }
  assert.ok(running, 'the cell never started');
  await sleep(300);
  controller.abort('e2e cancels the cell');
  await assert.rejects(call, 'the aborted call rejects on the client');
  const cancelled = transport.sent.find((m) => m.method === 'notifications/cancelled');
  assert.ok(cancelled, 'the client sent notifications/cancelled');

  // Calls to a session are served one at a time: this one runs only once the cancelled cell has
  // stopped, so its speed says the cell was interrupted.
  const started = Date.now();
  await expectCell(conn, session_id, LIVE ? 'print(y, open("kept.txt").read())' : 'print(open("kept.txt").read())',
    { stdout: LIVE ? '5 kept\n' : 'kept\n' });
  const took = Date.now() - started;
  assert.ok(took < 5000, `the next call came back ${took} ms after the cancel`);
  if (LIVE) {
    const state = (await ok(conn, 'get_session', { session_id })).structuredContent;
    assert.equal(state.interpreter.state, 'idle', JSON.stringify(state));
    assert.equal(state.interpreter.restarts, 0, `the interrupt was enough, no restart: ${JSON.stringify(state)}`);
  }
  await sleep(300);
  const late = server.messages.filter((m) => 'id' in m && m.id === cancelled.params.requestId && !('method' in m));
  assert.deepEqual(late, [], 'a cancelled request should not be answered');
  await finishClient(conn);
});

test('javascript sessions, and python with live: false, are not live: each call is a new process (2.x client, legacy mode)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, '2-legacy');
  const js = await createSession(conn, { language: 'javascript' },
    { reason: /^javascript has no interpreter that stays between calls\b.*\bnew process/ });
  const { session_id } = js;
  await expectCell(conn, session_id, 'globalThis.x = 41\nrequire("fs").writeFileSync("n.txt", "kept")');
  await expectCell(conn, session_id, 'console.log(typeof x, require("fs").readFileSync("n.txt", "utf8"))', { stdout: 'undefined kept\n' });
  const state = (await ok(conn, 'get_session', { session_id })).structuredContent;
  assert.equal(state.live, false, JSON.stringify(state));
  assert.equal(state.not_live_reason, js.not_live_reason, JSON.stringify(state));
  const restart = await conn.call('restart_session', { session_id });
  assert.equal(restart.isError, true, describe(restart));
  assert.match(textOf(restart), /not live/, describe(restart));

  // python asked not to be live: the native backend says why it is not; containers say theirs.
  const py = await createSession(conn, { language: 'python', live: false },
    { reason: LIVE ? /^created with live: false\b/ : /new process/ });
  await expectCell(conn, py.session_id, 'x = 41');
  const lost = await run(conn, py.session_id, 'print(x)');
  assert.equal(lost.isError, true, describe(lost));
  assert.match(lost.structuredContent.stderr, /NameError/, describe(lost));
  await finishClient(conn);
});

test('python: %pip, !pip and the like in a live cell fail as errors that name install_libraries; nothing says success (2.x client)', { timeout: 180000 }, async (t) => {
  const conn = await connect(t, 2);
  const { session_id } = await createSession(conn, { language: 'python' }, { kernel: 'python3' });
  const spellings = ['%pip install requests', '!pip install requests', '%pip3 install requests',
    '!pip3 install -q requests', '!python3 -m pip install requests', 'import sys\n!{sys.executable} -m pip install requests',
    'pip install requests', '%conda install requests', 'x = !pip install requests', '%%bash\npip install requests',
    'for i in range(1):\n    !pip install requests'];
  for (const code of spellings) {
    const r = await run(conn, session_id, code);
    const what = `${JSON.stringify(code)}: ${describe(r)}`;
    assert.equal(r.isError, true, what);
    if (!LIVE) continue;  // a new process each call: these lines are python's syntax errors there
    const first = textOf(r).split('\n')[0];
    assert.match(first, /install_libraries/, what);
    assert.match(first, /libraries/, what);
    assert.doesNotMatch(textOf(r), /\x1b|externally-managed/, what);
    assert.equal(r.structuredContent.error.ename, 'InstallRefused', what);
  }
  if (LIVE) {
    // What installs nothing still works, and a string that only says "!pip install" is a string.
    await expectCell(conn, session_id, 's = "!pip install requests"\nprint(s)', { stdout: '!pip install requests\n' });
    const version = await expectCell(conn, session_id, '%pip --version');
    assert.match(version.structuredContent.stdout, /^pip \d/, describe(version));
  }
  await finishClient(conn);
});

test('python: a live cell\'s streams come without terminal colour codes (1.x client)', { timeout: 120000 }, async (t) => {
  const conn = await connect(t, 1);
  const { session_id } = await createSession(conn, { language: 'python' }, { kernel: 'python3' });
  const r = await run(conn, session_id, 'import sys\nprint("\\x1b[1;31mred\\x1b[0m")\nsys.stderr.write("\\x1b[33mwarn\\x1b[0m\\n")');
  assert.equal(r.isError, false, describe(r));
  // A new process's output is its own bytes; a live kernel's streams are the notebook's text.
  const [red, warn] = LIVE ? ['red', 'warn'] : ['\x1b[1;31mred\x1b[0m', '\x1b[33mwarn\x1b[0m'];
  assert.equal(r.structuredContent.stdout, `${red}\n`, describe(r));
  assert.equal(r.structuredContent.stderr, `${warn}\n`, describe(r));
  await finishClient(conn);
});
