"""llm-sandbox's container pool, on paddock's warm pool. A pool manager is one `paddock mcp`
server that its sessions share:

- `min_pool_size` is the server's `--warm` (sandboxes, and for python live interpreters, set
  up ahead; `enable_prewarming=False` makes it 0);
- `max_pool_size` is how many pooled sessions are open at once (and the server's
  `--max-sessions`); a session past it waits (`exhaustion_strategy` WAIT, at most
  `acquisition_timeout` seconds), fails (FAIL_FAST: PoolExhaustedError) or gets a server of its
  own (TEMPORARY);
- `idle_timeout`, `health_check_interval`, `max_container_lifetime` and `max_container_uses`
  are accepted and ignored, with a warning when set: a pooled paddock session is a fresh
  sandbox each time (nothing of one session is left for the next), so there is nothing to
  age, check or recycle.
"""

import threading
import time
import warnings
from dataclasses import dataclass, fields
from enum import Enum
from typing import Optional

import paddock
from paddock._server import server_command

from ._translate import paddock_backend, paddock_image, translated
from .const import SupportedLanguage
from .session import ArtifactSandboxSession, Session

__all__ = ["ArtifactPooledSandboxSession", "ContainerPoolManager", "ContainerState",
           "ExhaustionStrategy", "PoolClosedError", "PoolConfig", "PoolExhaustedError",
           "PoolHealthCheckError", "PooledContainer", "PooledSandboxSession",
           "create_pool_manager"]


class ExhaustionStrategy(str, Enum):
    FAIL_FAST = "fail_fast"
    WAIT = "wait"
    TEMPORARY = "temporary"


class ContainerState(str, Enum):
    INITIALIZING = "initializing"
    IDLE = "idle"
    BUSY = "busy"
    UNHEALTHY = "unhealthy"
    REMOVING = "removing"


class PoolExhaustedError(Exception):
    def __init__(self, pool_size, timeout=None):
        if timeout is not None:
            message = ("All %s containers in pool are busy and timeout of %ss exceeded"
                       % (pool_size, timeout))
        else:
            message = "All %s containers in pool are busy" % pool_size
        super().__init__(message)
        self.pool_size = pool_size
        self.timeout = timeout


class PoolClosedError(Exception):
    def __init__(self):
        super().__init__("Container pool has been closed")


class PoolHealthCheckError(Exception):
    def __init__(self, container_id, reason):
        super().__init__("Health check failed for container %s: %s" % (container_id, reason))
        self.container_id = container_id
        self.reason = reason


_IGNORED_KNOBS = ("idle_timeout", "health_check_interval", "max_container_lifetime",
                  "max_container_uses")


