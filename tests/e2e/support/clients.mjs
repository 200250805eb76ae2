// Real MCP clients connected to `paddock mcp` through the tapping transport.
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { TappingTransport } from './transport.mjs';

const clientInfo = { name: 'paddock-e2e', version: '1.0.0' };

// The 1.x SDK client (negotiates 2025-11-25, or `initializeVersion` when given).
export async function connectSdk1(t, { initializeVersion, capabilities = {}, args, env } = {}) {
  const transport = new TappingTransport({ label: 'paddock mcp (sdk 1.x client)', initializeVersion, args, env });
  const client = new Client1(clientInfo, { capabilities });
  t.after(() => client.close().catch(() => {}));
  await client.connect(transport);
  return { client, transport, server: transport.server };
}

// The 2.x client: `mode` is 'legacy' (initialize handshake), 'auto' (probe with server/discover)
// or a pinned revision ('2026-07-28').
export async function connectSdk2(t, { mode = 'legacy', args, env } = {}) {
  const transport = new TappingTransport({ label: `paddock mcp (client 2.x, ${mode})`, args, env });
  const versionNegotiation = mode === 'legacy' || mode === 'auto' ? { mode } : { mode: { pin: mode } };
  const client = new Client2(clientInfo, { capabilities: {}, versionNegotiation });
  t.after(() => client.close().catch(() => {}));
  await client.connect(transport);
  return { client, transport, server: transport.server };
}

// Closes the client (EOF to the server) and fails on any invalid line the server wrote.
export async function finishClient({ client, server }) {
  await client.close();
  await server.finish();
}
