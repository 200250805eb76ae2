// The host's process table, read from /proc: which processes descend from the server, and whether
// a process seen earlier (pid + start time, so a reused pid does not count) still exists.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { kubeGet, kubeGetNetworkPolicies } from './kube.mjs';
import { sleep } from './server.mjs';

function readProc(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    } catch {
      // gone, or not ours to read
    }
    return {
      pid,
      comm,
      state: fields[0],
      ppid: Number(fields[1]),
      starttime: fields[19],
      cmdline,
    };
  } catch {
    return undefined;
  }
}

export function processTable() {
  const table = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = readProc(Number(name));
    if (p) table.set(p.pid, p);
  }
  return table;
}

// The engine a container backend (PADDOCK_BACKEND docker or podman) talks to, as paddock finds it.
function engineSocket() {
  const backend = process.env.PADDOCK_BACKEND;
  if (backend !== 'docker' && backend !== 'podman') return undefined;
  const address = backend === 'docker'
    ? (process.env.DOCKER_HOST || 'unix:///var/run/docker.sock')
    : (process.env.CONTAINER_HOST || 'unix:///run/podman/podman.sock');
  return address.replace(/^unix:\/\//, '');
}

// With a container backend a sandbox's processes are the engine's children, not the server's:
// they are the processes in the cgroups of the containers labelled with the server's pid.
function containerProcesses(ownerPid, table) {
  const socket = engineSocket();
  if (!socket) return [];
  const filters = encodeURIComponent(JSON.stringify({ label: [`io.paddock.pid=${ownerPid}`] }));
  let ids = [];
  try {
    const listed = execFileSync('curl', ['-s', '--unix-socket', socket,
      `http://localhost/v1.41/containers/json?all=true&filters=${filters}`], { encoding: 'utf8' });
    ids = JSON.parse(listed).map((c) => c.Id);
  } catch {
    return [];
  }
  const out = [];
  for (const p of table.values()) {
    let cgroup = '';
    try {
      cgroup = fs.readFileSync(`/proc/${p.pid}/cgroup`, 'utf8');
    } catch {
      continue;
    }
    if (p.state !== 'Z' && ids.some((id) => cgroup.includes(id))) out.push(p);
  }
  return out;
}

// With the kubernetes backend against the test API server (tests/support/kube_api_server.py),
// a pod's processes are its execs: the nsenter whose command line names the pod's host directory
// and everything below it. The container's keeper (`sleep` under bubblewrap) is left out, as a
// real cluster's is not on this host: it goes when the pod is deleted, which the cluster does in
// its own time.
function podProcesses(ownerPid, table, children) {
  const listed = kubeGet(`pods?labelSelector=io.paddock.pid%3D${ownerPid}`);
  if (!listed) return [];
  const directories = (listed.items || []).map((pod) => pod.metadata.annotations?.['paddock.test/host-directory']).filter(Boolean);
  const out = [];
  const queue = [...table.values()].filter((p) => p.cmdline.startsWith('nsenter:') && directories.some((d) => p.cmdline.includes(d)));
  while (queue.length) {
    const p = queue.shift();
    if (p.state !== 'Z') out.push(p);
    queue.push(...(children.get(p.pid) || []));
  }
  return out;
}

// The names of the pods a server (by pid) has in the cluster, with the kubernetes backend; [] with
// any other.
export function podsOf(ownerPid) {
  const listed = kubeGet(`pods?labelSelector=io.paddock.pid%3D${ownerPid}`);
  return (listed?.items || []).map((pod) => pod.metadata.name);
}

// The same for the NetworkPolicies it made (one per pod without network).
export function networkPoliciesOf(ownerPid) {
  const listed = kubeGetNetworkPolicies(`?labelSelector=io.paddock.pid%3D${ownerPid}`);
  return (listed?.items || []).map((policy) => policy.metadata.name);
}

// Every live process whose parent chain leads to `rootPid` (not rootPid itself), and with a
// container backend every process of its containers or pods; zombies left out.
export function descendants(rootPid) {
  const table = processTable();
  const children = new Map();
  for (const p of table.values()) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(p);
  }
  const out = [];
  const queue = [rootPid];
  while (queue.length) {
    const pid = queue.shift();
    for (const c of children.get(pid) || []) {
      if (c.state !== 'Z') out.push(c);
      queue.push(c.pid);
    }
  }
  return out.concat(containerProcesses(rootPid, table), podProcesses(rootPid, table, children));
}

// descendants(rootPid) once it has stayed the same for `quietMs`: a server sets up its warm
// sandboxes in the background after it starts, and a baseline taken before they are there would
// count them as a run's.
export async function settledDescendants(rootPid, quietMs = 400, timeoutMs = 10000) {
  const end = Date.now() + timeoutMs;
  const keyOf = (list) => list.map((p) => `${p.pid}/${p.starttime}`).sort().join(',');
  let list = descendants(rootPid);
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < end) {
    await sleep(50);
    const now = descendants(rootPid);
    if (keyOf(now) !== keyOf(list)) since = Date.now();
    list = now;
  }
  return list;
}

export function stillAlive(procs) {
  return procs.filter((p) => {
    const now = readProc(p.pid);
    return now && now.starttime === p.starttime && now.state !== 'Z';
  });
}

export function describeProcs(procs) {
  return procs.map((p) => `${p.pid} (${p.comm}) ${p.cmdline}`).join('\n  ');
}

// Polls until `predicate(descendants(rootPid))` holds; resolves with the last list or undefined
// on timeout.
export async function waitForDescendants(rootPid, predicate, timeoutMs = 10000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const list = descendants(rootPid);
    if (predicate(list)) return list;
    if (Date.now() > end) return undefined;
    await sleep(50);
  }
}

// Polls until none of `procs` is alive; resolves with those still alive after timeoutMs.
export async function waitGone(procs, timeoutMs = 3000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const alive = stillAlive(procs);
    if (alive.length === 0 || Date.now() > end) return alive;
    await sleep(50);
  }
}

export const isUserCode = (p) => /python3|main\.py|sleep/.test(`${p.comm} ${p.cmdline}`);
