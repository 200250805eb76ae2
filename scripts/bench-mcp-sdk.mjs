// scripts/bench-mcp's live-session row through the official MCP SDK client (@modelcontextprotocol/sdk
// 1.x, as tests/e2e installs it): what a model's client pays for a cell, its stdio transport and
// result validation included.
//
//   node scripts/bench-mcp-sdk.mjs PADDOCK [PADDOCK...]
//
// Connects one client to `PADDOCK mcp` for each binary, lists the tools (so the client validates
// results against execute_code's output schema, as clients do), opens a live python session on
// each and runs a few cells to warm up, then prints "ready". Each line "call" on stdin then runs
// python `print(1)` as a cell once on each server in turn and prints the milliseconds of each, from
// callTool to its result, as a JSON array. EOF closes the clients. The caller paces the calls, so
// they interleave with its own rows.
//
// The SDK is found in tests/e2e/node_modules (tests/e2e/run --install), or PADDOCK_E2E_MODULES.
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modules = process.env.PADDOCK_E2E_MODULES || path.join(root, 'tests', 'e2e', 'node_modules');
const require = createRequire(path.join(modules, 'bench-mcp-sdk'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const binaries = process.argv.slice(2);
if (binaries.length === 0) {
  console.error('usage: node scripts/bench-mcp-sdk.mjs PADDOCK [PADDOCK...]');
  process.exit(2);
}

async function open(binary) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ['mcp', '--log-level', 'warning'],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'bench-mcp-sdk', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  const opened = await client.callTool({ name: 'create_session', arguments: { language: 'python' } });
  if (opened.isError || !opened.structuredContent?.live) {
    throw new Error(`${binary}: the python session is not live: ${JSON.stringify(opened)}`);
  }
  const cell = { name: 'execute_code', arguments: { code: 'print(1)', session_id: opened.structuredContent.session_id } };
  const call = async () => {
    const started = performance.now();
    const result = await client.callTool(cell);
    const took = performance.now() - started;
    if (result.isError || result.structuredContent?.stdout !== '1\n') {
      throw new Error(`${binary}: unexpected result ${JSON.stringify(result)}`);
    }
    return took;
  };
  for (let i = 0; i < 3; i++) await call();
  return { client, call };
}

const servers = [];
for (const binary of binaries) servers.push(await open(binary));
console.log('ready');
const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() !== 'call') continue;
  const times = [];
  for (const server of servers) times.push(await server.call());
  console.log(JSON.stringify(times));
}
for (const server of servers) await server.client.close();
