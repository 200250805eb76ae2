"""A small MCP client over stdio: JSON-RPC 2.0, one JSON object per line.

It starts a server program, does the MCP initialize handshake, and then lets any number of
threads (and asyncio tasks) send requests at once: each request gets its own id, and one reader
thread hands every response to the request with that id. Notifications from the server go to a
callback (progress notifications to the request whose token they carry); requests from the server
get an answer (`ping`) or a "method not found" error, never silence.

When the server process dies, every waiting request and every later one fails with
`ServerExited`, which says how the process ended and quotes the end of its stderr. `close()` ends
the server the polite way (end of input), then with SIGTERM, then SIGKILL, and reaps it, so no
zombie or stray process is left behind.

Nothing in this module knows about paddock; the official MCP SDK would do the same job, but it
cannot be installed everywhere paddock runs.
"""

import asyncio
import collections
import itertools
import json
import os
import signal
import subprocess
import threading

__all__ = ["McpClient", "RpcError", "ServerExited", "ClientClosed", "MAX_LINE_BYTES"]

PROTOCOL_VERSION = "2025-11-25"
# A server may skip longer lines unread, and then it cannot say which request it skipped
# (its error has no id), so such a request would wait forever: refuse it here instead.
MAX_LINE_BYTES = 32 * 1024 * 1024
_STDERR_LINES_KEPT = 40


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ServerExited(Exception):
    """The server process ended (or could not be written to) before it answered."""

    def __init__(self, message, returncode=None, stderr=""):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class ClientClosed(ServerExited):
    """The client was closed while the request waited, or before it was sent."""


class _Pending:
    """One request waiting for its response."""

    __slots__ = ("event", "message", "error", "callback", "progress")

    def __init__(self, callback=None, progress=None):
        self.event = threading.Event()
        self.message = None
        self.error = None
        self.callback = callback
        self.progress = progress

    def resolve(self, message=None, error=None):
        self.message = message
        self.error = error
        self.event.set()
        if self.callback is not None:
            self.callback(self)

    def outcome(self):
        if self.error is not None:
            raise self.error
        if "error" in self.message:
            error = self.message["error"] or {}
            raise RpcError(error.get("code"), str(error.get("message", "error")), error.get("data"))
        return self.message.get("result")


def _describe_exit(returncode):
    if returncode is None:
        return "is not answering"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return "was killed by %s" % name
    return "exited with status %d" % returncode


