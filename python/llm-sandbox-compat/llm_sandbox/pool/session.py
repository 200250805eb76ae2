"""Sessions that draw on a pool: open() takes a slot, close() gives it back."""

from ..session import ArtifactSandboxSession, Session

__all__ = ["PooledSandboxSession", "ArtifactPooledSandboxSession", "DuplicateClientError"]


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
