#!/usr/bin/python3
"""A test stand-in for a Kubernetes API server: the parts paddock's Kubernetes backend uses,
faithful to the API documentation, over HTTPS with bearer-token auth, on one port.

  POST   /api/v1/namespaces/NS/pods                 create (a Pod object); 409 if the name exists
  GET    /api/v1/namespaces/NS/pods[?labelSelector=k=v,...]   list
  GET    /api/v1/namespaces/NS/pods/NAME            read (status.phase, conditions,
                                                    containerStatuses[].state)
  DELETE /api/v1/namespaces/NS/pods/NAME            delete (its processes are killed)
  POST, GET (list, one), DELETE /api/v1/namespaces/NS/secrets[/NAME]   Secrets (data in base64,
                                                    stringData written into data on create)
  POST, GET (list, one), DELETE /apis/networking.k8s.io/v1/namespaces/NS/networkpolicies[/NAME]
                                                    NetworkPolicies, kept as written (pods run
                                                    on this host's network whatever they say);
                                                    in a namespace named "no-networkpolicies"
                                                    every request for them is 403 Forbidden, as
                                                    RBAC answers an account without the verbs
  GET    /api/v1/namespaces/NS/pods/NAME/log        the first container's output
  GET    /api/v1/namespaces/NS/pods/NAME/exec?command=...&stdout=true&stderr=true[&stdin=true]
         WebSocket, subprotocol v5.channel.k8s.io or v4.channel.k8s.io: binary messages whose
         first byte is the channel (0 stdin, 1 stdout, 2 stderr, 3 status, 4 resize; v5: 255 =
         close), and a metav1.Status on channel 3 when the command ends.

A container's env may take values from Secrets (valueFrom.secretKeyRef); a missing Secret or
key leaves the pod waiting with CreateContainerConfigError, as a kubelet does.

A pod "runs" on this host: its container's command starts in bubblewrap as PID 1 of a user and
PID namespace of its own, with the pod's own directories as /work and /tmp; each exec joins
its namespaces with nsenter, as execs join a container (so files persist between execs, and an
exec sees the container's processes and only them). Deleting the pod kills its command, and
with it every process in its PID namespace. Faults for the tests, by image name: an image
containing "missing" never pulls (ErrImagePull, then ImagePullBackOff; ErrImageNeverPull with
imagePullPolicy Never); an image containing "slow-pull" takes 3 s to pull (ContainerCreating
until then); resources.requests.cpu over 64 cannot be scheduled (PodScheduled False,
Unschedulable). Other pods go Pending -> Running after 0.2 s.

Usage: kube_api_server.py CERT KEY TOKEN PORT_FILE   (writes the port it listens on to PORT_FILE)
"""

import asyncio
import base64
import fcntl
import hashlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse

NS_GET_USERNS = 0xB701  # ioctl on a namespace: an fd of the user namespace that owns it
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

PODS = {}  # (namespace, name) -> {"object": pod, "dir": str, "created": float, "procs": set,
          #                      "container": Popen or None, "child": its pid or None,
          #                      "env": the container's variables, "config_error": str or None}
SECRETS = {}  # (namespace, name) -> the Secret object
NETWORK_POLICIES = {}  # (namespace, name) -> the NetworkPolicy object
TOKEN = ""
BWRAP = "/usr/bin/bwrap"


def status(code, reason, message, extra=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Success" if code < 400 else "Failure",
            "message": message, "reason": reason, "code": code}
    body.update(extra or {})
    return body


def answer(code, body):
    return (code, {"Content-Type": "application/json"}, json.dumps(body).encode())


