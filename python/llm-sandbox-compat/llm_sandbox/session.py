"""llm-sandbox's sessions on paddock: `SandboxSession` (its `create_session`),
`ArtifactSandboxSession` and `InteractiveSandboxSession`, each holding a session of paddock's
library and doing as llm-sandbox does where the two differ: a run past its timeout raises
SandboxTimeoutError, results are llm-sandbox's frozen classes, calls on a session not open raise
NotOpenSessionError, and a folder copied out keeps its name."""

import time
from dataclasses import dataclass, field
from importlib.util import find_spec  # noqa: F401 (llm-sandbox's tests patch this name)
from typing import Any, Dict, Optional

import paddock

from . import _copies
from ._translate import paddock_backend, paddock_image, translated
from .const import SupportedLanguage
from .data import from_paddock
from .exceptions import (CommandEmptyError, LanguageNotSupportPlotError, NotOpenSessionError,
                         SandboxTimeoutError)
from .security import SecurityPolicy, check_code

__all__ = ["SandboxSession", "ArtifactSandboxSession", "InteractiveSandboxSession",
           "PooledSandboxSession", "ContainerPoolManager", "SessionConfig", "create_session",
           "Session"]


@dataclass
class SessionConfig:
    """A session's settings, as llm-sandbox's `session.config` has them."""

    lang: str = SupportedLanguage.PYTHON
    image: Optional[str] = None
    dockerfile: Optional[str] = None
    container_id: Optional[str] = None
    verbose: bool = False
    workdir: str = "/sandbox"
    default_timeout: Optional[float] = 60.0
    execution_timeout: Optional[float] = None
    session_timeout: Optional[float] = None
    security_policy: Optional[SecurityPolicy] = None
    runtime_configs: Dict[str, Any] = field(default_factory=dict)
    skip_environment_setup: bool = False
    encoding_errors: str = "strict"

    def __post_init__(self):
        if self.image is not None and self.dockerfile is not None:
            raise ValueError("Only one of 'image' or 'dockerfile' can be provided, not both")
        if self.container_id is not None and self.dockerfile is not None:
            raise ValueError("Cannot use 'dockerfile' with existing 'container_id'")

    def get_execution_timeout(self):
        return self.execution_timeout or self.default_timeout

    def is_using_existing_container(self):
        return self.container_id is not None


class Session:
    """One llm-sandbox session on a paddock session (`self.paddock`)."""

    _paddock_class = paddock.SandboxSession
    _with_plots = False

    def __init__(self, client=None, image=None, dockerfile=None, lang=SupportedLanguage.PYTHON,
                 keep_template=False, commit_container=False, verbose=False, stream=False,
                 runtime_configs=None, workdir="/sandbox", security_policy=None,
                 default_timeout=None, execution_timeout=None, session_timeout=None,
                 container_id=None, skip_environment_setup=False, encoding_errors="strict",
                 *, backend=None, kube_namespace=None, **paddock_options):
        self.lang = str(getattr(lang, "value", lang)).lower()
        self.verbose = verbose
        self.stream = stream
        self.config = SessionConfig(
            lang=self.lang, image=image, dockerfile=dockerfile, container_id=container_id,
            verbose=verbose, workdir=workdir or "/sandbox", default_timeout=default_timeout,
            execution_timeout=execution_timeout, session_timeout=session_timeout,
            security_policy=security_policy, runtime_configs=dict(runtime_configs or {}),
            skip_environment_setup=skip_environment_setup, encoding_errors=encoding_errors)
        self.backend = paddock_backend(backend)
        if kube_namespace and self.backend == "kubernetes":
            paddock_options["server_args"] = (list(paddock_options.get("server_args") or ())
                                               + ["--namespace", str(kube_namespace)])
        self.kube_namespace = kube_namespace
        self._opened_at = None
        self._paddock_args = (self.backend, paddock_image(image, self.lang), dockerfile,
                              self.lang)
        self._paddock_kwargs = dict(
            verbose=verbose, runtime_configs=runtime_configs, workdir=workdir,
            session_timeout=session_timeout, commit_container=commit_container,
            container_id=container_id, keep_template=keep_template, stream=stream,
            skip_environment_setup=skip_environment_setup, client=client,
            timeout=paddock_options.pop("timeout", None) or self.config.get_execution_timeout(),
            **paddock_options)
        self.paddock = self._make_paddock()

    def _make_paddock(self, **changes):
        """The paddock session underneath (its server started when it opens)."""
        with translated(self.lang):
            return self._paddock_class(*self._paddock_args,
                                       **dict(self._paddock_kwargs, **changes))

    # -- life --------------------------------------------------------------------------------

    def open(self):
        with translated(self.lang):
            self.paddock.open()
        self._opened_at = time.monotonic()

    def close(self):
        self._opened_at = None
        self.paddock.close()

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def is_open(self):
        return self.paddock.is_open

    def _require_open(self):
        if not self.paddock.is_open:
            raise NotOpenSessionError()
        lifetime = self.config.session_timeout
        if lifetime and self._opened_at and time.monotonic() - self._opened_at > lifetime:
            raise SandboxTimeoutError("Session exceeded maximum lifetime of %s seconds"
                                      % lifetime)

    # -- running -----------------------------------------------------------------------------

    def _timeout(self, timeout):
        return timeout or self.config.get_execution_timeout()

    def _finished(self, result, timeout):
        if result.timed_out:
            seconds = timeout if timeout is not None else (result.raw or {}).get(
                "timeout_seconds")
            raise SandboxTimeoutError("Operation timed out after %s seconds" % seconds,
                                      timeout_duration=seconds)
        return result

    def run(self, code, libraries=None, timeout=None, on_stdout=None, on_stderr=None):
        self._require_open()
        timeout = self._timeout(timeout)
        if libraries:
            self.install(libraries)
        with translated(self.lang):
            result = self.paddock.run(code, timeout=timeout, on_stdout=on_stdout,
                                      on_stderr=on_stderr)
        return from_paddock(self._finished(result, timeout), self._with_plots)

    def execute_command(self, command, workdir=None, on_stdout=None, on_stderr=None):
        if not command:
            raise CommandEmptyError()
        self._require_open()
        with translated(self.lang):
            result = self.paddock.execute_command(command, workdir=workdir)
        if on_stdout is not None and result.stdout:
            on_stdout(result.stdout)
        if on_stderr is not None and result.stderr:
            on_stderr(result.stderr)
        return from_paddock(self._finished(result, None))

    def execute_commands(self, commands, workdir=None, on_stdout=None, on_stderr=None):
        output = from_paddock(paddock.ConsoleOutput(exit_code=0))
        for command in commands:
            if isinstance(command, (tuple, list)) and len(command) == 2 and (
                    command[1] is None or isinstance(command[1], str)):
                output = self.execute_command(command[0], workdir=command[1],
                                              on_stdout=on_stdout, on_stderr=on_stderr)
            else:
                output = self.execute_command(command, workdir=workdir, on_stdout=on_stdout,
                                              on_stderr=on_stderr)
            if output.exit_code:
                return output
        return output

    def install(self, libraries=None):
        if not libraries:
            return
        self._require_open()
        with translated(self.lang):
            self.paddock.install(list(libraries))

    # -- files -------------------------------------------------------------------------------

    def copy_to_runtime(self, src, dest):
        self._require_open()
        with translated(self.lang):
            _copies.copy_to(self.paddock, src, dest)

    def copy_from_runtime(self, src, dest):
        self._require_open()
        with translated(self.lang):
            _copies.copy_from(self.paddock, src, dest)

    # -- screening ---------------------------------------------------------------------------

    def is_safe(self, code):
        """(safe, violations) by the session's `security_policy` (none: safe)."""
        return check_code(self.config.security_policy, self.lang, code)

    def __repr__(self):
        return "<llm_sandbox %s on %r>" % (type(self).__name__, self.paddock)


