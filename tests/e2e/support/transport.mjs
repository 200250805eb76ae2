// A stdio client transport for the SDK clients (1.x `@modelcontextprotocol/sdk` and 2.x
// `@modelcontextprotocol/client`) over a McpProcess, so every line the server writes is checked
// (server.mjs) before the client sees it. Both SDKs take any object with this shape.
import { McpProcess } from './server.mjs';

export class TappingTransport {
  // `initializeVersion` rewrites the protocolVersion of the client's initialize request: the way
  // to make the 1.x client (which always asks for 2025-11-25) negotiate an older revision, as an
  // older client would.
  constructor({ args, env, label, initializeVersion } = {}) {
    this.server = new McpProcess({ args, env, label });
    this.initializeVersion = initializeVersion;
    this.sent = [];
  }

  get pid() {
    return this.server.pid;
  }

  async start() {
    this.server.start();
    this.server.on('message', (message) => this.onmessage?.(message));
    this.server.on('close', () => this.onclose?.());
  }

  async send(message) {
    if (this.initializeVersion && message.method === 'initialize') {
      message = { ...message, params: { ...message.params, protocolVersion: this.initializeVersion } };
    }
    this.sent.push(message);
    const ok = await this.server.send(message);
    if (!ok) throw new Error('the server is gone: could not write to its stdin');
  }

  async close() {
    await this.server.stop();
  }

  setProtocolVersion(version) {
    this.protocolVersion = version;
  }
}
