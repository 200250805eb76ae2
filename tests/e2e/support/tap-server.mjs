#!/usr/bin/env node
// Runs a stdio MCP server (argv) between a client and itself, copying what the client writes to
// $PADDOCK_E2E_TAP.in and what the server writes to $PADDOCK_E2E_TAP.out, so a test can check every
// line even when a third-party client (the inspector CLI, the SDK's own StdioClientTransport)
// spawns the server. Exits as the server does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const [command, ...args] = process.argv.slice(2);
const prefix = process.env.PADDOCK_E2E_TAP;
if (!command || !prefix) {
  process.stderr.write('usage: PADDOCK_E2E_TAP=PREFIX tap-server.mjs COMMAND [ARGS...]\n');
  process.exit(2);
}
const inFd = fs.openSync(`${prefix}.in`, 'w');
const outFd = fs.openSync(`${prefix}.out`, 'w');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
fs.writeFileSync(`${prefix}.pid`, String(child.pid));
child.stdin.on('error', () => {});
process.stdin.on('data', (d) => { fs.writeSync(inFd, d); child.stdin.write(d); });
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (d) => { fs.writeSync(outFd, d); process.stdout.write(d); });
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('close', (code, signal) => {
  fs.closeSync(inFd);
  fs.closeSync(outFd);
  fs.writeFileSync(`${prefix}.exit`, JSON.stringify({ code, signal }));
  process.exitCode = code ?? 1;
  process.stdout.end();
  process.stdin.destroy();
});