class ArtifactSandboxSession(Session):
    """A session whose results carry the figures drawn (`plots`), accumulated across runs
    until `clear_plots` as llm-sandbox's are."""

    _paddock_class = paddock.ArtifactSandboxSession
    _with_plots = True

    def __init__(self, backend=None, image=None, dockerfile=None, lang=SupportedLanguage.PYTHON,
                 *, pool=None, keep_template=False, commit_container=False, verbose=False,
                 runtime_configs=None, workdir="/sandbox", enable_plotting=True,
                 security_policy=None, container_id=None, **kwargs):
        self.enable_plotting = enable_plotting
        if pool is not None:
            kwargs.setdefault("server", pool._server_for_session())
            self._pool = pool
        super().__init__(None, image, dockerfile, lang, keep_template, commit_container,
                         verbose, runtime_configs=runtime_configs, workdir=workdir,
                         security_policy=security_policy, container_id=container_id,
                         backend=backend, enable_plotting=enable_plotting, **kwargs)

    def run(self, code, libraries=None, timeout=None, clear_plots=False, on_stdout=None,
            on_stderr=None):
        if self.enable_plotting and self.lang not in ("python", "r"):
            raise LanguageNotSupportPlotError(self.lang)  # figures come from python and R
        self._require_open()
        timeout = self._timeout(timeout)
        if libraries:
            self.install(libraries)
        with translated(self.lang):
            result = self.paddock.run(code, timeout=timeout, clear_plots=clear_plots,
                                      on_stdout=on_stdout, on_stderr=on_stderr)
        return from_paddock(self._finished(result, timeout), True)

    def clear_plots(self):
        self.paddock.clear_plots()


def create_session(backend=None, pool=None, *args, **kwargs):
    """A session on `backend` (None: paddock's native sandbox; llm-sandbox's default is Docker),
    or, given a `pool`, a PooledSandboxSession drawing on it."""
    if pool is not None:
        from .pool import PooledSandboxSession
        return PooledSandboxSession(pool_manager=pool, **kwargs)
    if paddock_backend(backend) == "docker":
        from .docker import SandboxDockerSession  # looked up here, as llm-sandbox does
        return SandboxDockerSession(*args, **kwargs)
    return Session(*args, backend=backend, **kwargs)


SandboxSession = create_session


def __getattr__(name):
    # The interactive and pool modules import this one: their names resolve on first use.
    if name == "InteractiveSandboxSession":
        from .interactive import InteractiveSandboxSession
        return InteractiveSandboxSession
    if name in ("PooledSandboxSession", "ArtifactPooledSandboxSession", "ContainerPoolManager"):
        from . import pool
        return getattr(pool, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
