// Helpers for servers spawned by a third-party client through tap-server.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PADDOCK_BIN } from './config.mjs';
import { McpProcess } from './server.mjs';
import { temporaryFolder } from './cleanup.mjs';

export const TAP_SERVER = fileURLToPath(new URL('./tap-server.mjs', import.meta.url));

// A command line that runs `paddock mcp` behind the tap, and a check of what went through it.
export function tappedServer(t, label) {
  const dir = temporaryFolder(t, 'paddock-e2e-tap-');
  const prefix = path.join(dir, 'tap');
  return {
    command: process.execPath,
    args: [TAP_SERVER, PADDOCK_BIN, 'mcp'],
    env: { PADDOCK_E2E_TAP: prefix },
    prefix,
    read(ext) {
      try { return fs.readFileSync(`${prefix}.${ext}`); } catch { return undefined; }
    },
    exit() {
      const e = this.read('exit');
      return e ? JSON.parse(e.toString()) : undefined;
    },
    // Replays the transcript through the same checks as McpProcess; fails on any violation.
    check() {
      const sent = this.read('in');
      const got = this.read('out');
      if (!sent || !got) throw new Error(`the tap recorded nothing (${prefix}.in/.out missing)`);
      const checker = new McpProcess({ label: label || 'paddock mcp (tapped)' }).replay(sent, got);
      checker.assertClean();
      return checker;
    },
  };
}
