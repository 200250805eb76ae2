"""One `paddock mcp` process, its command line from a session's settings, and its tool calls."""

import os
import sys

from . import __version__
from ._binary import find_paddock
from ._jsonrpc import ClientClosed, McpClient, RpcError, ServerExited
from .exceptions import (LanguageNotSupportedError, ServerDiedError, ServerError,
                         SessionClosedError, ValidationError)

__all__ = ["PaddockServer", "server_command"]


def _size(value, name):
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValidationError("%s must be a size such as 512m, not %r" % (name, value))
    if isinstance(value, int):
        return str(value)  # bytes
    return str(value).strip().lower().replace("ib", "").replace("b", "") or None


def _seconds(value):
    text = ("%f" % float(value)).rstrip("0").rstrip(".")
    return text + "s"


def _network(value):
    if value is None:
        return None
    if value is True:
        return "user"
    if value is False:
        return "none"
    value = str(value)
    if value not in ("none", "user", "host"):
        raise ValidationError("network must be True, False, 'none', 'user' or 'host', not %r"
                              % value)
    return value


def server_command(paddock_bin=None, backend=None, image=None, lang="python", memory=None,
                   cpus=None, pids=None, network=None, allow_hosts=None, shares=None, env=None,
                   max_timeout=None, verbose=False, server_args=None):
    """The argv and environment of a `paddock mcp` with these settings (each one a flag of
    `paddock mcp --help`)."""
    argv = [find_paddock(paddock_bin), "mcp", "--log-level", "info" if verbose else "warning"]
    if backend is not None:
        backend = str(getattr(backend, "value", backend))
        if backend not in ("native", "docker", "podman", "kubernetes"):
            raise ValidationError("backend must be native, docker, podman or kubernetes, not %r"
                                  % backend)
        argv += ["--backend", backend]
    if image:
        argv += ["--image", "%s=%s" % (lang, image)]
    memory = _size(memory, "memory")
    if memory:
        argv += ["--memory", memory]
    if cpus is not None:
        argv += ["--cpus", str(cpus)]
    if pids is not None:
        argv += ["--pids", str(int(pids))]
    network = _network(network)
    if network:
        argv += ["--network", network]
    for host in allow_hosts or ():
        argv += ["--allow-host", str(host)]
    for share in shares or ():
        argv += ["--share", _share_flag(share)]
    if max_timeout is not None:
        argv += ["--max-timeout", _seconds(max_timeout)]
    server_env = dict(os.environ)
    if env:
        names = []
        for name, value in env.items():
            server_env[str(name)] = str(value)
            names.append(str(name))
        argv += ["--pass-through-env", ",".join(names)]
    argv += list(server_args or ())
    return argv, server_env


class Share:
    """A host folder a session may copy files from (and, with rw, to) without sending their
    bytes through the pipe: `--share DIR=NAME[:rw]`."""

    def __init__(self, path, name=None, rw=False):
        self.path = os.path.realpath(os.path.expanduser(str(path)))
        self.name = name or os.path.basename(self.path.rstrip("/")) or "root"
        self.rw = bool(rw)

    def relative(self, host_path):
        """`NAME/rest` for a host path inside this share, else None."""
        real = os.path.realpath(os.path.expanduser(str(host_path)))
        if real == self.path:
            return self.name
        if real.startswith(self.path.rstrip("/") + "/"):
            return self.name + "/" + real[len(self.path.rstrip("/")) + 1:]
        return None


def as_share(item):
    if isinstance(item, Share):
        return item
    if isinstance(item, (tuple, list)):
        return Share(*item)
    if isinstance(item, dict):
        return Share(**item)
    text = str(item)
    rw = text.endswith(":rw")
    if rw:
        text = text[:-3]
    path, _, name = text.partition("=")
    return Share(path, name or None, rw)


def _share_flag(share):
    share = as_share(share)
    return "%s=%s%s" % (share.path, share.name, ":rw" if share.rw else "")


def _tool_text(result):
    return "\n".join(block.get("text", "") for block in result.get("content") or []
                     if block.get("type") == "text").strip()


