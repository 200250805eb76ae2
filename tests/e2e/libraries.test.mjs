// Libraries. Installing from a package index needs a network these machines do not have, so a
// library "installed" into the session's user site dir (where pip --user puts it) stands in for one,
// and a library that cannot be installed must fail fast and say it was the install step.
import assert from 'node:assert/strict';
import test from 'node:test';
import { describe, textOf, withServer } from './support/server.mjs';

// The server's own words that the install step failed (not just pip's output).
const INSTALL_FAILED = /\binstall\w*\b.*\b(fail|error)|\b(fail|error)\w*\b.*\binstall|could not install/i;

test('a package in the session user site dir is importable in later runs', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const created = await server.callTool('create_session', { language: 'python' });
    assert.equal(created.isError, false, describe(created));
    const session_id = created.structuredContent.session_id;
    const where = await server.callTool('execute_code', { session_id, code: 'import site\nprint(site.getusersitepackages())' });
    assert.equal(where.isError, false, describe(where));
    const site = where.structuredContent.stdout.trim();
    assert.match(site, /^\/work\/\.local\/lib\/python3\.\d+\/site-packages$/, 'the user site dir lives in the work dir');
    const rel = `${site.slice('/work/'.length)}/e2e_local_pkg/__init__.py`;
    const w = await server.callTool('write_file', { session_id, path: rel, content: 'VALUE = "installed locally"\n' });
    assert.equal(w.isError, false, describe(w));
    for (let i = 0; i < 2; i++) {
      const run = await server.callTool('execute_code', { session_id, code: 'import e2e_local_pkg\nprint(e2e_local_pkg.VALUE)' });
      assert.equal(run.isError, false, `run ${i + 1}: ${describe(run)}`);
      assert.equal(run.structuredContent.stdout, 'installed locally\n');
    }
    // Not in another run outside the session.
    const outside = await server.callTool('execute_code', { code: 'import e2e_local_pkg' });
    assert.equal(outside.isError, true, describe(outside));
  });
});

test('a library that cannot be installed fails the call at the install step, within the timeout', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const timeout = 20;
    const started = Date.now();
    const result = await server.callTool('execute_code', {
      code: 'print("must not run")',
      libraries: ['definitely-not-a-package-xyz'],
      timeout,
    }, { timeoutMs: 110000 });
    const took = Date.now() - started;
    assert.equal(result.isError, true, describe(result));
    assert.match(textOf(result), INSTALL_FAILED, 'the message names the install step');
    assert.doesNotMatch(result.structuredContent?.stdout ?? '', /must not run/, 'the code did not run');
    assert.ok(took < (timeout + 10) * 1000, `took ${took} ms with timeout ${timeout} s`);
  });
});

test('a session whose library cannot be installed says so (at create_session or its first run)', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const started = Date.now();
    let result = await server.callTool('create_session', { language: 'python', libraries: ['definitely-not-a-package-xyz'] }, { timeoutMs: 110000 });
    if (result.isError !== true) {
      result = await server.callTool('execute_code', { session_id: result.structuredContent.session_id, code: 'print(1)' }, { timeoutMs: 110000 });
    }
    assert.equal(result.isError, true, describe(result));
    assert.match(textOf(result), INSTALL_FAILED, 'the message names the install step');
    assert.ok(Date.now() - started < 100000);
  });
});

// A session's installer gets the network (and DNS) for the install alone; what it installs stays
// for later calls. The npm registry is reachable from these machines, so this one is real. The
// sessions of Docker and Podman have no network at all (their containers are made without one),
// nor do Kubernetes's (a deny-all NetworkPolicy per pod): there the install is refused at once,
// saying why, instead of waiting on name resolution.
const ENGINE = ['docker', 'podman', 'kubernetes'].includes(process.env.PADDOCK_BACKEND);

test('a session installs a package from the npm registry and later calls use it', { timeout: 180000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const created = await server.callTool('create_session', { language: 'javascript' });
    assert.equal(created.isError, false, describe(created));
    const session_id = created.structuredContent.session_id;
    const started = Date.now();
    const installed = await server.callTool('install_libraries', { session_id, libraries: ['left-pad'] }, { timeoutMs: 170000 });
    if (ENGINE) {
      assert.equal(installed.isError, true, describe(installed));
      assert.match(textOf(installed), /session has no network/, describe(installed));
      assert.ok(Date.now() - started < 10000, 'refused at once');
      return;
    }
    assert.equal(installed.isError, false, describe(installed));
    for (let i = 0; i < 2; i++) {
      const run = await server.callTool('execute_code', { session_id, code: "console.log(require('left-pad')('x', 3))" });
      assert.equal(run.isError, false, `run ${i + 1}: ${describe(run)}`);
      assert.equal(run.structuredContent.stdout, '  x\n');
    }
    // And at create_session, with libraries.
    const withLibrary = await server.callTool('create_session', { language: 'javascript', libraries: ['left-pad'] }, { timeoutMs: 170000 });
    assert.equal(withLibrary.isError, false, describe(withLibrary));
    const run = await server.callTool('execute_code', { session_id: withLibrary.structuredContent.session_id, code: "console.log(require('left-pad')('y', 2))" });
    assert.equal(run.isError, false, describe(run));
    assert.equal(run.structuredContent.stdout, ' y\n');
  });
});
