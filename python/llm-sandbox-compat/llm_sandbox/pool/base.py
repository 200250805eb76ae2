"""The pool manager: one paddock server its sessions share, and the count of open ones."""

import threading
import time
import warnings
from dataclasses import dataclass
from enum import Enum

import paddock
from paddock._server import server_command

from .._translate import paddock_backend, paddock_image, translated
from ..const import SupportedLanguage
from .config import ExhaustionStrategy, PoolConfig
from .exceptions import PoolClosedError, PoolExhaustedError

__all__ = ["ContainerPoolManager", "ContainerState", "PooledContainer"]


class ContainerState(str, Enum):
    INITIALIZING = "initializing"
    IDLE = "idle"
    BUSY = "busy"
    UNHEALTHY = "unhealthy"
    REMOVING = "removing"


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