def refusal(tool, result):
    """The exception for a tool call the server refused (isError without a structured result)."""
    text = _tool_text(result) or "%s failed" % tool
    lowered = text.lower()
    if lowered.startswith("unknown language"):
        return LanguageNotSupportedError(text)
    if lowered.startswith("no session"):
        return SessionClosedError(text)
    return ServerError(text)


class PaddockServer:
    """A `paddock mcp` process. Sessions start their own; pass one as `server=` to share it
    between sessions (it is then yours to close)."""

    def __init__(self, argv=None, env=None, verbose=False, **settings):
        if argv is None:
            argv, env = server_command(verbose=verbose, **settings)
        self.argv = argv
        self._orphans = []
        self._closed = False
        try:
            self.client = McpClient(argv, env=env, client_name="paddock-python",
                                    client_version=__version__,
                                    stderr_sink=sys.stderr if verbose else None)
        except OSError as error:
            raise ServerError("could not start %s: %s" % (argv[0], error)) from None

    @classmethod
    def start(cls, argv=None, env=None, verbose=False, **settings):
        server = cls(argv, env, verbose, **settings)
        try:
            server.client.initialize()
        except BaseException as error:
            server.client.close(1.0)
            raise _start_failure(error) from None
        return server

    @classmethod
    async def astart(cls, argv=None, env=None, verbose=False, **settings):
        server = cls(argv, env, verbose, **settings)
        try:
            await server.client.ainitialize()
        except BaseException as error:
            server.client.close(1.0)
            if isinstance(error, (ServerExited, RpcError)):
                raise _start_failure(error) from None
            raise
        return server

    @property
    def pid(self):
        return self.client.pid

    @property
    def alive(self):
        return self.client.alive

    def call(self, request):
        """Run one request of a session operation: ("tool", name, arguments[, progress]) or
        ("resource", uri)."""
        self._drain_orphans()
        kind, *rest = request
        try:
            if kind == "tool":
                name, arguments = rest[:2]
                return self.client.request("tools/call", {"name": name, "arguments": arguments},
                                           progress=rest[2] if len(rest) > 2 else None)
            return self.client.request("resources/read", {"uri": rest[0]})
        except (ServerExited, RpcError) as error:
            raise _translate(error) from None

    async def acall(self, request):
        self._drain_orphans()
        kind, *rest = request
        try:
            if kind == "tool":
                name, arguments = rest[:2]
                return await self.client.arequest("tools/call",
                                                  {"name": name, "arguments": arguments},
                                                  progress=rest[2] if len(rest) > 2 else None)
            return await self.client.arequest("resources/read", {"uri": rest[0]})
        except (ServerExited, RpcError) as error:
            raise _translate(error) from None

    def forget_session(self, session_id):
        """Close a session at the next call (from a finalizer, which must not wait)."""
        self._orphans.append(session_id)

    def _drain_orphans(self):
        while self._orphans:
            try:
                session_id = self._orphans.pop()
            except IndexError:
                break
            try:
                self.client._send("tools/call", {"name": "close_session",
                                                 "arguments": {"session_id": session_id}},
                                  lambda pending: None, None)
            except Exception:
                pass

    def close(self, timeout=5.0):
        self._closed = True
        return self.client.close(timeout)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _start_failure(error):
    if isinstance(error, ServerExited):
        detail = (error.stderr or "").strip().splitlines()
        reason = detail[-1] if detail else str(error)
        return ServerError("paddock mcp did not start: %s" % reason)
    if isinstance(error, RpcError):
        return ServerError("paddock mcp refused the MCP handshake: %s" % error)
    if isinstance(error, TimeoutError):
        return ServerError("paddock mcp did not answer the MCP handshake in time")
    return error


def _translate(error):
    if isinstance(error, ClientClosed):
        return SessionClosedError("the session's paddock server was closed")
    if isinstance(error, ServerExited):
        return ServerDiedError(str(error))
    if isinstance(error, RpcError):
        return ServerError("paddock refused the call: %s (JSON-RPC error %s)"
                           % (error.message, error.code))
    return error
