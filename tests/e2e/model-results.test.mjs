// Results made for a model's small context, through the official clients: every figure in the
// order it was made and the rest named, long output as its start and its end (once), the phase
// that failed, quiet screening, a fast one-line install failure, clamped timeouts, and
// descriptions that say what is preinstalled.
import assert from 'node:assert/strict';
import test from 'node:test';
import { MODERN } from './support/config.mjs';
import { connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { describe } from './support/server.mjs';

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

test('60 figures: the first 20 come back in the order they were drawn, the other 40 are named', { timeout: 180000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: MODERN });
  const code = [
    'import matplotlib.pyplot as plt',
    'for i in range(1, 61):',
    '    plt.figure(figsize=(1, 1), dpi=20)',
    '    plt.title(str(i))',
  ].join('\n');
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code, timeout: 120 } });
  assert.equal(result.isError, false, describe(result));
  const figures = (n) => `.paddock/plots/figure-${n}.png`;
  const names = result.structuredContent.artifacts.map((a) => a.name);
  assert.deepEqual(names, Array.from({ length: 20 }, (_, i) => figures(i + 1)));
  assert.equal(result.content.filter((c) => c.type === 'image').length, 20);
  const omitted = result.structuredContent.artifacts_omitted;
  assert.deepEqual(omitted.map((o) => o.name), Array.from({ length: 40 }, (_, i) => figures(i + 21)));
  for (const o of omitted) assert.match(o.reason, /20 files per call/);
  const text = textOf(result);
  assert.match(text, /40 files left out \(over the limit of 20 files per call\)/);
  assert.ok(text.includes(figures(21)) && text.includes(figures(60)), text);
  await finishClient(conn);
});

test('the figure cap is the server user\'s to set', { timeout: 120000 }, async (t) => {
  const conn = await connectSdk1(t, { args: ['--artifact-limit', '3'] });
  const code = 'import matplotlib.pyplot as plt\nfor i in range(5):\n    plt.figure(figsize=(1, 1), dpi=20)\n';
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code } });
  assert.equal(result.structuredContent.artifacts.length, 3, describe(result));
  assert.equal(result.structuredContent.artifacts_omitted.length, 2);
  await finishClient(conn);
});

test('50 MB of output: the result keeps its start and its end, under the cap, and no stream twice', { timeout: 180000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: MODERN });
  const code = [
    'import sys',
    'print("FIRST-LINE")',
    'line = "x" * 999 + "\\n"',
    'for _ in range(50000): sys.stdout.write(line)',
    'print("LAST-LINE-MARKER")',
  ].join('\n');
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code, timeout: 120 } });
  assert.equal(result.isError, false, describe(result));
  const s = result.structuredContent;
  assert.ok(s.stdout.length < 64 * 1024 + 200, `structured stdout is ${s.stdout.length} bytes`);
  assert.ok(s.stdout.startsWith('FIRST-LINE\n'), s.stdout.slice(0, 100));
  assert.ok(s.stdout.endsWith('LAST-LINE-MARKER\n'), s.stdout.slice(-100));
  assert.match(s.stdout, /\[\.\.\. \d+ bytes left out here, of \d+ \.\.\.\]/);
  assert.ok(s.stdout_bytes > 50_000_000, String(s.stdout_bytes));
  assert.equal(s.truncated, true);
  const text = textOf(result);
  assert.ok(text.length < 16 * 1024, `the text block is ${text.length} bytes`);
  assert.ok(text.includes('LAST-LINE-MARKER'), 'the text keeps the end too');
  assert.ok(!text.includes(s.stdout), 'the text does not repeat the structured stream');
  assert.match(text, /run the code in a session/);
  const wire = JSON.stringify(result).length;
  assert.ok(wire < 200 * 1024, `the whole result is ${wire} bytes`);
  await finishClient(conn);
});

test('in a session, a long stream is kept whole in a file the result names', { timeout: 180000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client } = conn;
  const created = await client.callTool({ name: 'create_session', arguments: { language: 'python' } });
  const session_id = created.structuredContent.session_id;
  const code = 'import sys\nfor i in range(200000): sys.stdout.write("%09d\\n" % i)\nsys.stderr.write("short\\n")';
  const result = await client.callTool({ name: 'execute_code', arguments: { session_id, code } });
  assert.equal(result.isError, false, describe(result));
  const file = result.structuredContent.output_files?.stdout;
  assert.match(file ?? '', /^\/work\/\.paddock\/output\/\d+\/stdout$/, describe(result));
  assert.equal(result.structuredContent.output_files.stderr, undefined, 'a short stream needs no file');
  assert.ok(textOf(result).includes(file), 'the text names the file');
  const check = await client.callTool({
    name: 'execute_code',
    arguments: { session_id, code: `data = open(${JSON.stringify(file)}).read()\nprint(len(data), data.splitlines()[123456])` },
  });
  assert.equal(check.structuredContent.stdout, '2000000 000123456\n', describe(check));
  await finishClient(conn);
});

