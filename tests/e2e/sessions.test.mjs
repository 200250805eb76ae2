// Sessions: a work dir that outlives one run (files persist). Process state persists only in a
// live session (python and r on the native backend: live-sessions.test.mjs); elsewhere each call
// is a new process.
import assert from 'node:assert/strict';
import test from 'node:test';
import { describe, sleep, textOf, withServer } from './support/server.mjs';

// Only the native backend keeps a python session's interpreter between calls.
const LIVE = (process.env.PADDOCK_BACKEND || 'native') === 'native';

async function createSession(server, args = {}) {
  const result = await server.callTool('create_session', args);
  await server.checkOutputSchema('create_session', result);
  assert.equal(result.isError, false, `create_session ${JSON.stringify(args)}: ${describe(result)}`);
  const id = result.structuredContent?.session_id;
  assert.equal(typeof id, 'string', describe(result));
  assert.ok(id.length > 0);
  return id;
}

test('files persist across runs in a python session; variables only where it is live', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await createSession(server);
    const first = await server.callTool('execute_code', { session_id, code: 'x = 41\nopen("a.txt", "w").write("x")\nprint("wrote")' });
    assert.equal(first.isError, false, describe(first));
    const second = await server.callTool('execute_code', { session_id, code: 'print(open("a.txt").read())' });
    assert.equal(second.isError, false, describe(second));
    assert.equal(second.structuredContent.stdout, 'x\n');
    const third = await server.callTool('execute_code', { session_id, code: 'print(x)' });
    await server.checkOutputSchema('execute_code', third);
    if (LIVE) {
      assert.equal(third.isError, false, `a live session keeps its variables: ${describe(third)}`);
      assert.equal(third.structuredContent.stdout, '41\n');
    } else {
      assert.equal(third.isError, true, `a variable must not persist without a live interpreter: ${describe(third)}`);
      assert.match(third.structuredContent.stderr, /NameError/);
    }
  });
});

test('a run without session_id does not see session files', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const a = await createSession(server);
    const b = await createSession(server);
    assert.notEqual(a, b);
    await server.callTool('execute_code', { session_id: a, code: 'open("only-a.txt", "w").write("a")' });
    const inB = await server.callTool('execute_code', { session_id: b, code: 'import os\nprint(os.path.exists("only-a.txt"))' });
    assert.equal(inB.structuredContent.stdout, 'False\n', describe(inB));
    const alone = await server.callTool('execute_code', { code: 'import os\nprint(os.path.exists("only-a.txt"))' });
    assert.equal(alone.structuredContent.stdout, 'False\n', describe(alone));
  });
});

test('a javascript session keeps its files, not its variables: each call is a new process', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await createSession(server, { language: 'javascript' });
    const w = await server.callTool('execute_code', { session_id, language: 'javascript', code: 'globalThis.kept = 41\nrequire("fs").writeFileSync("n.txt", "from js")' });
    assert.equal(w.isError, false, describe(w));
    const r = await server.callTool('execute_code', { session_id, language: 'javascript', code: 'console.log(require("fs").readFileSync("n.txt", "utf8"), typeof kept)' });
    await server.checkOutputSchema('execute_code', r);
    assert.equal(r.structuredContent?.stdout, 'from js undefined\n', `the file persists, the variable does not: ${describe(r)}`);
  });
});

test('list_sessions lists open sessions; close_session closes them', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const py = await createSession(server, { language: 'python' });
    const rb = await createSession(server, { language: 'ruby' });
    let list = await server.callTool('list_sessions', {});
    await server.checkOutputSchema('list_sessions', list);
    assert.equal(list.isError, false, describe(list));
    const sessions = list.structuredContent?.sessions;
    assert.ok(Array.isArray(sessions), describe(list));
    const byId = Object.fromEntries(sessions.map((s) => [s.session_id, s]));
    assert.equal(byId[py]?.language, 'python', describe(list));
    assert.equal(byId[rb]?.language, 'ruby', describe(list));

    const closed = await server.callTool('close_session', { session_id: py });
    assert.equal(closed.isError, false, describe(closed));
    list = await server.callTool('list_sessions', {});
    const ids = list.structuredContent.sessions.map((s) => s.session_id);
    assert.ok(!ids.includes(py), `closed session still listed: ${ids}`);
    assert.ok(ids.includes(rb));

    const use = await server.callTool('execute_code', { session_id: py, code: 'print(1)' });
    assert.equal(use.isError, true, `running in a closed session: ${describe(use)}`);
    assert.match(textOf(use), /session/i);
    const again = await server.callTool('close_session', { session_id: py });
    assert.equal(again.isError, true, `closing a closed session: ${describe(again)}`);
  });
});

test('an unknown session id is isError true for every session tool', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = 'no-such-session';
    for (const [tool, args] of [
      ['execute_code', { session_id, code: 'print(1)' }],
      ['close_session', { session_id }],
      ['write_file', { session_id, path: 'a.txt', content: 'x' }],
      ['read_file', { session_id, path: 'a.txt' }],
      ['list_files', { session_id }],
    ]) {
      const result = await server.callTool(tool, args);
      assert.equal(result.isError, true, `${tool} with an unknown session: ${describe(result)}`);
    }
  });
});

test('a session expires after ttl_seconds', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await createSession(server, { ttl_seconds: 1 });
    await sleep(2500);
    const use = await server.callTool('execute_code', { session_id, code: 'print(1)' });
    assert.equal(use.isError, true, `a session 1.5 s past its ttl still runs code: ${describe(use)}`);
    const list = await server.callTool('list_sessions', {});
    assert.ok(!list.structuredContent.sessions.some((s) => s.session_id === session_id), describe(list));
  });
});

test('create_session refuses an unknown language', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await server.callTool('create_session', { language: 'cobol' });
    assert.equal(result.isError, true, describe(result));
  });
});
