"""The sessions: llm-sandbox's `SandboxSession`, `ArtifactSandboxSession` and
`InteractiveSandboxSession`, each a paddock session on its own `paddock mcp` server."""

import threading
import warnings
import weakref

from ._binary import find_paddock
from ._ops import Operations
from ._server import PaddockServer, as_share, server_command
from .const import DEFAULT_WORKDIR
from .exceptions import SessionClosedError, ValidationError
from .security import screen

__all__ = ["SandboxSession", "ArtifactSandboxSession", "InteractiveSandboxSession",
           "create_session"]

# llm-sandbox arguments that mean nothing here (no container to keep, commit or attach to).
_IGNORED = {"keep_template", "stream", "skip_environment_setup",
            "encoding_errors", "security_policy", "client", "kernel_type", "history_size",
            "poll_interval", "enable_plotting", "settings", "pool"}
# llm-sandbox arguments paddock cannot honour: an error rather than a silent surprise.
_REFUSED = {
    "dockerfile": "paddock does not build images; build it with your engine and pass image=, "
                  "or import it with `paddock import`",
    "container_id": "paddock does not attach to existing containers",
    "pod_manifest": "paddock writes its own pod specs; set the namespace with "
                    "server_args=['--namespace', NAME]",
}
# runtime_configs keys llm-sandbox passes to Docker, mapped to paddock's settings.
_RUNTIME_KEYS = {"mem_limit": "memory", "memory": "memory", "cpu_count": "cpus",
                 "cpus": "cpus", "pids_limit": "pids", "environment": "env",
                 "timeout": "timeout"}


class _State:
    """What the finalizer needs, without the session itself (so the session can be collected)."""

    __slots__ = ("server", "owned", "session_id", "closed", "__weakref__")

    def __init__(self):
        self.server = None
        self.owned = False
        self.session_id = None
        self.closed = False

    def release(self):
        """Free the server side: from close(), garbage collection or interpreter exit."""
        server, self.server = self.server, None
        session_id, self.session_id = self.session_id, None
        self.closed = True
        if server is None:
            return
        if self.owned:
            server.close()  # ending the server ends its sandboxes
        elif session_id:
            server.forget_session(session_id)