test('phase and the failing step\'s exit code, for install, compile and run failures', { timeout: 180000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: MODERN, args: ['--install-network', 'none'] });
  const { client } = conn;
  const started = Date.now();
  const install = await client.callTool({
    name: 'execute_code',
    arguments: { code: 'print(1)', libraries: ['paddock-no-such-package'] },
  });
  const seconds = (Date.now() - started) / 1000;
  assert.equal(install.isError, true, describe(install));
  assert.equal(install.structuredContent.phase, 'install');
  assert.notEqual(install.structuredContent.step_exit_code, 0);
  const first = textOf(install).split('\n')[0];
  assert.equal(first, 'could not reach the package index (name resolution failed)', textOf(install).slice(0, 2000));
  assert.ok(seconds < 20, `an unreachable index failed after ${seconds} s: pip must not retry`);

  const compile = await client.callTool({ name: 'execute_code', arguments: { language: 'c', code: 'int main( {' } });
  assert.equal(compile.structuredContent.phase, 'compile', describe(compile));
  assert.notEqual(compile.structuredContent.step_exit_code, 0);

  const run = await client.callTool({ name: 'execute_code', arguments: { code: 'import sys\nsys.exit(3)' } });
  assert.equal(run.structuredContent.phase, 'run', describe(run));
  assert.equal(run.structuredContent.step_exit_code, 3);
  assert.equal(run.structuredContent.exit_code, 3);
  await finishClient(conn);
});

test('screening: harmless imports stay out of the text, a critical finding is refused', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client } = conn;
  const quiet = await client.callTool({
    name: 'execute_code',
    arguments: { code: 'import subprocess\nimport ctypes\nprint("ran")' },
  });
  assert.equal(quiet.isError, false, describe(quiet));
  assert.ok(!/screening/i.test(textOf(quiet)), textOf(quiet));
  assert.ok(quiet.structuredContent.screening.findings.length >= 2, describe(quiet));
  const bomb = await client.callTool({ name: 'execute_code', arguments: { language: 'bash', code: ':(){ :|:& };:' } });
  assert.equal(bomb.isError, true, describe(bomb));
  assert.equal(bomb.structuredContent.exit_code, 126);
  assert.equal(bomb.structuredContent.phase, 'screening');
  assert.match(textOf(bomb), /blocked by code screening/);
  await finishClient(conn);
});

test('a timeout over the cap is clamped and the result says so; descriptions say the cap and what is preinstalled', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: MODERN });
  const { client } = conn;
  const result = await client.callTool({ name: 'execute_code', arguments: { code: 'print(1)', timeout: 100000 } });
  assert.equal(result.isError, false, describe(result));
  assert.equal(result.structuredContent.timeout_seconds, 300);
  assert.match(result.structuredContent.notes.join('\n'), /timeout 100000 s is over this server's cap: 300 s applied/);
  assert.match(textOf(result), /300 s applied/);

  const { tools } = await client.listTools();
  const execute = tools.find((tool) => tool.name === 'execute_code');
  assert.match(execute.description, /capped at 300 s/);
  // Said once, in the instructions, for every tool.
  assert.match(client.getInstructions(), /Preinstalled for python: numpy, pandas, matplotlib, scipy, scikit-learn/);
  assert.match(client.getInstructions(), /Preinstalled for r: ggplot2, dplyr/);
  assert.deepEqual(execute.outputSchema.properties.backend.enum, ['native', 'docker', 'podman', 'kubernetes']);
  assert.deepEqual(execute.outputSchema.properties.phase.enum, ['install', 'compile', 'run', 'screening']);

  const details = await client.callTool({ name: 'get_language_details', arguments: { language: 'python' } });
  assert.ok(details.structuredContent.preinstalled.includes('scikit-learn'), describe(details));

  const again = await client.callTool({
    name: 'execute_code',
    arguments: { code: 'import sklearn\nprint("ok")', libraries: ['scikit_learn', 'NumPy'] },
  });
  assert.equal(again.isError, false, describe(again));
  assert.equal(again.structuredContent.phase, 'run');
  assert.match(again.structuredContent.notes.join('\n'), /preinstalled.*scikit_learn, NumPy/);
  await finishClient(conn);
});

test('a CSV written to outputs/ comes back as text', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const code = 'import os\nos.makedirs("outputs", exist_ok=True)\nopen("outputs/table.csv", "w").write("a,b\\n1,2\\n")';
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code } });
  assert.equal(result.isError, false, describe(result));
  const block = result.content.find((c) => c.type === 'resource');
  assert.equal(block?.resource?.text, 'a,b\n1,2\n', describe(result));
  assert.equal(block.resource.mimeType, 'text/csv');
  await finishClient(conn);
});