def pod_state(entry):
    """The pod object as the API shows it now."""
    pod = entry["object"]
    image = pod["spec"]["containers"][0].get("image", "")
    requests = pod["spec"]["containers"][0].get("resources", {}).get("requests", {})
    cpu = requests.get("cpu", "0")
    cpu_cores = float(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)
    started = time.time() - entry["created"] > (3 if "slow-pull" in image else 0.2)
    name = pod["spec"]["containers"][0]["name"]
    if cpu_cores > 64:
        pod["status"] = {"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "message": "0/1 nodes are available: 1 Insufficient cpu."}]}
    elif entry["config_error"]:
        pod["status"] = {"phase": "Pending", "containerStatuses": [
            {"name": name, "ready": False, "state": {"waiting": {
                "reason": "CreateContainerConfigError", "message": entry["config_error"]}}}]}
    elif "missing" in image and pod["spec"]["containers"][0].get("imagePullPolicy") == "Never":
        pod["status"] = {"phase": "Pending", "containerStatuses": [
            {"name": name, "ready": False, "state": {"waiting": {
                "reason": "ErrImageNeverPull",
                "message": f'Container image "{image}" is not present with pull policy of Never'}}}]}
    elif "missing" in image:
        reason = "ImagePullBackOff" if started else "ErrImagePull"
        pod["status"] = {"phase": "Pending", "containerStatuses": [
            {"name": name, "ready": False, "state": {"waiting": {
                "reason": reason, "message": f'Back-off pulling image "{image}"'}}}]}
    elif not started:
        pod["status"] = {"phase": "Pending", "containerStatuses": [
            {"name": name, "ready": False,
             "state": {"waiting": {"reason": "ContainerCreating"}}}]}
    else:
        pod["status"] = {"phase": "Running", "containerStatuses": [
            {"name": name, "ready": True, "state": {"running": {"startedAt": "now"}}}]}
    return pod


def matches(pod, selector):
    labels = pod["metadata"].get("labels", {})
    for term in filter(None, selector.split(",")):
        key, _, value = term.partition("=")
        if labels.get(key) != value:
            return False
    return True


def container_environment(namespace, container):
    """The container's variables, those from Secrets resolved; or an error as a kubelet says it."""
    environment = {}
    for item in container.get("env", []):
        reference = item.get("valueFrom", {}).get("secretKeyRef")
        if reference is None:
            environment[item["name"]] = item.get("value", "")
            continue
        secret = SECRETS.get((namespace, reference.get("name", "")))
        if secret is None:
            return None, f'secret "{reference.get("name", "")}" not found'
        if reference.get("key") not in secret.get("data", {}):
            return None, f"couldn't find key {reference.get('key')} in Secret {namespace}/{reference.get('name')}"
        environment[item["name"]] = base64.b64decode(secret["data"][reference["key"]]).decode()
    environment.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return environment, None


def secret_from_request(secret):
    """A Secret as stored: stringData written into data (base64), as the API server does; never
    refused here."""
    data = secret.setdefault("data", {})
    for key, value in secret.pop("stringData", {}).items():
        data[key] = base64.b64encode(value.encode()).decode()
    return None


def network_policy_from_request(policy):
    """None, or why the API server would refuse this NetworkPolicy."""
    if not isinstance(policy.get("spec", {}).get("podSelector"), dict):
        return "NetworkPolicy is invalid: spec.podSelector: Required value"
    return None


# The kinds kept as plain objects: their store, the API's plural, and what a create does first.
KINDS = {"secrets": (SECRETS, "Secret", secret_from_request),
         "networkpolicies": (NETWORK_POLICIES, "NetworkPolicy", network_policy_from_request)}


def objects(plural, method, namespace, name, query, body):
    store, kind, on_create = KINDS[plural]
    if plural == "networkpolicies" and namespace == "no-networkpolicies":
        verb = {"POST": "create", "GET": "get" if name else "list", "DELETE": "delete"}.get(
            method, method.lower())
        return answer(403, status(403, "Forbidden", (
            f'networkpolicies.networking.k8s.io{" " + repr(name) if name else ""} is forbidden: '
            f'User "system:serviceaccount:{namespace}:paddock" cannot {verb} resource '
            f'"networkpolicies" in API group "networking.k8s.io" in the namespace "{namespace}"'),
            {"details": {"group": "networking.k8s.io", "kind": "networkpolicies"}}))
    if name is None and method == "POST":
        item = json.loads(body or b"{}")
        name = item.get("metadata", {}).get("name", "")
        if not name:
            return answer(422, status(422, "Invalid", f"{kind} is invalid: metadata.name"))
        if (namespace, name) in store:
            return answer(409, status(409, "AlreadyExists", f'{plural} "{name}" already exists'))
        if problem := on_create(item):
            return answer(422, status(422, "Invalid", problem))
        item["metadata"]["namespace"] = namespace
        store[(namespace, name)] = item
        return answer(201, item)
    if name is None and method == "GET":
        selector = query.get("labelSelector", [""])[0]
        items = [item for (ns, _), item in store.items()
                 if ns == namespace and matches(item, selector)]
        return answer(200, {"kind": kind + "List", "apiVersion": "v1", "items": items})
    if name is not None and (namespace, name) not in store:
        return answer(404, status(404, "NotFound", f'{plural} "{name}" not found'))
    if name is not None and method == "GET":
        return answer(200, store[(namespace, name)])
    if name is not None and method == "DELETE":
        return answer(200, store.pop((namespace, name)))
    return answer(405, status(405, "MethodNotAllowed", method))


def rest(method, path, query, body):
    parts = path.strip("/").split("/")
    if len(parts) in (5, 6) and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "secrets":
        return objects("secrets", method, parts[3], parts[5] if len(parts) == 6 else None, query,
                       body)
    if len(parts) in (6, 7) and parts[:4] == ["apis", "networking.k8s.io", "v1", "namespaces"] \
            and parts[5] == "networkpolicies":
        return objects("networkpolicies", method, parts[4], parts[6] if len(parts) == 7 else None,
                       query, body)
    if len(parts) < 5 or parts[:3] != ["api", "v1", "namespaces"] or parts[4] != "pods":
        return answer(404, status(404, "NotFound", f"the server could not find {path}"))
    namespace = parts[3]
    if len(parts) == 5:
        if method == "POST":
            pod = json.loads(body or b"{}")
            name = pod.get("metadata", {}).get("name", "")
            if not name or not pod.get("spec", {}).get("containers"):
                return answer(422, status(422, "Invalid", "Pod is invalid: name and containers"))
            if (namespace, name) in PODS:
                return answer(409, status(409, "AlreadyExists", f'pods "{name}" already exists'))
            pod["metadata"]["namespace"] = namespace
            pod["metadata"]["uid"] = os.urandom(8).hex()
            directory = tempfile.mkdtemp(prefix="kube-pod-")
            # A stand-in's own annotation: where the pod lives on this host, so that tests can
            # find its processes (a real cluster's pods are not on the test's host).
            pod["metadata"].setdefault("annotations", {})["paddock.test/host-directory"] = directory
            os.mkdir(os.path.join(directory, "work"))
            os.mkdir(os.path.join(directory, "tmp"))
            environment, config_error = container_environment(namespace, pod["spec"]["containers"][0])
            entry = {"object": pod, "dir": directory, "created": time.time(), "procs": set(),
                     "container": None, "child": None, "env": environment,
                     "config_error": config_error}
            PODS[(namespace, name)] = entry
            if pod_state(entry)["status"].get("conditions") is None and not config_error and \
                    "missing" not in pod["spec"]["containers"][0].get("image", ""):
                start_container(entry)
            return answer(201, pod_state(entry))
        if method == "GET":
            selector = query.get("labelSelector", [""])[0]
            items = [pod_state(entry) for (ns, _), entry in PODS.items()
                     if ns == namespace and matches(entry["object"], selector)]
            return answer(200, {"kind": "PodList", "apiVersion": "v1", "items": items})
        return answer(405, status(405, "MethodNotAllowed", method))
    name = parts[5]
    entry = PODS.get((namespace, name))
    if entry is None:
        return answer(404, status(404, "NotFound", f'pods "{name}" not found'))
    if len(parts) == 7 and parts[6] == "log" and method == "GET":
        return (200, {"Content-Type": "text/plain"}, b"")
    if len(parts) == 6 and method == "GET":
        return answer(200, pod_state(entry))
    if len(parts) == 6 and method == "DELETE":
        for process in [entry["container"], *entry["procs"]]:
            try:
                if process is not None:
                    os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if entry["container"] is not None:
            entry["container"].wait()
        if "owner_ns" in entry:
            os.close(entry["owner_ns"])
        del PODS[(namespace, name)]
        shutil.rmtree(entry["dir"], ignore_errors=True)
        return answer(200, entry["object"])
    return answer(405, status(405, "MethodNotAllowed", method))


def start_container(entry):
    """The container's command as PID 1 of new user, PID and mount namespaces (no reaper above
    it, as in a container), as the container's user: the user namespace maps it to whoever runs
    this server, who owns the pod's directories (fsGroup's effect)."""
    spec = entry["object"]["spec"]
    container = spec["containers"][0]
    security = spec.get("securityContext", {})
    uid = str(security.get("runAsUser", os.getuid()))
    info_read, info_write = os.pipe()
    entry["container"] = subprocess.Popen(
        [BWRAP, "--unshare-user", "--unshare-pid", "--as-pid-1", "--info-fd", str(info_write),
         "--uid", uid, "--gid", str(security.get("runAsGroup", uid)),
         "--ro-bind", "/", "/", "--bind", os.path.join(entry["dir"], "work"), "/work",
         "--bind", os.path.join(entry["dir"], "tmp"), "/tmp", "--dev", "/dev", "--proc", "/proc",
         "--die-with-parent", "--chdir", container.get("workingDir", "/work"), "--clearenv",
         *[arg for name, value in entry["env"].items()
           for arg in ("--setenv", name, value)],
         "--", *container.get("command", ["sleep", "infinity"])],
        pass_fds=(info_write,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    os.close(info_write)
    with os.fdopen(info_read) as info:
        child = json.loads(info.read() or "{}").get("child-pid")
    if child is None:
        raise RuntimeError("bubblewrap did not start the pod's container")
    # The pid comes before the new root is ready: an exec joins only once the command runs.
    bwrap = os.path.realpath(BWRAP)
    for _ in range(1000):
        try:
            if os.readlink(f"/proc/{child}/exe") != bwrap:
                break
        except OSError:
            break
        time.sleep(0.005)
    entry["child"] = child
    # The user namespace that owns the container's PID namespace: an exec must hold it to join.
    # As root it is this server's own; bubblewrap run by anyone else nests the container's user
    # namespace in one of its own, which owns the rest.
    pid_ns = os.open(f"/proc/{child}/ns/pid", os.O_RDONLY)
    owner = fcntl.ioctl(pid_ns, NS_GET_USERNS)
    os.close(pid_ns)
    owner_id = os.fstat(owner).st_ino
    if owner_id == os.stat("/proc/self/ns/user").st_ino:
        os.close(owner)
    else:
        entry["owner_ns"] = owner
    # The container's own user namespace, when it is not that one: joined second, from inside.
    entry["user_ns"] = os.stat(f"/proc/{child}/ns/user").st_ino != owner_id


def ws_frame(opcode, payload):
    """A server's WebSocket frame (RFC 6455): never masked."""
    head = bytes([0x80 | opcode])
    if len(payload) < 126:
        head += bytes([len(payload)])
    elif len(payload) < 65536:
        head += bytes([126]) + len(payload).to_bytes(2, "big")
    else:
        head += bytes([127]) + len(payload).to_bytes(8, "big")
    return head + payload


async def ws_read(reader):
    """One client frame: (opcode, payload); clients must mask."""
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(await reader.readexactly(2), "big")
    elif length == 127:
        length = int.from_bytes(await reader.readexactly(8), "big")
    if not second & 0x80:
        raise ValueError("an unmasked frame from a client")
    mask = await reader.readexactly(4)
    data = await reader.readexactly(length)
    return first & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))


async def run_exec(reader, writer, entry, query, v5):
    lock = asyncio.Lock()

    async def send(channel, data):
        async with lock:
            writer.write(ws_frame(0x2, bytes([channel]) + data))
            await writer.drain()

    if pod_state(entry)["status"]["phase"] != "Running":
        await send(3, json.dumps(status(400, "BadRequest", "pod is not running")).encode())
        return
    # nsenter joins the container's PID and mount namespaces and its root (the mount namespace
    # alone would leave the host's root), then, from inside, its user namespace, keeping the
    # identity that namespace maps to the container's user. The first one's argv[0] names the
    # pod's directory, so that tests find the exec's processes below it (see
    # paddock.test/host-directory).
    container = entry["object"]["spec"]["containers"][0]
    owner = entry.get("owner_ns")
    process = await asyncio.create_subprocess_exec(
        f"nsenter:{entry['dir']}", *([f"--user=/proc/self/fd/{owner}"] if owner else []),
        "--target", str(entry["child"]), "--pid", "--mount", "--root", "--preserve-credentials",
        "--", *(["/usr/bin/nsenter", "--target", "1", "--user", "--preserve-credentials", "--"]
               if entry["user_ns"] else []),
        # env, not nsenter's --wd, which opens the directory before it joins.
        "/usr/bin/env", "-i", "-C", container.get("workingDir", "/work"),
        *[f"{name}={value}" for name, value in entry["env"].items()],
        *query.get("command", []), executable="/usr/bin/nsenter",
        pass_fds=(owner,) if owner else (),
        # Without stdin=true the command's stdin is empty, as in a container.
        stdin=asyncio.subprocess.PIPE if query.get("stdin") == ["true"] else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    entry["procs"].add(process)

    async def pump(stream, channel):
        while chunk := await stream.read(65536):
            await send(channel, chunk)

    async def feed():
        while True:
            opcode, data = await ws_read(reader)
            if opcode == 0x8:  # close: the client is gone, and so is the command
                process.kill()
                return
            if opcode == 0x9:
                async with lock:
                    writer.write(ws_frame(0xA, data))
            elif opcode == 0x2 and data[:1] == b"\x00":
                process.stdin.write(data[1:])
                await process.stdin.drain()
            elif opcode == 0x2 and v5 and data == b"\xff\x00":
                process.stdin.close()

    feeder = asyncio.ensure_future(feed())
    try:
        await asyncio.gather(pump(process.stdout, 1), pump(process.stderr, 2))
        code = await process.wait()
    finally:
        feeder.cancel()
        entry["procs"].discard(process)
    if code == 0:
        result = {"metadata": {}, "status": "Success"}
    else:
        exit_code = code if code >= 0 else 128 - code
        result = status(500, "NonZeroExitCode",
                        f"command terminated with non-zero exit code: {exit_code}",
                        {"details": {"causes": [{"reason": "ExitCode",
                                                 "message": str(exit_code)}]}})
    await send(3, json.dumps(result).encode())
    async with lock:
        writer.write(ws_frame(0x8, (1000).to_bytes(2, "big")))
        await writer.drain()


async def handle(reader, writer):
    """HTTP/1.1 requests, kept alive until the client closes; an exec upgrades to WebSocket."""
    try:
        while True:
            request = await reader.readline()
            if not request:
                return
            method, target, _ = request.decode().split(" ", 2)
            # Every request line, as an API server's audit log records it: the tests check
            # that no code, file content or stdin travels in one.
            print(f"{method} {target}", flush=True)
            headers = {}
            while (line := (await reader.readline()).decode().strip()):
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            url = urllib.parse.urlsplit(target)
            query = urllib.parse.parse_qs(url.query)
            if headers.get("authorization", "") != f"Bearer {TOKEN}":
                code, _, payload = answer(401, status(401, "Unauthorized", "Unauthorized"))
                ctype = "application/json"
            elif url.path.endswith("/exec") and headers.get("upgrade", "").lower() == "websocket":
                parts = url.path.strip("/").split("/")
                entry = PODS.get((parts[3], parts[5]))
                offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",")]
                chosen = next((p for p in ("v5.channel.k8s.io", "v4.channel.k8s.io")
                               if p in offered), None)
                if entry is None or chosen is None:
                    code, _, payload = answer(400 if entry else 404, status(
                        400 if entry else 404, "BadRequest",
                        "no such pod" if entry is None else "no supported channel protocol"))
                    ctype = "application/json"
                else:
                    accept = base64.b64encode(hashlib.sha1(
                        (headers["sec-websocket-key"] + WS_GUID).encode()).digest()).decode()
                    writer.write((
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n"
                        f"Sec-WebSocket-Protocol: {chosen}\r\n\r\n").encode())
                    await writer.drain()
                    await run_exec(reader, writer, entry, query, chosen.startswith("v5"))
                    return
            else:
                code, headers_out, payload = rest(method, url.path, query, body)
                ctype = headers_out["Content-Type"]
            writer.write((f"HTTP/1.1 {code} {'OK' if code < 400 else 'Error'}\r\n"
                          f"Content-Type: {ctype}\r\nContent-Length: {len(payload)}\r\n\r\n"
                          ).encode() + payload)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        return
    finally:
        writer.close()


def main():
    global TOKEN
    cert, key, TOKEN, port_file = sys.argv[1:5]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    async def serve():
        # SIGTERM (the test ending) deletes every pod: its processes and its directories.
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        # A request line and headers up to 1 MiB, as the API server's (Go's default
        # MaxHeaderBytes): an exec's command is in its URL.
        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context, limit=1 << 20)
        port = server.sockets[0].getsockname()[1]
        with open(port_file + ".tmp", "w") as out:
            out.write(str(port))
        os.rename(port_file + ".tmp", port_file)
        await stop.wait()
        server.close()
        for namespace, name in list(PODS):
            rest("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}", {}, b"")

    asyncio.run(serve())


if __name__ == "__main__":
    main()
