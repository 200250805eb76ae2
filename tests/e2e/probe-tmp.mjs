import { McpProcess } from '/work/main/tests/e2e/support/server.mjs';
const s = new McpProcess().start();
await s.initialize();
const c = await s.callTool('create_session', { language: 'python' });
const id = c.structuredContent.session_id;
for (const code of ['import subprocess\np = subprocess.Popen(["sleep", "100"])\nprint(p.pid)', 'import subprocess\np = subprocess.Popen(["sleep", "100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint(p.pid)']) {
  for (const args of [{ code, timeout: 8 }, { session_id: id, code, timeout: 8 }]) {
    const t0 = Date.now();
    const r = await s.callTool('execute_code', args, { timeoutMs: 60000 });
    console.log(args.session_id ? 'session' : 'fresh', code.includes('DEVNULL') ? 'devnull' : 'inherit', Date.now() - t0, 'ms timed_out', r.structuredContent.timed_out, r.structuredContent.exit_code);
  }
}
await s.stop();