class McpClient:
    """A running MCP server on stdio, shared by any number of threads.

    `argv` is the server's command line. `on_notification(method, params)` receives the server's
    notifications other than progress (from the reader thread: keep it short). `stderr_sink`, a
    text stream, receives the server's stderr as it comes; the last lines are kept either way
    for error messages.
    """

    def __init__(self, argv, env=None, client_name="paddock-python", client_version="0",
                 on_notification=None, stderr_sink=None, start_timeout=60.0):
        self.argv = list(argv)
        self._on_notification = on_notification
        self._stderr_sink = stderr_sink
        self._stderr_tail = collections.deque(maxlen=_STDERR_LINES_KEPT)
        self._lock = threading.Lock()          # ids, the pending table, the state
        self._write_lock = threading.Lock()    # whole lines on stdin
        self._pending = {}
        self._progress = {}
        self._ids = itertools.count(1)
        self._dead = None                      # the exception every later request gets
        self._closing = False
        self.server_info = {}
        self.server_capabilities = {}
        self.protocol_version = None
        self.instructions = None
        # A session of its own: a Ctrl-C in the terminal reaches this program, which cancels
        # its requests, instead of killing the server under it.
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, close_fds=True, start_new_session=True)
        self.pid = self.process.pid
        self._stdin = self.process.stdin
        self._reader = threading.Thread(target=self._read_stdout, daemon=True,
                                        name="mcp-reader-%d" % self.pid)
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True,
                                               name="mcp-stderr-%d" % self.pid)
        # stderr's reader first: the stdout reader joins it at end of input, which comes at once
        # when the server exits as it starts (a backend it cannot reach).
        self._stderr_reader.start()
        self._reader.start()
        self._client_info = {"name": client_name, "version": client_version}
        self._start_timeout = start_timeout

    # -- the handshake -------------------------------------------------------------------------

    def initialize(self):
        """The MCP handshake: `initialize`, then `notifications/initialized`."""
        result = self.request("initialize", self._initialize_params(), timeout=self._start_timeout)
        self._initialized(result)
        return result

    async def ainitialize(self):
        result = await asyncio.wait_for(
            self.arequest("initialize", self._initialize_params()), self._start_timeout)
        self._initialized(result)
        return result

    def _initialize_params(self):
        return {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                "clientInfo": self._client_info}

    def _initialized(self, result):
        result = result or {}
        self.protocol_version = result.get("protocolVersion")
        self.server_info = result.get("serverInfo") or {}
        self.server_capabilities = result.get("capabilities") or {}
        self.instructions = result.get("instructions")
        self.notify("notifications/initialized")

    # -- requests ------------------------------------------------------------------------------

    def request(self, method, params=None, timeout=None, progress=None):
        """Send a request and wait for its result (a dict); raises RpcError for an error
        response, ServerExited when the server is gone, TimeoutError after `timeout` seconds
        (the request is then cancelled). `progress(params)` receives its progress
        notifications."""
        request_id, pending = self._send(method, params, None, progress)
        try:
            if not pending.event.wait(timeout):
                self._abandon(request_id, "timed out")
                raise TimeoutError("no answer to %s within %g s" % (method, timeout))
        except BaseException:
            # KeyboardInterrupt or the timeout above: the server stops the work it started.
            if not pending.event.is_set():
                self._abandon(request_id, "interrupted")
            raise
        return pending.outcome()

    async def arequest(self, method, params=None, progress=None):
        """`request` for asyncio: cancelling the awaiting task cancels the request."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def deliver(pending):
            try:
                loop.call_soon_threadsafe(_settle, future, pending)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                pass

        request_id, pending = self._send(method, params, deliver, progress)
        try:
            await future
        except asyncio.CancelledError:
            if not pending.event.is_set():
                self._abandon(request_id, "cancelled")
            raise
        return pending.outcome()

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(self._encode(message))

    def _send(self, method, params, callback, progress):
        pending = _Pending(callback, progress)
        with self._lock:
            if self._dead is not None:
                raise self._dead
            request_id = next(self._ids)
            message = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None:
                message["params"] = params
            if progress is not None:
                token = "p%d" % request_id
                params = dict(params or {})
                params["_meta"] = dict(params.get("_meta") or {}, progressToken=token)
                message["params"] = params
                self._progress[token] = pending
            self._pending[request_id] = pending
        try:
            line = self._encode(message)
            self._write(line)
        except BaseException:
            with self._lock:
                self._pending.pop(request_id, None)
                self._progress.pop("p%d" % request_id, None)
            raise
        return request_id, pending

    @staticmethod
    def _encode(message):
        line = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"
        if len(line) > MAX_LINE_BYTES:
            raise ValueError("the request is %d MiB, over the %d MiB a message may be"
                             % (len(line) >> 20, MAX_LINE_BYTES >> 20))
        return line

    def _write(self, line):
        with self._write_lock:
            if self._dead is not None:
                raise self._dead
            try:
                self._stdin.write(line)
                self._stdin.flush()
            except (OSError, ValueError):
                pass
            else:
                return
        # The pipe broke: the server is gone, and the reader thread is about to say how.
        self._reader.join(5.0)
        raise self._dead or ServerExited("the MCP server %s" % _describe_exit(self.process.poll()))

    def _abandon(self, request_id, reason):
        with self._lock:
            pending = self._pending.pop(request_id, None)
            self._progress.pop("p%d" % request_id, None)
        if pending is not None:
            try:
                self.notify("notifications/cancelled",
                            {"requestId": request_id, "reason": reason})
            except (ServerExited, ValueError):
                pass

    # -- the reader threads --------------------------------------------------------------------

    def _read_stdout(self):
        stream = self.process.stdout
        try:
            for line in stream:
                try:
                    message = json.loads(line)
                except ValueError:
                    self._stderr_tail.append("(not JSON on stdout: %r)" % line[:200])
                    continue
                if isinstance(message, dict):
                    self._dispatch(message)
        except (OSError, ValueError):
            pass
        self._on_eof()

    def _dispatch(self, message):
        if "method" in message:
            method = message["method"]
            params = message.get("params") or {}
            if "id" in message:  # a request from the server
                self._answer_server_request(message["id"], method)
            elif method == "notifications/progress":
                with self._lock:
                    pending = self._progress.get(params.get("progressToken"))
                if pending is not None and pending.progress is not None:
                    try:
                        pending.progress(params)
                    except Exception:  # a broken callback must not stop the reader
                        pass
            elif self._on_notification is not None:
                try:
                    self._on_notification(method, params)
                except Exception:
                    pass
            return
        request_id = message.get("id")
        with self._lock:
            pending = self._pending.pop(request_id, None)
            self._progress.pop("p%s" % request_id, None)
        if pending is not None:
            pending.resolve(message)

    def _answer_server_request(self, request_id, method):
        if method == "ping":
            reply = {"jsonrpc": "2.0", "id": request_id, "result": {}}
        else:
            reply = {"jsonrpc": "2.0", "id": request_id,
                     "error": {"code": -32601, "message": "method not found: %s" % method}}
        try:
            self._write(self._encode(reply))
        except (ServerExited, ValueError):
            pass

    def _read_stderr(self):
        try:
            for raw in self.process.stderr:
                text = raw.decode("utf-8", "replace")
                self._stderr_tail.append(text.rstrip("\n"))
                if self._stderr_sink is not None:
                    try:
                        self._stderr_sink.write(text)
                        self._stderr_sink.flush()
                    except Exception:
                        pass
        except (OSError, ValueError):
            pass

    def _on_eof(self):
        # The server closed stdout: it exited or is exiting. Its exit status makes the message.
        try:
            returncode = self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            returncode = None
        # Its last words come on the other pipe, read by another thread that a loaded machine
        # may schedule late (a second was not always enough in CI); a descendant that kept the
        # pipe open bounds the wait.
        self._stderr_reader.join(5.0)
        if self._closing:
            error = ClientClosed("the MCP client was closed")
        else:
            tail = self.stderr_tail()
            message = "the MCP server (%s, pid %d) %s" % (
                os.path.basename(self.argv[0]), self.pid, _describe_exit(returncode))
            if tail:
                message += ": " + tail.strip().splitlines()[-1]
            error = ServerExited(message, returncode, tail)
        with self._lock:
            if self._dead is None:
                self._dead = error
            waiting = list(self._pending.values())
            self._pending.clear()
            self._progress.clear()
        for pending in waiting:
            pending.resolve(error=self._dead)

    # -- state and shutdown --------------------------------------------------------------------

    def stderr_tail(self):
        """The last lines the server wrote to stderr."""
        return "\n".join(self._stderr_tail)

    @property
    def alive(self):
        return self._dead is None and self.process.poll() is None

    def close(self, timeout=5.0):
        """End the server: end of input (an MCP server's cue to exit), then SIGTERM, then
        SIGKILL, each after `timeout` seconds; reap it; fail whatever still waits. Safe to call
        more than once, from any thread, and from a finalizer."""
        with self._lock:
            if self._closing:
                already = True
            else:
                self._closing = True
                already = False
        if already:
            if threading.current_thread() is not self._reader:
                self._reader.join(timeout)
            return self.process.returncode
        if self._write_lock.acquire(timeout=timeout):
            try:
                self._stdin.close()
            except (OSError, ValueError):
                pass
            finally:
                self._write_lock.release()
        for send in (None, signal.SIGTERM, signal.SIGKILL):
            if send is not None:
                try:
                    self.process.send_signal(send)
                except OSError:
                    pass
            try:
                self.process.wait(timeout)
                break
            except subprocess.TimeoutExpired:
                continue
        current = threading.current_thread()
        for thread in (self._reader, self._stderr_reader):
            if thread is not current:
                thread.join(timeout)
        for stream in (self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        with self._lock:
            if self._dead is None:
                self._dead = ClientClosed("the MCP client was closed")
            waiting = list(self._pending.values())
            self._pending.clear()
        for pending in waiting:
            pending.resolve(error=self._dead)
        return self.process.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _settle(future, pending):
    if not future.done():
        future.set_result(pending)
