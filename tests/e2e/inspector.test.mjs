// The MCP Inspector's CLI mode (`mcp-inspector --cli`), spawning the server behind the tap.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXPECTED_TOOLS } from './support/config.mjs';
import { tappedServer } from './support/tap.mjs';

const INSPECTOR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules', '.bin', 'mcp-inspector');

function inspector(t, args) {
  const tap = tappedServer(t, `paddock mcp (inspector ${args.join(' ')})`);
  return new Promise((resolve) => {
    execFile(INSPECTOR, ['--cli', tap.command, ...tap.args, ...args], {
      env: { ...process.env, ...tap.env },
      timeout: 60000,
      maxBuffer: 64 * 1024 * 1024,
    }, (error, stdout, stderr) => resolve({ error, stdout, stderr, tap }));
  });
}

function parse({ error, stdout, stderr }) {
  assert.equal(error, null, `the inspector failed: ${error?.message}\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-2000)}`);
  try {
    return JSON.parse(stdout);
  } catch {
    assert.fail(`the inspector printed no JSON:\n${stdout.slice(-2000)}\nstderr: ${stderr.slice(-2000)}`);
  }
}

test('inspector --cli --method tools/list', { timeout: 90000 }, async (t) => {
  const run = await inspector(t, ['--method', 'tools/list']);
  const result = parse(run);
  for (const name of EXPECTED_TOOLS) assert.ok(result.tools.some((tool) => tool.name === name), name);
  run.tap.check();
});

test('inspector --cli --method tools/call execute_code', { timeout: 90000 }, async (t) => {
  const run = await inspector(t, ['--method', 'tools/call', '--tool-name', 'execute_code',
    '--tool-arg', 'code=print(6*7)', '--tool-arg', 'language=python', '--tool-arg', 'timeout=10']);
  const result = parse(run);
  assert.equal(result.isError, false, JSON.stringify(result));
  assert.equal(result.structuredContent.stdout, '42\n');
  run.tap.check();
});

test('inspector --cli --method resources/read sandbox://languages', { timeout: 90000 }, async (t) => {
  const run = await inspector(t, ['--method', 'resources/read', '--uri', 'sandbox://languages']);
  const result = parse(run);
  JSON.parse(result.contents[0].text);
  run.tap.check();
});
