"""The sessions for asyncio: the same methods as coroutines, many at once on one event loop
without a thread each (the server's answers come back through the event loop)."""

import asyncio

from ._ops import Operations
from ._server import PaddockServer
from .session import _PlotHistory, _Settings

__all__ = ["AsyncSandboxSession", "AsyncArtifactSandboxSession",
           "AsyncInteractiveSandboxSession"]


class AsyncSandboxSession(_Settings, Operations):
    """SandboxSession for asyncio: `async with AsyncSandboxSession(lang="python") as s:
    result = await s.run(code)`."""

    async def _server(self):
        # The lock is a threading one: held only while no await is pending.
        if self._state.closed:
            self._check_usable()
        if self._state.server is None:
            argv, env = self._command
            server = await PaddockServer.astart(argv, env, verbose=self.verbose)
            if self._state.server is None and not self._state.closed:
                self._state.server = server
                self._state.owned = True
            else:  # another task started one meanwhile, or the session was closed
                await _close_server(server)
                self._check_usable()
        return self._state.server

    async def _drive(self, operation):
        server = await self._server()
        try:
            request = next(operation)
            while True:
                request = operation.send(await server.acall(request))
        except StopIteration as done:
            return done.value

    async def open(self):
        if self.session_id is None:
            try:
                await self._drive(self._open_op())
            except BaseException:
                if self.session_id:
                    try:
                        await self._drive(self._close_op())
                    except Exception:
                        pass
                await self.close()
                raise
        return self

    async def close(self):
        if self._state.closed:
            return
        server = self._state.server
        if server is not None and self.session_id and server.alive:
            try:
                await self._drive(self._close_op())
            except Exception:
                pass
        self.session_id = None
        if self._state.owned and self._state.server is not None:
            # Ending the process waits for it: off the event loop.
            await asyncio.get_running_loop().run_in_executor(None, self._finalizer)
        else:
            self._finalizer()

    async def __aenter__(self):
        return await self.open()

    async def __aexit__(self, *exc):
        await self.close()

    async def run(self, code, libraries=None, timeout=None, on_stdout=None, on_stderr=None,
                  on_output=None):
        """See SandboxSession.run; the callbacks run on the client's reader thread."""
        return await self._drive(self._run_op(code, libraries, timeout, on_output or on_stdout))

    async def execute_command(self, command, workdir=None, timeout=None):
        return await self._drive(self._command_op(command, workdir, timeout))

    async def install(self, libraries=None):
        return await self._drive(self._install_op(libraries))

    async def copy_to_runtime(self, src, dest):
        return await self._drive(self._copy_to_op(src, dest))

    async def copy_from_runtime(self, src, dest):
        return await self._drive(self._copy_from_op(src, dest))


class AsyncArtifactSandboxSession(_PlotHistory, AsyncSandboxSession):
    """ArtifactSandboxSession for asyncio: figures accumulate across runs the same way."""

    async def run(self, code, libraries=None, timeout=None, clear_plots=False, **callbacks):
        if clear_plots:
            self.clear_plots()
        return self._take_plots(await super().run(code, libraries, timeout, **callbacks))


class AsyncInteractiveSandboxSession(AsyncSandboxSession):
    """InteractiveSandboxSession for asyncio."""

    _live = True

    async def run(self, code, libraries=None, timeout=None, **callbacks):
        if not self.session_id:
            await self.open()
        return await super().run(code, libraries, timeout, **callbacks)


async def _close_server(server):
    await asyncio.get_running_loop().run_in_executor(None, server.close)