class _Settings:
    """The constructor shared by the blocking and the asyncio sessions."""

    _live = False
    _with_plots = True

    def __init__(self, backend=None, image=None, dockerfile=None, lang="python", *,
                 libraries=None, timeout=None, memory=None, cpus=None, pids=None, network=None,
                 allow_hosts=None, shares=None, env=None, verbose=False, runtime_configs=None,
                 workdir=None, default_timeout=None, execution_timeout=None,
                 session_timeout=None, max_memory=None, paddock_bin=None, server_args=None,
                 server=None, name=None, resume=None, state_dir=None, commit_container=False,
                 **llm_sandbox_options):
        if dockerfile is not None:
            llm_sandbox_options["dockerfile"] = dockerfile
        for option, value in llm_sandbox_options.items():
            if option in _REFUSED and value is not None:
                raise ValidationError("%s: %s" % (option, _REFUSED[option]))
            if option not in _IGNORED and option not in _REFUSED:
                raise TypeError("%s() got an unexpected keyword argument %r"
                                % (type(self).__name__, option))
        if llm_sandbox_options.get("enable_plotting") is False:
            self._with_plots = False
        for key, value in (runtime_configs or {}).items():
            target = _RUNTIME_KEYS.get(key)
            if target is None:
                warnings.warn("runtime_configs[%r] has no paddock equivalent and is ignored"
                              % key, stacklevel=3)
            elif target == "memory" and memory is None:
                memory = value
            elif target == "cpus" and cpus is None:
                cpus = value
            elif target == "pids" and pids is None:
                pids = value
            elif target == "env" and env is None:
                env = value
            elif target == "timeout" and timeout is None:
                timeout = value
        if memory is None:
            memory = max_memory
        self.lang = str(getattr(lang, "value", lang)).lower()
        self.backend = str(getattr(backend, "value", backend)) if backend is not None else None
        self.image = image
        self.verbose = verbose
        self._libraries = list(libraries or [])
        self._timeout = next((t for t in (timeout, execution_timeout, default_timeout)
                              if t is not None), None)
        self._ttl = session_timeout
        self._shares = [as_share(share) for share in shares or ()]
        self._aliases = [DEFAULT_WORKDIR, "/sandbox"] + ([workdir] if workdir else [])
        self.workdir = DEFAULT_WORKDIR
        max_timeout = self._timeout if (self._timeout or 0) > 300 else None
        # Kept sessions (docs/sessions.md): a name to reopen it by, an earlier one to reopen,
        # and llm-sandbox's commit_container: keep the files on disk when the session closes.
        self._name = name
        self._resume = resume
        self._keep = bool(commit_container)
        self._forks = []  # unnamed forks made here: they close with this session
        if state_dir is not None:
            server_args = list(server_args or ()) + ["--state-dir", str(state_dir)]
        self._server_settings = dict(
            paddock_bin=paddock_bin, backend=self.backend, image=image, lang=self.lang,
            memory=memory, cpus=cpus, pids=pids, network=network, allow_hosts=allow_hosts,
            shares=self._shares, env=env, max_timeout=max_timeout, verbose=verbose,
            server_args=server_args)
        # Find the binary and check the settings now, so a mistake shows where it was made.
        self._command = None if server is not None else server_command(**self._server_settings)
        self.session_id = None
        self.live = False
        self.not_live_reason = None
        self.interpreter = None
        self._lock = threading.RLock()
        self._state = _State()
        if server is not None:
            self._state.server = server
        self._finalizer = weakref.finalize(self, _State.release, self._state)

    def is_safe(self, code):
        """llm-sandbox's check: (safe, violations) for `code` in the session's language, by the
        language policy's screening rules as enforce mode applies them (a finding at or above
        the policy's threshold makes the code unsafe). Each violation is a SecurityPattern
        (pattern, description, severity, and the rule, line and text that matched). Nothing
        runs; the session need not be open."""
        settings = self._server_settings
        args = list(settings.get("server_args") or ())
        policy_dir = next((args[i + 1] for i, arg in enumerate(args[:-1])
                           if arg == "--policy-dir"), None)
        env = self._command[1] if self._command else None
        return screen(find_paddock(settings.get("paddock_bin")), self.lang, code,
                      policy_dir=policy_dir, env=env)

    @property
    def server(self):
        """The `PaddockServer` this session talks to (None before it starts)."""
        return self._state.server

    @property
    def is_open(self):
        return self.session_id is not None

    def _check_usable(self):
        if self._state.closed:
            raise SessionClosedError("the session is closed")

    def __repr__(self):
        return "<%s lang=%s session=%s>" % (type(self).__name__, self.lang,
                                            self.session_id or "none")