@dataclass
class PoolConfig:
    max_pool_size: int = 10
    min_pool_size: int = 0
    idle_timeout: Optional[float] = 300.0
    acquisition_timeout: Optional[float] = 30.0
    health_check_interval: float = 60.0
    max_container_lifetime: Optional[float] = 3600.0
    max_container_uses: Optional[int] = None
    exhaustion_strategy: ExhaustionStrategy = ExhaustionStrategy.WAIT
    enable_prewarming: bool = True

    def __post_init__(self):
        if self.max_pool_size < 1:
            raise ValueError("max_pool_size must be at least 1")
        if self.min_pool_size < 0:
            raise ValueError("min_pool_size must be at least 0")
        for name in ("idle_timeout", "acquisition_timeout", "max_container_lifetime"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError("%s must be greater than 0" % name)
        if self.health_check_interval <= 0:
            raise ValueError("health_check_interval must be greater than 0")
        if self.max_container_uses is not None and self.max_container_uses < 1:
            raise ValueError("max_container_uses must be at least 1")
        self.exhaustion_strategy = ExhaustionStrategy(self.exhaustion_strategy)
        if self.min_pool_size > self.max_pool_size:
            raise ValueError("min_pool_size (%d) cannot be greater than max_pool_size (%d)"
                             % (self.min_pool_size, self.max_pool_size))

    def ignored_settings(self):
        """The knobs set away from their defaults that mean nothing here."""
        defaults = {f.name: f.default for f in fields(self)}
        return [name for name in _IGNORED_KNOBS if getattr(self, name) != defaults[name]]


@dataclass
class PooledContainer:
    """One slot of the pool, held by an open pooled session (paddock's session id)."""

    container_id: str
    container: object = None
    state: ContainerState = ContainerState.BUSY
    created_at: float = 0.0
    use_count: int = 1


class ContainerPoolManager:
    """A paddock server shared by the pool's sessions, and the count of open ones."""

    def __init__(self, config=None, lang=SupportedLanguage.PYTHON, image=None, backend=None,
                 client=None, verbose=False, paddock_bin=None, **settings):
        self.config = config or PoolConfig()
        self.lang = str(getattr(lang, "value", lang)).lower()
        self.backend = paddock_backend(backend)
        self.image = paddock_image(image, self.lang)
        self.client = client
        ignored = self.config.ignored_settings()
        if ignored:
            warnings.warn("PoolConfig %s: ignored by paddock (a pooled session is a fresh "
                          "sandbox each time, with nothing to age or recycle)"
                          % ", ".join(ignored), stacklevel=2)
        warm = self.config.min_pool_size if self.config.enable_prewarming else 0
        self._settings = dict(paddock_bin=paddock_bin, backend=self.backend, image=self.image,
                              lang=self.lang, verbose=verbose, **settings)
        extra = list(self._settings.pop("server_args", None) or ())
        self._settings["server_args"] = extra + [
            "--warm", str(warm), "--max-sessions", str(self.config.max_pool_size)]
        self._lock = threading.Condition()
        self._busy = {}
        self._closed = False
        self._created = 0
        with translated(self.lang):
            argv, env = server_command(**self._settings)
            self.server = paddock.PaddockServer.start(argv, env, verbose=verbose)

    # -- slots -------------------------------------------------------------------------------

    def acquire(self):
        """A slot for one session: waits, fails or returns None (TEMPORARY: a session on a
        server of its own) when all are taken."""
        strategy = self.config.exhaustion_strategy
        timeout = self.config.acquisition_timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if self._closed:
                    raise PoolClosedError()
                if len(self._busy) < self.config.max_pool_size:
                    self._created += 1
                    slot = PooledContainer(container_id="slot-%d" % self._created,
                                           created_at=time.time())
                    self._busy[slot.container_id] = slot
                    return slot
                if strategy == ExhaustionStrategy.FAIL_FAST:
                    raise PoolExhaustedError(self.config.max_pool_size)
                if strategy == ExhaustionStrategy.TEMPORARY:
                    return None
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise PoolExhaustedError(self.config.max_pool_size, timeout)
                self._lock.wait(left)

    def release(self, container):
        if container is None:
            return
        with self._lock:
            self._busy.pop(container.container_id, None)
            self._lock.notify()

    def _server_for_session(self):
        if self._closed:
            raise PoolClosedError()
        return self.server

    def get_stats(self):
        with self._lock:
            busy = len(self._busy)
            return {"total_size": busy, "max_size": self.config.max_pool_size,
                    "min_size": self.config.min_pool_size,
                    "state_counts": {ContainerState.BUSY.value: busy,
                                     ContainerState.IDLE.value: 0},
                    "closed": self._closed}

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._lock.notify_all()
        self.server.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def create_pool_manager(client=None, backend=None, config=None, lang=SupportedLanguage.PYTHON,
                        **kwargs):
    """A pool on `backend` (None: paddock's native sandbox; llm-sandbox's default is Docker)."""
    return ContainerPoolManager(config=config, lang=lang, backend=backend, client=client,
                                **kwargs)


class DuplicateClientError(ValueError):
    def __init__(self):
        super().__init__("Cannot specify 'client' parameter when using pooling mode. The client "
                         "is managed by the pool manager. Please configure the client in the "
                         "pool manager instead.")


class _Pooled:
    """A session whose sandbox counts against a pool: open() takes a slot, close() gives it
    back."""

    def _pool_init(self, pool_manager, kwargs):
        if kwargs.pop("client", None) is not None:
            raise DuplicateClientError()
        self.pool_manager = pool_manager
        self._slot = None
        kwargs.pop("lang", None)
        kwargs.pop("backend", None)
        kwargs.pop("image", None)
        return dict(kwargs, lang=pool_manager.lang, image=pool_manager.image,
                    server=pool_manager._server_for_session())

    def open(self):
        slot = self.pool_manager.acquire()
        if slot is None:  # TEMPORARY: past the pool's size, a session on a server of its own
            self.paddock = self._make_paddock(server=None)
        self._slot = slot
        try:
            super().open()
        except BaseException:
            self._slot = None
            self.pool_manager.release(slot)
            raise
        if slot is not None:
            slot.container = self.paddock.session_id

    def close(self):
        try:
            super().close()
        finally:
            slot, self._slot = self._slot, None
            self.pool_manager.release(slot)
            self.paddock = self._make_paddock()  # closed ones cannot reopen; the next open can


class PooledSandboxSession(_Pooled, Session):
    def __init__(self, pool_manager, verbose=False, stream=False, workdir="/sandbox",
                 security_policy=None, default_timeout=None, execution_timeout=None,
                 session_timeout=None, encoding_errors="strict", **kwargs):
        kwargs = self._pool_init(pool_manager, kwargs)
        Session.__init__(self, verbose=verbose, stream=stream, workdir=workdir,
                         security_policy=security_policy, default_timeout=default_timeout,
                         execution_timeout=execution_timeout, session_timeout=session_timeout,
                         encoding_errors=encoding_errors, backend=pool_manager.backend,
                         **kwargs)


class ArtifactPooledSandboxSession(_Pooled, ArtifactSandboxSession):
    def __init__(self, pool_manager, *, verbose=False, stream=False, workdir="/sandbox",
                 enable_plotting=True, security_policy=None, default_timeout=None,
                 execution_timeout=None, session_timeout=None, **kwargs):
        kwargs = self._pool_init(pool_manager, kwargs)
        ArtifactSandboxSession.__init__(
            self, pool_manager.backend, kwargs.pop("image"), None, kwargs.pop("lang"),
            verbose=verbose, stream=stream, workdir=workdir, enable_plotting=enable_plotting,
            security_policy=security_policy, default_timeout=default_timeout,
            execution_timeout=execution_timeout, session_timeout=session_timeout, **kwargs)
