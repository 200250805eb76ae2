// `paddock mcp` configured as MCP clients configure servers: `args` and an `env` block, through
// the official SDK's StdioClientTransport. Secrets pass only when named, limits come from the
// environment (flags win), a language's image is chosen by CONTAINER_IMAGE, the audit log holds
// one line per run, and a bad configuration ends the server before it reads stdin.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PADDOCK_BIN } from './support/config.mjs';
import { kubeGet, kubeGetNetworkPolicies } from './support/kube.mjs';
import { describe } from './support/server.mjs';
import { cleanup, temporaryFolder } from './support/cleanup.mjs';

const BACKEND = process.env.PADDOCK_BACKEND || 'native';

// The server as a client starts it: the test's environment (which says the backend under test)
// with the client's `env` block on top. `native: true` pins the native backend and its
// built-in policies, for what only it offers here (memory limits, installs over the network).
async function connect(t, { env = {}, args = [], native = false } = {}) {
  const base = { ...process.env };
  if (native) {
    delete base.PADDOCK_POLICY_DIR;
    base.PADDOCK_BACKEND = 'native';
  }
  const transport = new StdioClientTransport({
    command: PADDOCK_BIN, args: ['mcp', ...args], env: { ...base, ...env }, stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'paddock-e2e-config', version: '1.0.0' });
  cleanup(t, () => client.close().catch(() => {}));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const run = (client, args, timeout = 120000) =>
  client.callTool({ name: 'execute_code', arguments: args }, undefined, { timeout });

test('only the variables named by --pass-through-env reach code, and their values are masked', { timeout: 120000 }, async (t) => {
  const env = { E2E_API_TOKEN: 'tok-e2e-5e1f2a', E2E_UNLISTED: 'unlisted-7c9d', PADDOCK_PASS_THROUGH_ENV: 'E2E_API_TOKEN' };
  const { client } = await connect(t, { env });
  const code = [
    'import os',
    "print(os.environ.get('E2E_API_TOKEN') == 'tok-e2e-5e1f2a', 'E2E_UNLISTED' in os.environ)",
    "print(sorted(k for k in os.environ if k.startswith(('PADDOCK', 'E2E', 'DOCKER', 'KUBE'))))",
    "print('token:', os.environ.get('E2E_API_TOKEN'))",
  ].join('\n');
  const result = await run(client, { code });
  assert.equal(result.isError, false, describe(result));
  const lines = result.structuredContent.stdout.split('\n');
  assert.equal(lines[0], 'True False', 'the named variable is there with its value; the other is not');
  assert.doesNotMatch(lines[1], /E2E_UNLISTED|PADDOCK_PASS|DOCKER_HOST|KUBECONFIG/, 'nothing else of the server environment');
  assert.equal(lines[2], 'token: ***', 'the value is masked in the result');
  assert.equal(lines.length, 4, `nothing after the last line: ${describe(result)}`);
  assert.doesNotMatch(JSON.stringify(result), /left out/, 'masking a value cuts nothing out');
  assert.ok(!JSON.stringify(result).includes('tok-e2e-5e1f2a'), 'the value appears nowhere in the result');

  // The flag form, as code-sandbox-mcp's users write it, in a session.
  const second = await connect(t, { env: { E2E_API_TOKEN: 'tok-e2e-5e1f2a', E2E_OTHER: 'other-4242' }, args: ['--pass-through-env', 'E2E_API_TOKEN,E2E_OTHER'] });
  const session = await second.client.callTool({ name: 'create_session', arguments: {} });
  assert.equal(session.isError, false, describe(session));
  const { session_id } = session.structuredContent;
  const inSession = await run(second.client, { session_id, code: "import os\nprint(os.environ['E2E_OTHER'] == 'other-4242', 'E2E_UNLISTED' in os.environ)\nopen('leak.txt','w').write(os.environ['E2E_OTHER'])" });
  assert.equal(inSession.structuredContent.stdout, 'True False\n', describe(inSession));
  const read = await second.client.callTool({ name: 'read_file', arguments: { session_id, path: 'leak.txt' } });
  assert.equal(read.structuredContent?.delivery, 'text', `a masked file is still delivered as text: ${describe(read)}`);
  assert.equal(read.content[0].text, '***', 'read_file masks it too');
  const resource = await second.client.readResource({ uri: `sandbox://sessions/${session_id}/files/leak.txt` });
  assert.equal(resource.contents[0].text, '***', `resources/read masks it too: ${JSON.stringify(resource)}`);

  // Artifacts (of a run without a session: a session keeps outputs/ as files), file names and
  // binary files: text is masked, and binary that holds the value (masking would corrupt it) is
  // withheld with the reason.
  const writer = [
    'import os', "v = os.environ['E2E_OTHER']", "os.makedirs('outputs', exist_ok=True)",
    "open('outputs/table.csv', 'w').write('key,' + v + '\\n')",
    "open('outputs/blob.bin', 'wb').write(b'\\0\\xff' + v.encode())",
    "open('named-' + v, 'w').write('x')",
  ].join('\n');
  const produced = await run(second.client, { code: writer });
  assert.equal(produced.isError, false, describe(produced));
  assert.ok(!JSON.stringify(produced).includes('other-4242'), `no artifact carries the value: ${describe(produced)}`);
  const byName = Object.fromEntries(produced.structuredContent.artifacts.map((a) => [a.name, a]));
  assert.equal(byName['outputs/blob.bin']?.withheld?.includes('withheld'), true, `the binary artifact is withheld: ${describe(produced)}`);
  assert.equal(byName['outputs/table.csv']?.withheld, undefined, 'the text artifact is sent');
  const csv = produced.content.find((c) => c.resource?.uri?.endsWith('outputs/table.csv'));
  assert.equal(csv.resource.text, 'key,***\n', 'masked, and sent as text');
  const inSessionToo = await run(second.client, { session_id, code: writer });
  assert.equal(inSessionToo.isError, false, describe(inSessionToo));
  const blob = await second.client.callTool({ name: 'read_file', arguments: { session_id, path: 'outputs/blob.bin' } });
  assert.equal(blob.isError, true, describe(blob));
  assert.match(blob.content[0].text, /not text.*withheld/);
  await assert.rejects(second.client.readResource({ uri: `sandbox://sessions/${session_id}/files/outputs/blob.bin` }), /withheld/);
  const listing = await second.client.callTool({ name: 'list_files', arguments: { session_id } });
  assert.ok(!JSON.stringify(listing).includes('other-4242'), `list_files masks names: ${describe(listing)}`);
  assert.ok(listing.structuredContent.entries.some((e) => e.name === 'named-***'), describe(listing));

  // In a cluster, whoever may read pods does not see the value: the pod takes it from the
  // sandbox's Secret, which goes when the session closes.
  if (BACKEND === 'kubernetes') {
    const pods = kubeGet('pods?labelSelector=io.paddock.sandbox%3D1');
    const ours = (pods?.items || []).filter((pod) => pod.spec.containers[0].env.some((v) => v.name === 'E2E_OTHER'));
    assert.equal(ours.length, 1, 'the session has one pod');
    assert.ok(!JSON.stringify(ours).includes('other-4242'), `the pod object holds no passed-through value: ${JSON.stringify(ours[0].spec.containers[0].env)}`);
    const name = ours[0].metadata.name;
    assert.ok(kubeGet(`secrets/${name}`)?.data?.E2E_OTHER, 'the value is in the sandbox\'s Secret');
    await second.client.callTool({ name: 'close_session', arguments: { session_id } });
    assert.equal(kubeGet(`secrets/${name}`)?.code, 404, 'the Secret went with the session');
    assert.equal(kubeGet(`pods/${name}`)?.code, 404, 'and so did the pod');
  }
});

// In a cluster, a session without network has a deny-all NetworkPolicy that selects its pod
// alone, in both directions, and goes when the session closes; --kube-seccomp-profile is the
// pod's seccomp profile. Where RBAC forbids NetworkPolicies (the test API server's namespace
// no-networkpolicies), a run that wants no network is refused in one line and leaves no pod.
test('kubernetes: a deny-all NetworkPolicy per pod, a Localhost seccomp profile, a clear refusal without RBAC', { timeout: 120000, skip: BACKEND !== 'kubernetes' && 'kubernetes only' }, async (t) => {
  const profile = `profiles/e2e-${process.pid}.json`;
  const { client } = await connect(t, { args: ['--kube-seccomp-profile', profile] });
  const created = await client.callTool({ name: 'create_session', arguments: {} });
  assert.equal(created.isError, false, describe(created));
  const { session_id } = created.structuredContent;
  const first = await run(client, { session_id, code: 'print("in the pod")' });
  assert.equal(first.structuredContent?.stdout, 'in the pod\n', describe(first));
  const pods = kubeGet('pods?labelSelector=io.paddock.sandbox%3D1')?.items || [];
  const ours = pods.filter((pod) => pod.spec.securityContext?.seccompProfile?.localhostProfile === profile);
  assert.equal(ours.length, 1, `one pod has the Localhost profile: ${JSON.stringify(pods.map((p) => p.spec.securityContext))}`);
  assert.equal(ours[0].spec.securityContext.seccompProfile.type, 'Localhost');
  const name = ours[0].metadata.name;
  const policy = kubeGetNetworkPolicies(`/${name}`);
  assert.equal(policy?.kind, 'NetworkPolicy', `the pod's NetworkPolicy: ${JSON.stringify(policy)}`);
  assert.deepEqual(policy.spec.policyTypes, ['Ingress', 'Egress']);
  assert.equal(policy.spec.ingress, undefined, 'no ingress rule');
  assert.equal(policy.spec.egress, undefined, 'no egress rule');
  const match = policy.spec.podSelector.matchLabels;
  const selected = pods.filter((pod) => Object.entries(match).every(([k, v]) => pod.metadata.labels?.[k] === v));
  assert.deepEqual(selected.map((pod) => pod.metadata.name), [name], 'it selects that pod alone');
  await client.callTool({ name: 'close_session', arguments: { session_id } });
  assert.equal(kubeGetNetworkPolicies(`/${name}`)?.code, 404, 'the policy went with the session');
  assert.equal(kubeGet(`pods/${name}`)?.code, 404, 'and so did the pod');

  const locked = await connect(t, { env: { PADDOCK_KUBE_NAMESPACE: 'no-networkpolicies' } });
  const refused = await run(locked.client, { code: 'print("never")' });
  assert.equal(refused.isError, true, describe(refused));
  const text = refused.content.map((c) => c.text ?? '').join('\n');
  assert.match(text, /deny-all NetworkPolicy could not be created \(.*403.*\): let paddock's account create, list and delete networkpolicies \(RBAC, API group networking\.k8s\.io\) in namespace no-networkpolicies/, text);
  assert.ok(!text.includes('never'), text);
  for (const kind of ['pods', 'secrets']) {
    assert.deepEqual(kubeGet(kind, { namespace: 'no-networkpolicies' })?.items, [], `no ${kind} left`);
  }
});

test('limits from the environment are enforced, and a flag wins over its variable', { timeout: 120000 }, async (t) => {
  const { client } = await connect(t, { env: { PADDOCK_TIMEOUT: '2s', PADDOCK_OUTPUT_LIMIT: '2k' } });
  const started = Date.now();
  const slow = await run(client, { code: 'import time\ntime.sleep(20)\nprint("woke")' });
  assert.equal(slow.structuredContent.timed_out, true, describe(slow));
  assert.ok(Date.now() - started < 15000, `killed after ${Date.now() - started} ms with PADDOCK_TIMEOUT=2s`);
  const loud = await run(client, { code: 'print("x" * 100000)' });
  assert.equal(loud.structuredContent.truncated, true, describe(loud));
  // 2048 bytes kept, its start and its end, and the marker between them.
  const kept = loud.structuredContent.stdout.replace(/\[\.\.\. \d+ bytes left out here, of \d+ \.\.\.\]\n/, '');
  assert.ok(kept.length <= 2049, `kept ${kept.length} bytes`);
  const details = await client.callTool({ name: 'get_language_details', arguments: { language: 'python' } });
  assert.equal(details.structuredContent.limits.timeout_seconds, 2, describe(details));
  assert.equal(details.structuredContent.limits.output_bytes, 2048);

  const flagged = await connect(t, { env: { PADDOCK_TIMEOUT: '1s' }, args: ['--timeout', '30s'] });
  const sleeper = await run(flagged.client, { code: 'import time\ntime.sleep(3)\nprint("woke")' });
  assert.equal(sleeper.isError, false, `--timeout 30s wins over PADDOCK_TIMEOUT=1s: ${describe(sleeper)}`);
  assert.equal(sleeper.structuredContent.stdout, 'woke\n');
});

test('PADDOCK_MEMORY and PADDOCK_PIDS are enforced (native)', { timeout: 120000 }, async (t) => {
  const { client } = await connect(t, { native: true, env: { PADDOCK_MEMORY: '64m', PADDOCK_PIDS: '16' } });
  const hog = await run(client, { code: 'b = bytearray(300 * 1024 * 1024)\nprint("allocated")' });
  assert.equal(hog.isError, true, describe(hog));
  assert.doesNotMatch(hog.structuredContent.stdout, /allocated/);
  const forks = await run(client, { code: 'import subprocess\nps = []\ntry:\n    for i in range(40):\n        ps.append(subprocess.Popen(["sleep", "5"]))\n    print("all", len(ps))\nexcept OSError as e:\n    print("refused after", len(ps))' });
  assert.match(forks.structuredContent.stdout, /^refused after \d+\n$/, describe(forks));
  const open = await connect(t, { native: true });
  const fine = await run(open.client, { code: 'b = bytearray(300 * 1024 * 1024)\nprint("allocated")' });
  assert.equal(fine.structuredContent.stdout, 'allocated\n', `the default 512m allows it: ${describe(fine)}`);
});

// Is the root file system an image? The host's /usr is bound into a host-rootfs sandbox; an
// image brings its own.
const ROOT_PROBE = "print('/usr' in [l.split()[4] for l in open('/proc/self/mountinfo')])";

test('CONTAINER_IMAGE with CONTAINER_LANGUAGE gives the language its image (native)', { timeout: 180000 }, async (t) => {
  const layout = process.env.PADDOCK_TEST_PYTHON_LAYOUT;
  assert.ok(layout, 'PADDOCK_TEST_PYTHON_LAYOUT is not set: scripts/test builds the python image with scripts/build-language-images --layouts');
  const store = temporaryFolder(t, 'paddock-e2e-store-');
  const imported = await new Promise((resolve) => {
    const child = spawn(PADDOCK_BIN, ['import', layout, '--tag', 'localhost/e2e/python:1', '--root', store], { stdio: 'inherit' });
    child.on('exit', resolve);
  });
  assert.equal(imported, 0, 'paddock import');
  const host = await connect(t, { native: true, env: { PADDOCK_ROOT: store } });
  const onHost = await run(host.client, { code: ROOT_PROBE });
  assert.equal(onHost.structuredContent.stdout, 'True\n', `control: the host's /usr without an image: ${describe(onHost)}`);
  const { client } = await connect(t, { native: true, env: { PADDOCK_ROOT: store, CONTAINER_IMAGE: 'localhost/e2e/python:1', CONTAINER_LANGUAGE: 'python' } });
  const onImage = await run(client, { code: `${ROOT_PROBE}\nimport numpy\nprint(numpy.__name__)` });
  assert.equal(onImage.structuredContent.stdout, 'False\nnumpy\n', describe(onImage));
});

test('a missing image with --pull never is refused with what to do', { timeout: 60000 }, async (t) => {
  const reference = 'localhost:5999/e2e/missing-image:1';
  const { client } = await connect(t, { env: { PADDOCK_PULL: 'never' }, args: ['--image', `python=${reference}`] });
  const result = await run(client, { code: 'print(1)' });
  assert.equal(result.isError, true, describe(result));
  const text = result.content.map((c) => c.text ?? '').join('\n');
  assert.match(text, new RegExp(reference.replace(/[.]/g, '\\.')), text);
  // A cluster is told not to pull (imagePullPolicy Never) and says so.
  assert.match(text, BACKEND === 'kubernetes' ? /ErrImageNeverPull/ : /pulling is off/, text);
});

test('the audit log has one line per run, with a hash of the code and never the code or secrets', { timeout: 120000 }, async (t) => {
  const dir = temporaryFolder(t, 'paddock-e2e-audit-');
  const file = path.join(dir, 'audit.jsonl');
  const { client } = await connect(t, { env: { PADDOCK_AUDIT_LOG: file, E2E_SECRET: 'secret-audit-91ab', PADDOCK_MEMORY: '256m' }, args: ['--pass-through-env', 'E2E_SECRET'] });
  const codes = ['print("audit one")', 'import os, sys\nprint(os.environ["E2E_SECRET"])\nsys.exit(3)'];
  for (const code of codes) await run(client, { code });
  const session = await client.callTool({ name: 'create_session', arguments: {} });
  await run(client, { session_id: session.structuredContent.session_id, code: 'print("in a session")' });
  await client.close();
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 3, JSON.stringify(lines));
  const sha = (code) => crypto.createHash('sha256').update(code).digest('hex');
  assert.equal(lines[0].code_sha256, sha(codes[0]));
  assert.equal(lines[0].outcome, 'exited');
  assert.equal(lines[0].exit_code, 0);
  assert.equal(lines[0].language, 'python');
  assert.equal(lines[0].session, null);
  assert.equal(lines[0].limits.memory_bytes, 256 * 1024 * 1024);
  assert.match(lines[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(typeof lines[0].duration_ms, 'number');
  assert.equal(lines[1].exit_code, 3);
  assert.equal(lines[2].session, session.structuredContent.session_id);
  const raw = fs.readFileSync(file, 'utf8');
  assert.ok(!raw.includes('audit one') && !raw.includes('secret-audit-91ab'), raw);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

// Starts `paddock mcp` with stdin left open: a bad configuration must end it anyway, at once.
// A case that sets BACKEND drops the suite's PADDOCK_BACKEND, which would win over it.
function startBad(env, args = []) {
  const base = { ...process.env };
  if ('BACKEND' in env) delete base.PADDOCK_BACKEND;
  return new Promise((resolve) => {
    const child = spawn(PADDOCK_BIN, ['mcp', ...args], { env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.on('data', (d) => { stdout += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stderr, stdout }); });
  });
}

test('a bad configuration ends the server at start with one line naming it', { timeout: 120000 }, async () => {
  const cases = [
    [{ BACKEND: 'dokker' }, [], /BACKEND='dokker' is not a backend/],
    [{ PADDOCK_BACKEND: 'dokker' }, [], /PADDOCK_BACKEND='dokker' is not a backend/],
    [{ PADDOCK_MEMORY: '12 parsecs' }, [], /PADDOCK_MEMORY='12 parsecs' is not a size/],
    [{}, ['--cpus', 'lots'], /--cpus 'lots' is not a CPU count/],
    [{ PADDOCK_PASS_THROUGH_ENV: 'E2E_NOT_SET_ANYWHERE' }, [], /E2E_NOT_SET_ANYWHERE, which is not set/],
    [{}, ['--image', 'python=Not A Reference'], /--image python=Not A Reference: image reference/],
    [{ CONTAINER_IMAGE: 'python:3.12' }, [], /CONTAINER_IMAGE is set without CONTAINER_LANGUAGE/],
    [{}, ['--image', 'klingon=python:3.12'], /unknown language 'klingon'/],
    [{ PADDOCK_AUDIT_LOG: '/nonexistent-dir/audit.jsonl' }, [], /audit log \/nonexistent-dir\/audit.jsonl/],
    [{ PADDOCK_TIMEOUT: '10m' }, [], /over the longest allowed/],
  ];
  for (const [env, args, expected] of cases) {
    const ended = await startBad(env, args);
    const what = `${JSON.stringify(env)} ${args.join(' ')}`;
    assert.equal(ended.signal, null, `${what}: still running after 10 s`);
    assert.equal(ended.code, 2, `${what}: exit ${ended.code}, stderr ${ended.stderr}`);
    assert.equal(ended.stdout, '', `${what}: nothing on stdout`);
    const lines = ended.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${what}: one line: ${ended.stderr}`);
    assert.match(lines[0], expected, what);
  }
});

test('get_session reports age, idle time, disk, processes and limits; install_libraries refuses bad names', { timeout: 120000 }, async (t) => {
  const { client } = await connect(t, { env: { PADDOCK_MEMORY: '300m' } });
  const created = await client.callTool({ name: 'create_session', arguments: {} });
  const { session_id } = created.structuredContent;
  const first = await client.callTool({ name: 'get_session', arguments: { session_id } });
  assert.equal(first.isError, false, describe(first));
  const state = first.structuredContent;
  assert.equal(state.language, 'python');
  // Between runs a live session (python on the native backend) keeps its interpreter: the kernel
  // bridge and the kernel. A session that is not live has nothing running.
  const resident = state.live ? 2 : 0;
  assert.equal(state.processes, resident, describe(first));
  assert.equal(state.limits.memory_bytes, 300 * 1024 * 1024);
  const wrote = await client.callTool({ name: 'write_file', arguments: { session_id, path: 'big.bin', content: 'x'.repeat(3_000_000) } });
  assert.equal(wrote.isError, false, describe(wrote));
  await new Promise((r) => setTimeout(r, 1200));
  const after = (await client.callTool({ name: 'get_session', arguments: { session_id } })).structuredContent;
  assert.ok(after.disk_used_bytes >= state.disk_used_bytes + 2_900_000, `disk ${state.disk_used_bytes} -> ${after.disk_used_bytes}`);
  assert.ok(after.idle_seconds >= 1, `asking is not use: idle ${after.idle_seconds}`);
  assert.ok(after.age_seconds >= 1);
  const running = run(client, { session_id, code: 'import subprocess\nsubprocess.run("sleep 4 & sleep 4 & wait", shell=True)' });
  let busy = 0;
  for (let i = 0; i < 40 && busy < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    busy = (await client.callTool({ name: 'get_session', arguments: { session_id } })).structuredContent.processes;
  }
  assert.ok(busy >= resident + 3, `processes while a run is in flight: ${busy}`);
  await running;
  const done = (await client.callTool({ name: 'get_session', arguments: { session_id } })).structuredContent;
  assert.equal(done.processes, resident);
  assert.equal(done.runs, 1);
  // A run killed at its timeout leaves orphans behind for an instant: they are reaped, not kept
  // as zombies that would hold slots of the pids limit.
  const orphans = 'import subprocess, time\nfor _ in range(4): subprocess.Popen("sleep 60 & sleep 60", shell=True)\ntime.sleep(60)';
  const killed = await run(client, { session_id, code: orphans, timeout: 1 });
  assert.equal(killed.structuredContent.timed_out, true, describe(killed));
  let left = -1;
  for (let i = 0; i < 20 && left !== resident; i++) {
    left = (await client.callTool({ name: 'get_session', arguments: { session_id } })).structuredContent.processes;
    if (left !== resident) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(left, resident, 'processes after a killed run');
  const bad = await client.callTool({ name: 'install_libraries', arguments: { session_id, libraries: ['--index-url=http://evil'] } });
  assert.equal(bad.isError, true, describe(bad));
  const gone = await client.callTool({ name: 'get_session', arguments: { session_id: 'no-such-session' } });
  assert.equal(gone.isError, true);
});

// A one-module wheel served on the host's 127.0.0.1, as a package mirror would be.
test('install_libraries installs into a session from a local index (native)', { timeout: 180000 }, async (t) => {
  const dir = temporaryFolder(t, 'paddock-e2e-wheels-');
  const makeWheel = [
    'import zipfile, base64, hashlib, sys',
    "n = 'e2e_wheel_pkg'; v = '1.0'; d = n + '-' + v + '.dist-info'",
    "f = {n + '/__init__.py': \"VALUE = 'from install_libraries'\\n\",",
    "     d + '/METADATA': 'Metadata-Version: 2.1\\nName: e2e-wheel-pkg\\nVersion: ' + v + '\\n',",
    "     d + '/WHEEL': 'Wheel-Version: 1.0\\nGenerator: e2e\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'}",
    "r = [p + ',sha256=' + base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=').decode() + ',' + str(len(t)) for p, t in f.items()] + [d + '/RECORD,,']",
    "f[d + '/RECORD'] = '\\n'.join(r) + '\\n'",
    "z = zipfile.ZipFile(sys.argv[1] + '/' + n + '-' + v + '-py3-none-any.whl', 'w')",
    '[z.writestr(p, t) for p, t in f.items()]; z.close()',
  ].join('\n');
  const made = await new Promise((resolve) => spawn('python3', ['-c', makeWheel, dir], { stdio: 'inherit' }).on('exit', resolve));
  assert.equal(made, 0, 'building the wheel');
  // Served from this process on a port the kernel picks, and only once it listens: a fixed
  // port can be taken and a fixed wait can be too short on a loaded machine.
  const wheel = fs.readdirSync(dir)[0];
  const requests = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    if (req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<a href="/${wheel}">${wheel}</a>`);
    } else if (req.url === `/${wheel}`) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(fs.readFileSync(path.join(dir, wheel)));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup(t, () => { server.closeAllConnections(); server.close(); });
  const { port } = server.address();
  // As an operator points installers at a mirror on the host: the policy's installer
  // environment names it (a policy override), and --host-loopback-port lets the installer's
  // egress proxy reach that one port of the host's loopback, which it otherwise never does.
  const policies = temporaryFolder(t, 'paddock-e2e-policies-');
  fs.writeFileSync(path.join(policies, 'python.json'), JSON.stringify({
    name: 'python', install_env: { PIP_NO_INDEX: '1', PIP_FIND_LINKS: `http://127.0.0.1:${port}/` },
  }));
  fs.chmodSync(policies, 0o755);
  const { client } = await connect(t, { native: true, args: ['--policy-dir', policies, '--host-loopback-port', String(port)] });
  const created = await client.callTool({ name: 'create_session', arguments: {} });
  const { session_id } = created.structuredContent;
  const installed = await client.callTool({ name: 'install_libraries', arguments: { session_id, libraries: ['e2e-wheel-pkg'] } }, undefined, { timeout: 120000 });
  assert.equal(installed.isError, false, describe(installed));
  assert.equal(installed.structuredContent.installed, true);
  const used = await run(client, { session_id, code: 'import e2e_wheel_pkg\nprint(e2e_wheel_pkg.VALUE)' });
  assert.equal(used.structuredContent.stdout, 'from install_libraries\n', describe(used));
  assert.ok(requests.includes(`/${wheel}`), `the mirror was asked for ${requests.join(', ')}`);
  const missing = await client.callTool({ name: 'install_libraries', arguments: { session_id, libraries: ['e2e-no-such-pkg'] } }, undefined, { timeout: 120000 });
  assert.equal(missing.isError, true, describe(missing));
  assert.match(missing.content[0].text, /failed/);
});