class SandboxSession(_Settings, Operations):
    """A sandbox that stays between calls (files, installed libraries) on its own
    `paddock mcp`. Each `run` is a new process; see InteractiveSandboxSession for a live
    interpreter. Without open()/`with`, `run` and `execute_command` use a fresh sandbox each
    call."""

    def _server(self):
        with self._lock:
            self._check_usable()
            if self._state.server is None:
                argv, env = self._command
                self._state.server = PaddockServer.start(argv, env, verbose=self.verbose)
                self._state.owned = True
            return self._state.server

    def _drive(self, operation):
        server = self._server()
        try:
            request = next(operation)
            while True:
                request = operation.send(server.call(request))
        except StopIteration as done:
            return done.value

    def open(self):
        with self._lock:
            if self.session_id is None:
                try:
                    self._drive(self._open_op())
                except BaseException:
                    if self.session_id:
                        self._drive(self._close_op())
                    self.close()
                    raise
        return self

    def close(self):
        with self._lock:
            if self._state.closed:
                return
            server = self._state.server
            if server is not None and self.session_id and server.alive:
                try:
                    self._drive(self._close_op())
                except Exception:
                    pass
            self.session_id = None
            self._finalizer()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def run(self, code, libraries=None, timeout=None, on_stdout=None, on_stderr=None,
            on_output=None):
        """Run `code`; returns its result (an ExecutionResult), whatever the code did.

        `on_output(text)` (or llm-sandbox's `on_stdout`) receives the output as it comes, lines
        of both streams in order, from the client's reader thread; the result still has them
        apart. `on_stderr` is accepted and never called: paddock's progress does not say which
        stream a line came from."""
        return self._drive(self._run_op(code, libraries, timeout, on_output or on_stdout))

    def execute_command(self, command, workdir=None, timeout=None):
        """Run a shell command (a string, or an argv list) in the sandbox; a ConsoleOutput."""
        return self._drive(self._command_op(command, workdir, timeout))

    def execute_commands(self, commands, workdir=None):
        """Run commands in order (each a string or (command, workdir)); the output of the first
        that fails, else of the last."""
        output = None
        for command in commands:
            if isinstance(command, tuple):
                output = self.execute_command(command[0], workdir=command[1])
            else:
                output = self.execute_command(command, workdir=workdir)
            if output.exit_code:
                break
        return output

    def install(self, libraries=None):
        """Install libraries into the session (the policy's package manager, with only its
        package index reachable); raises CommandFailedError when the install fails."""
        return self._drive(self._install_op(libraries))

    def copy_to_runtime(self, src, dest):
        """Copy a host file or folder into the sandbox, beneath /work."""
        return self._drive(self._copy_to_op(src, dest))

    def copy_from_runtime(self, src, dest):
        """Copy a file or folder from beneath the sandbox's /work to the host."""
        return self._drive(self._copy_from_op(src, dest))

    def restart(self):
        """A fresh interpreter in a live session (variables gone, files kept)."""
        if not self.session_id:
            raise SessionClosedError("the session is not open")
        result = self._state.server.call(("tool", "restart_session",
                                          {"session_id": self.session_id}))
        return result.get("structuredContent") or {}

    def snapshot(self, name):
        """Keep the session's files and libraries as they are now, as `name` (shared with later
        snapshots where unchanged); a dict with its size."""
        return self._drive(self._kept_op("snapshot_session", {"name": name}))

    def diff(self, since=None):
        """What changed since the session started, or since snapshot `since`: a list of dicts
        {path, change (added, changed, deleted), type, size}."""
        arguments = {"since": since} if since else {}
        return self._drive(self._kept_op("diff_session", arguments))["changes"]

    def fork(self, name=None):
        """A new session (on this server) with a copy of this one's files and libraries; its
        session id. SandboxSession(resume=id, server=...) or the MCP tools use it. An unnamed
        fork closes with this session, and is kept on disk only as this one is
        (commit_container); a named one is a kept session of its own (docs/sessions.md)."""
        arguments = {"live": self.live}
        if name:
            arguments["name"] = name
        fork_id = self._drive(self._kept_op("fork_session", arguments))["session_id"]
        if not name:
            self._forks.append(fork_id)
        return fork_id

    def export(self, host_path, snapshot=None, overwrite=False):
        """Write the session (or a snapshot) as a .tar.zst into a read-write share
        ("SHARE/name.tar.zst"); create_session's from_archive imports it."""
        arguments = {"host_path": host_path, "overwrite": overwrite}
        if snapshot:
            arguments["snapshot"] = snapshot
        return self._drive(self._kept_op("export_session", arguments))

    def info(self):
        """The server's description of the session (get_session)."""
        if not self.session_id:
            raise SessionClosedError("the session is not open")
        result = self._state.server.call(("tool", "get_session",
                                          {"session_id": self.session_id}))
        return result.get("structuredContent") or {}


class _PlotHistory:
    """llm-sandbox's artifact sessions accumulate: a result's `plots` are every figure drawn
    since the session began or its plots were last cleared, this run's last. The server returns
    each run's own figures; the session keeps the earlier ones."""

    def _take_plots(self, result):
        history = self.__dict__.setdefault("_plot_history", [])
        if self._with_plots:
            history.extend(result.plots)
            result.plots = list(history)
        return result

    def clear_plots(self):
        """Forget the figures of earlier runs: the next result holds only its own."""
        self.__dict__.setdefault("_plot_history", []).clear()


class ArtifactSandboxSession(_PlotHistory, SandboxSession):
    """A SandboxSession whose results carry `plots`: the figures drawn since the session began
    (or since `clear_plots`), in order, as llm-sandbox's do. (Every paddock run returns its
    figures; this class adds llm-sandbox's accumulation and its `clear_plots`/`enable_plotting`
    arguments.)"""

    def run(self, code, libraries=None, timeout=None, clear_plots=False, **callbacks):
        if clear_plots:
            self.clear_plots()  # before the run, so that a failing run still clears
        return self._take_plots(super().run(code, libraries, timeout, **callbacks))


class InteractiveSandboxSession(SandboxSession):
    """A live session: the interpreter (a Jupyter kernel in the sandbox) stays between runs, so
    variables, functions and imports persist. Python and R on the native backend."""

    _live = True

    def run(self, code, libraries=None, timeout=None, **callbacks):
        if not self.session_id:
            self.open()  # a live interpreter only exists in a session
        return super().run(code, libraries, timeout, **callbacks)


def create_session(backend=None, *args, **kwargs):
    """llm-sandbox's factory: a SandboxSession."""
    return SandboxSession(backend, *args, **kwargs)
