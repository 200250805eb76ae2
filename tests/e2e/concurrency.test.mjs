// Requests are served concurrently: many runs at once, and a long run does not block others.
import assert from 'node:assert/strict';
import test from 'node:test';
import { describe, withServer } from './support/server.mjs';

test('20 concurrent execute_code calls all answer with their own output', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const calls = Array.from({ length: 20 }, (_, i) =>
      server.callTool('execute_code', { code: `import time\ntime.sleep(0.2)\nprint("run-${i}", ${i} * 7)` }, { timeoutMs: 110000 }));
    const results = await Promise.all(calls);
    results.forEach((result, i) => {
      assert.equal(result.isError, false, `run ${i}: ${describe(result)}`);
      assert.equal(result.structuredContent.stdout, `run-${i} ${i * 7}\n`, `run ${i}`);
    });
  });
});

test('ping and tools/list answer while a 5 s run is in flight', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    await server.call('tools/list', {});
    let longDone = 0;
    const long = server.callTool('execute_code', { code: 'import time\ntime.sleep(5)\nprint("slept")' })
      .then((r) => { longDone = Date.now(); return r; });
    await new Promise((r) => setTimeout(r, 700));
    const pingAt = await server.call('ping').then(() => Date.now());
    const listAt = await server.call('tools/list', {}).then(() => Date.now());
    const quick = await server.callTool('execute_code', { code: 'print("quick")' });
    const quickAt = Date.now();
    const result = await long;
    assert.equal(result.structuredContent.stdout, 'slept\n', describe(result));
    assert.equal(quick.structuredContent.stdout, 'quick\n', describe(quick));
    assert.ok(pingAt < longDone, 'ping answered before the long run finished');
    assert.ok(listAt < longDone, 'tools/list answered before the long run finished');
    assert.ok(quickAt < longDone, 'a short run finished before the long run');
  });
});

test('20 MB of code is screened whole while other calls are answered', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    // A fork bomb on the very last line of 20 MB of bash: screening refuses it (critical), so
    // nothing runs, and finding it means every byte was screened.
    const line = 'echo "all fine here" # a comment\n';
    const lines = Math.ceil((20 << 20) / line.length);
    const code = line.repeat(lines) + ':(){ :|:& };:\n';
    let bigDone = 0;
    const big = server.callTool('execute_code', { language: 'bash', code }, { timeoutMs: 110000 })
      .then((r) => { bigDone = Date.now(); return r; });
    const pingAt = await server.call('ping').then(() => Date.now());
    const quick = await server.callTool('execute_code', { language: 'bash', code: 'echo quick' });
    const result = await big;
    assert.equal(result.structuredContent.phase, 'screening', describe(result));
    const findings = result.structuredContent.screening.findings;
    assert.deepEqual(findings.map((f) => [f.rule, f.line]), [['sh-fork-bomb', lines + 1]], describe(result));
    assert.equal(quick.structuredContent.stdout, 'quick\n', describe(quick));
    assert.ok(pingAt < bigDone, 'ping answered while the 20 MB call was screened');
  });
});
