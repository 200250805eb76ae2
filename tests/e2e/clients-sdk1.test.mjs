// The 1.x TypeScript SDK client (@modelcontextprotocol/sdk), as most MCP hosts use it today.
import assert from 'node:assert/strict';
import test from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EXPECTED_TOOLS } from './support/config.mjs';
import { connectSdk1, finishClient } from './support/clients.mjs';
import { describe } from './support/server.mjs';
import { tappedServer } from './support/tap.mjs';

test('1.x client: negotiates 2025-11-25, lists and calls tools, reads resources', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t);
  const { client, transport } = conn;
  assert.equal(transport.protocolVersion, '2025-11-25');
  assert.equal(typeof client.getServerVersion()?.name, 'string');
  const caps = client.getServerCapabilities();
  assert.ok(caps?.tools && caps?.resources && caps?.logging, JSON.stringify(caps));
  const { tools } = await client.listTools();
  for (const name of EXPECTED_TOOLS) assert.ok(tools.some((tool) => tool.name === name), name);
  // The SDK checks structuredContent against the declared outputSchema itself.
  const result = await client.callTool({ name: 'execute_code', arguments: { code: 'print(6 * 7)' } });
  assert.equal(result.isError, false, describe(result));
  assert.equal(result.structuredContent.stdout, '42\n');
  const failed = await client.callTool({ name: 'execute_code', arguments: { code: 'import sys; sys.exit(2)' } });
  assert.equal(failed.isError, true, describe(failed));
  const langs = await client.callTool({ name: 'get_supported_languages', arguments: {} });
  assert.ok(langs.structuredContent.languages.includes('python'));
  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === 'sandbox://languages'));
  const read = await client.readResource({ uri: 'sandbox://languages' });
  JSON.parse(read.contents[0].text);
  await client.setLoggingLevel('debug');
  await client.ping();
  await finishClient(conn);
});

test('1.x client asking for 2025-06-18 gets it and everything still validates', { timeout: 60000 }, async (t) => {
  const conn = await connectSdk1(t, { initializeVersion: '2025-06-18' });
  assert.equal(conn.transport.protocolVersion, '2025-06-18');
  const { tools } = await conn.client.listTools();
  assert.ok(tools.length >= EXPECTED_TOOLS.length);
  const result = await conn.client.callTool({ name: 'execute_code', arguments: { code: 'print("old client")' } });
  assert.equal(result.structuredContent.stdout, 'old client\n', describe(result));
  await finishClient(conn);
});

test("1.x client through the SDK's own StdioClientTransport", { timeout: 60000 }, async (t) => {
  const tap = tappedServer(t, 'paddock mcp (sdk 1.x StdioClientTransport)');
  const transport = new StdioClientTransport({
    command: tap.command,
    args: tap.args,
    env: { ...process.env, ...tap.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'paddock-e2e', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'execute_code'));
  const result = await client.callTool({ name: 'execute_code', arguments: { code: 'print("via stdio transport")' } });
  assert.equal(result.structuredContent.stdout, 'via stdio transport\n', describe(result));
  await client.close();
  for (let i = 0; i < 50 && !tap.exit(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(tap.exit(), { code: 0, signal: null }, `the server's exit after the client closed; stderr:\n${stderr.slice(-2000)}`);
  tap.check();
});
