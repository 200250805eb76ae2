// The Kubernetes API the suite's kubernetes backend talks to (the test API server,
// tests/support/kube_api_server.py), read with curl as the kubeconfig says: for what a test
// checks of the cluster's objects. Only when PADDOCK_BACKEND is kubernetes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

// `GET path` below the namespace (e.g. "pods?labelSelector=..."; the kubeconfig's unless
// `namespace`), of the core API or of another (`api`: "apis/networking.k8s.io/v1" for
// NetworkPolicies): the parsed answer, or undefined when there is no cluster or it cannot be read.
export function kubeGet(path, { api = 'api/v1', namespace: inNamespace } = {}) {
  if (process.env.PADDOCK_BACKEND !== 'kubernetes' || !process.env.KUBECONFIG) return undefined;
  const config = fs.readFileSync(process.env.KUBECONFIG.split(':')[0], 'utf8');
  const server = /server:\s*(\S+)/.exec(config)?.[1];
  const ca = /certificate-authority-data:\s*(\S+)/.exec(config)?.[1];
  const token = /token:\s*(\S+)/.exec(config)?.[1]?.replace(/[}]$/, '');
  const namespace = /namespace:\s*([\w-]+)/.exec(config)?.[1] || 'default';
  if (!server || !ca || !token) return undefined;
  const caFile = `/tmp/paddock-e2e-ca-${process.pid}.pem`;
  fs.writeFileSync(caFile, Buffer.from(ca, 'base64'));
  try {
    return JSON.parse(execFileSync('curl', ['-s', '--cacert', caFile, '-H', `Authorization: Bearer ${token}`,
      `${server}/${api}/namespaces/${inNamespace || namespace}/${path}`], { encoding: 'utf8' }));
  } catch {
    return undefined;
  } finally {
    fs.rmSync(caFile, { force: true });
  }
}

// `GET path` below the namespace's NetworkPolicies (e.g. "?labelSelector=...", "/NAME").
export function kubeGetNetworkPolicies(path) {
  return kubeGet(`networkpolicies${path}`, { api: 'apis/networking.k8s.io/v1' });
}
