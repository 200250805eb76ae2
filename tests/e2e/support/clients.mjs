// Real MCP clients connected to `paddock mcp` through the tapping transport.
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { TappingTransport } from './transport.mjs';
import { cleanup } from './cleanup.mjs';

const clientInfo = { name: 'paddock-e2e', version: '1.0.0' };

// `elicit(params)`, when given, answers the server's questions (elicitation/create) with an
// ElicitResult, as a host's dialog would; the client must then declare the `elicitation`
// capability in `capabilities` (each SDK refuses the handler otherwise). `roots()`, when given,
// answers roots/list with the roots it returns then, and needs the `roots` capability likewise.

// The 1.x SDK client (negotiates 2025-11-25, or `initializeVersion` when given).
export async function connectSdk1(t, { initializeVersion, capabilities = {}, elicit, roots, args, env } = {}) {
  const transport = new TappingTransport({ label: 'paddock mcp (sdk 1.x client)', initializeVersion, args, env });
  const client = new Client1(clientInfo, { capabilities });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: await roots() }));
  cleanup(t, () => client.close().catch(() => {}));
  await client.connect(transport);
  return { client, transport, server: transport.server };
}

// The 2.x client: `mode` is 'legacy' (initialize handshake), 'auto' (probe with server/discover)
// or a pinned revision ('2026-07-28'). The one handler serves both eras: a mid-call request in
// the legacy one, and in 2026-07-28 the requests of an input_required result, which the client
// answers and retries the call with by itself.
export async function connectSdk2(t, { mode = 'legacy', capabilities = {}, elicit, roots, args, env } = {}) {
  const transport = new TappingTransport({ label: `paddock mcp (client 2.x, ${mode})`, args, env });
  const versionNegotiation = mode === 'legacy' || mode === 'auto' ? { mode } : { mode: { pin: mode } };
  const client = new Client2(clientInfo, { capabilities, versionNegotiation });
  if (elicit) client.setRequestHandler('elicitation/create', (request) => elicit(request.params));
  if (roots) client.setRequestHandler('roots/list', async () => ({ roots: await roots() }));
  cleanup(t, () => client.close().catch(() => {}));
  await client.connect(transport);
  return { client, transport, server: transport.server };
}

// tools/call with a timeout of its own, whichever SDK: their signatures differ (the 1.x client
// takes a result schema before the options).
export function callTool(conn, name, args, { timeout = 60000 } = {}) {
  const params = { name, arguments: args };
  return conn.client instanceof Client1
    ? conn.client.callTool(params, undefined, { timeout })
    : conn.client.callTool(params, { timeout });
}

// Closes the client (EOF to the server) and fails on any invalid line the server wrote.
export async function finishClient({ client, server }) {
  await client.close();
  await server.finish();
}
