# paddock's kernel bridge: drives one Jupyter kernel for a live session, from inside the
# session's sandbox, with jupyter_client (the Jupyter messaging protocol; nothing of its own).
#
# It runs as the sandbox's program runs (same user, seccomp filter, limits, no network), so
# nothing here is trusted by paddock: paddock bounds and checks every line it reads. It speaks
# JSON lines with paddock on stdin/stdout (runtime/live_kernel.h has the messages).
#
# The kernel's connection key stays out of the program's environment and files: it is made
# here, written to a connection file in a private directory that is removed once the kernel has
# read it. The sockets are abstract unix sockets (ipc, "@name"), which live in the sandbox's own
# network namespace and which an installer's Landlock domain cannot connect to (its scope); in
# /tmp, anything of the sandbox's user could connect to them, an installer's package code too.
import errno
import hmac
import json
import os
import re
import secrets
import select
import shutil
import signal
import sys
import tempfile
import time

KERNEL = sys.argv[1]
# A cell whose kernel has not answered this long after an interrupt is lost: the kernel restarts.
GRACE_SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
# The kernel's iopub socket drops what its reader is too slow to take (its high-water mark), and
# a flood of output can drop the cell's idle status with the rest. A cell whose reply has come
# and whose output has then been quiet this long is over.
QUIET_AFTER_REPLY_SECONDS = 1.0
STREAM_CHUNK = 64 * 1024  # a stream message is sent in lines of at most this many characters
MAX_DISPLAY_BYTES = int(os.environ.pop("PADDOCK_KERNEL_DISPLAY_BYTES", str(8 << 20)))
TMP_NEEDED_BYTES = 1 << 20  # what a kernel writes to /tmp as it starts, and then some

out = os.fdopen(os.dup(1), "w", buffering=1)
# Nothing else writes to paddock's channel: whatever a library prints goes to stderr's void.
devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(devnull, 1)


def emit(message):
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def hide_from_cells():
    # Not dumpable: a cell cannot read this process's memory (the key) or its fds through /proc.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except Exception:
        pass


hide_from_cells()
# Kernelspecs come from the root file system only, not from a directory a cell could fill; each
# kernel's own directories are set where it starts (Kernel).
for name in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH"):
    os.environ.pop(name, None)
os.environ["JUPYTER_DATA_DIR"] = "/nonexistent/jupyter"
os.environ["JUPYTER_CONFIG_DIR"] = "/nonexistent/jupyter"
# debugpy's warning about frozen modules would open every cell's stderr.
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
try:
    # jupyter_client's kernelspec lookup, connection file and launcher. Not its KernelManager:
    # that imports the python kernel itself to describe "python3", and looks up provisioners,
    # which cost about half a second before the kernel is even started.
    #
    # Nor its KernelClient: in jupyter_client 7 every call of the blocking client runs an asyncio
    # event loop around a zmq.asyncio socket, which cost about a millisecond per cell. The
    # channels here are plain zmq sockets that jupyter_client connects (ConnectionFileMixin), and
    # every message is made, signed, checked and parsed by its Session, as the client does.
    import zmq
    from jupyter_client.connect import ConnectionFileMixin, write_connection_file
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
    from jupyter_client.launcher import launch_kernel
    from jupyter_core.paths import jupyter_path
    from traitlets import Instance
except Exception as error:  # the rootfs lacks jupyter_client: paddock falls back
    emit({"failed": "jupyter_client is not installed in the sandbox (%s)" % error})
    sys.exit(3)

ARGUMENT = re.compile(r"\{([A-Za-z0-9_]+)\}")


# -- installs from a cell -------------------------------------------------------------------------
# `%pip install x`, `!pip install x` and their kin cannot install in a session: the cell has no
# network, and Debian's python refuses with PEP 668's text, which `!` reports as success. Paddock
# installs through install_libraries (or the `libraries` argument) instead: the session's
# package index and allowlist, and the library importable at once. So an IPython kernel refuses
# these as an error that says so, from a startup file of its own profile (written before every
# start, restarts included). Not a boundary (a cell can still call subprocess); it only keeps the
# common spellings from pretending to work.
INSTALL_GUARD = r"""
def _paddock_install_guard():
    import re

    shell = get_ipython()
    # An installer asked to install: pip, pip3, pip3.11, python -m pip (any python, also
    # {sys.executable} or $PY before expansion), uv pip, conda, mamba, micromamba; at the start
    # of a shell command, after ; & | ( or a path.
    asks = re.compile(
        r"(?:^|[;&|(])\s*(?:sudo\s+)?(?:(?:\S*/)?(?:python[\d.]*|\{[^}]*\}|\$\{?\w+\}?)"
        r"(?:\s+-\S+)*?\s+-m\s+)?(?:\S*/)?(?:pip[\d.]*|uv\s+pip|conda|mamba|micromamba)"
        r"(?:\s+-\S+)*\s+install\b", re.M)

    class InstallRefused(Exception):
        def _render_traceback_(self):  # IPython shows this instead of a traceback
            return [str(self)]

    def refuse():
        raise InstallRefused(
            "installing from a cell does not work here, nothing was installed: use the "
            "install_libraries tool or the `libraries` argument (the library imports at once)")

    magics = shell.magics_manager.magics
    for name in ("pip", "pip3", "conda", "mamba", "micromamba"):
        original = magics["line"].get(name) or magics["line"].get("pip")

        def installer(line, _name=name, _original=original):
            if asks.search(_name + " " + line):
                refuse()
            if _original is None:
                return shell.system(_name + " " + line)
            return _original(line)

        shell.register_magic_function(installer, "line", name)
    for attribute in ("system", "getoutput"):  # `!cmd`, `!!cmd`, `x = !cmd`, %sx, %system
        def command(cmd, *args, _plain=getattr(shell, attribute), **kwargs):
            if isinstance(cmd, str) and asks.search(cmd):
                refuse()
            return _plain(cmd, *args, **kwargs)

        setattr(shell, attribute, command)
    for name in ("bash", "sh", "script"):  # %%bash and the like
        original = magics["cell"].get(name)
        if original is None:
            continue

        def script(line, cell, _original=original):
            if asks.search(cell or ""):
                refuse()
            return _original(line, cell)

        shell.register_magic_function(script, "cell", name)


_paddock_install_guard()
del _paddock_install_guard
"""


def write_install_guard(ipython_dir):
    """Puts the guard where IPython runs it at every start; other kernels never read it."""
    startup = os.path.join(ipython_dir, "profile_default", "startup")
    os.makedirs(startup, mode=0o700, exist_ok=True)
    with open(os.path.join(startup, "00-paddock-installs.py"), "w") as guard:
        guard.write(INSTALL_GUARD)


# -- the IPython kernel's own settings --------------------------------------------------------------
# Read from the kernel's profile at its start (other kernels never read it); each saves time on
# every cell and changes nothing a cell sees:
# - The input history is kept in memory. IPython otherwise writes every cell to an SQLite file
#   from a thread of its own, under a lock that the next cell's start waits for (a few ms a cell
#   here), and keeps the cells' code in a file in /tmp that only grows. The file went with the
#   kernel anyway; In, _i, %history and %rerun read the memory.
# - No pause after a cell's output. ipykernel sleeps 0.5 ms before each reply for clients that
#   stop reading at the reply; this bridge reads on to the cell's idle status, which the kernel
#   sends after all of the cell's output.
KERNEL_CONFIG = """\
c = get_config()
c.HistoryManager.hist_file = ":memory:"
c.Kernel._execute_sleep = 0.0
"""


# Hand-offs of ipykernel 6 that a cell does not need, from a startup file beside the guard.
# ipykernel sends every iopub message (busy, output, idle) from a thread of its own: the sender
# queues it and wakes that thread, and a flush of stdout or stderr waits until that thread has
# sent. A print(1) cell so crosses threads about six times, which cost 1.4 ms of a 3.5 ms
# round trip here (jupyter_client to a bare kernel). Instead, a message is sent by the thread
# that makes it, and a flush takes and sends the stream's buffer at once:
# - One lock around every send and around each flush's take-and-send: the socket is never used by
#   two threads at a time, and no stream's text can be sent after a later message of the same
#   thread (the cell's idle status included), even when the iopub thread's timed flush runs.
# - SIGINT is only noted while a message's frames go out from the main thread (the one thread in
#   which Python raises KeyboardInterrupt): an interrupt between two frames would leave a half
#   message in the socket, which would spoil the next one too. It is sent again right after, to
#   the handler it would have reached. (Blocking the signal would not do: the kernel then hands
#   it to another of the process's threads, and Python still raises it in the main thread.)
# - A child made by fork gets a fresh lock (the parent's may be held by a thread that is gone).
# Only where ipykernel has the names this relies on and its iopub socket is a PUB socket that
# only sends (an XPUB socket, as later versions use, is also read by the iopub thread). Elsewhere
# nothing changes. Before each request the shell also waits for the control thread to handle
# what came before on control: only an interrupt comes there, and only while a cell runs, so the
# wait is skipped.
KERNEL_WAITS = r"""
def _paddock_kernel_waits():
    import asyncio
    import os
    import signal
    import threading

    import zmq
    from ipykernel import iostream

    kernel = getattr(get_ipython(), "kernel", None)
    publisher = getattr(kernel, "iopub_thread", None)
    socket = getattr(publisher, "socket", None)
    if (
        socket is not None
        and socket.socket_type == zmq.PUB
        and hasattr(iostream.IOPubThread, "_really_send")
        and hasattr(iostream.OutStream, "_flush")
    ):
        lock = [threading.RLock()]
        os.register_at_fork(after_in_child=lambda: lock.__setitem__(0, threading.RLock()))
        main = threading.main_thread()

        def send_multipart(self, *args, **kwargs):
            with lock[0]:
                if threading.current_thread() is not main:
                    return self._really_send(*args, **kwargs)
                # Python runs signal handlers in the main thread only, between two steps of its
                # code, which may fall between two frames: while they go out, SIGINT is only
                # noted, then sent again to whatever handled it before.
                before = signal.getsignal(signal.SIGINT)
                if before is None:  # not Python's: nothing of it runs between two frames
                    return self._really_send(*args, **kwargs)
                noted = []
                signal.signal(signal.SIGINT, lambda *_: noted.append(True))
                try:
                    self._really_send(*args, **kwargs)
                finally:
                    signal.signal(signal.SIGINT, before)
                    if noted:
                        os.kill(os.getpid(), signal.SIGINT)

        take_and_send = iostream.OutStream._flush

        def locked_flush(self):
            with lock[0]:
                take_and_send(self)

        def flush(self):
            if self.pub_thread is not None:
                locked_flush(self)

        iostream.IOPubThread.send_multipart = send_multipart
        iostream.OutStream._flush = locked_flush
        iostream.OutStream.flush = flush
    if kernel is not None and hasattr(kernel, "_flush_control_queue"):
        def no_control_wait():
            done = asyncio.get_event_loop().create_future()
            done.set_result(None)
            return done

        kernel._flush_control_queue = no_control_wait


_paddock_kernel_waits()
del _paddock_kernel_waits
"""


def write_kernel_config(ipython_dir):
    profile = os.path.join(ipython_dir, "profile_default")
    os.makedirs(os.path.join(profile, "startup"), mode=0o700, exist_ok=True)
    with open(os.path.join(profile, "ipython_kernel_config.py"), "w") as config:
        config.write(KERNEL_CONFIG)
    with open(os.path.join(profile, "startup", "00-paddock-waits.py"), "w") as waits:
        waits.write(KERNEL_WAITS)


class Channels(ConnectionFileMixin):
    """The kernel's sockets, connected by jupyter_client from the connection info, as blocking
    zmq sockets; its Session (the connection's key and signature scheme) makes and reads every
    message."""

    context = Instance(zmq.Context)

    def __init__(self, connection):
        super().__init__(context=zmq.Context())
        self.load_connection_info(connection)
        identity = self.session.bsession
        self.shell = self.connect_shell(identity=identity)
        self.control = self.connect_control(identity=identity)
        self.iopub = self.connect_iopub()

    def send(self, socket, kind, content):
        """Sends a request; returns its msg_id."""
        return self.session.send(socket, kind, content)["header"]["msg_id"]

    def receive(self, socket, most=1000):
        """The messages waiting on `socket` (at most `most`: a flood of output does not keep the
        cell's deadline from being looked at), each checked and parsed (parse). What is not a
        message signed with the key is dropped."""
        for _ in range(most):
            try:
                parts = socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            message = self.parse(parts)
            if message is not None:
                yield message

    def parse(self, parts):
        """A message as Session.deserialize reads it, signature checked with the Session's own
        signing, but without turning the headers' dates into datetimes: dateutil's parser was
        most of this bridge's time per cell, and nothing here reads a date. None when it is not
        a message or its signature is wrong."""
        try:
            _, parts = self.session.feed_identities(parts)
        except ValueError:
            return None
        if len(parts) < 5 or not hmac.compare_digest(parts[0], self.session.sign(parts[1:5])):
            return None
        try:
            header, parent, content = (self.session.unpack(part) for part in
                                       (parts[1], parts[2], parts[4]))
        except ValueError:
            return None
        if not isinstance(header, dict):
            return None
        return {"header": header, "msg_type": header.get("msg_type"),
                "parent_header": parent, "content": content}

    def close(self):
        for socket in (self.shell, self.control, self.iopub):
            socket.close(linger=0)
        self.context.term()


class Kernel:
    def __init__(self):
        # The kernelspec directories of the root file system, named here: left to itself,
        # KernelSpecManager adds IPython's ~/.ipython/kernels, making that directory in /work.
        found = KernelSpecManager(kernel_dirs=jupyter_path("kernels")).find_kernel_specs()
        if KERNEL not in found:
            raise NoSuchKernel(KERNEL)
        spec = KernelSpec.from_resource_dir(found[KERNEL])
        self.interrupt_mode = spec.interrupt_mode
        self.directory = tempfile.mkdtemp(prefix="paddock-kernel-", dir="/tmp")
        os.chmod(self.directory, 0o700)
        self.log_path = os.path.join(self.directory, "kernel.log")
        # Abstract names, not files (see the top): unguessable, so that nothing can take one
        # before the kernel binds it. jupyter_client and the kernels look for a file of the name
        # to pick free ports; none is there, so they take 1 to 5.
        connection_file, connection = write_connection_file(
            os.path.join(self.directory, "connection.json"), transport="ipc",
            ip="@paddock-kernel-" + secrets.token_hex(16), key=secrets.token_hex(32).encode(),
            kernel_name=KERNEL)
        names = {"connection_file": connection_file, "resource_dir": found[KERNEL],
                 "prefix": sys.prefix}
        argv = [ARGUMENT.sub(lambda m: names.get(m.group(1), m.group(0)), part)
                for part in spec.argv]
        env = dict(os.environ, **(spec.env or {}))
        env["JPY_PARENT_PID"] = str(os.getpid())  # the kernel ends if the bridge does
        # IPython's profile (its startup files and configuration), matplotlib's and Jupyter's
        # own directories belong to this kernel alone: a file a cell left in /tmp does not run
        # in the fresh interpreter of a restart.
        for name, sub in (("IPYTHONDIR", "ipython"), ("MPLCONFIGDIR", "matplotlib"),
                          ("JUPYTER_RUNTIME_DIR", "runtime")):
            env[name] = os.path.join(self.directory, sub)
        write_install_guard(env["IPYTHONDIR"])
        write_kernel_config(env["IPYTHONDIR"])
        self.log = open(self.log_path, "wb")
        # Its own session (process group), so that an interrupt reaches what it runs too.
        self.process = launch_kernel(argv, stdout=self.log, stderr=self.log, env=env,
                                     cwd=os.getcwd())
        self.channels = Channels(connection)  # while the kernel starts
        self.poller = zmq.Poller()
        self.poller.register(self.channels.iopub, zmq.POLLIN)
        self.poller.register(self.channels.shell, zmq.POLLIN)
        self.info = self.wait_for_ready(60)
        # Read by the kernel at its start; not needed again, so not left for a cell to find.
        os.unlink(connection_file)
        self.poller.register(0, zmq.POLLIN)

    def wait_for_ready(self, timeout):
        """The kernel's kernel_info_reply content, once the kernel answers on shell and its
        iopub reaches this bridge: a kernel_info_request is answered on shell and announced
        (busy, idle) on iopub, so the request is repeated until both are seen. Until iopub's
        subscription is in place, the kernel's publisher drops what it sends; a cell's output
        must not be lost that way. The kernel is alive while its process is: its heartbeat
        misses beats on a busy machine while it starts."""
        deadline = time.monotonic() + timeout
        shell, iopub = self.channels.shell, self.channels.iopub
        info, sent, announced = None, set(), False
        while True:
            sent.add(self.channels.send(shell, "kernel_info_request", {}))
            resend = time.monotonic() + (1.0 if info is None else 0.2)
            while time.monotonic() < resend:
                ready = dict(self.poller.poll(50))
                for reply in self.channels.receive(shell) if shell in ready else ():
                    if reply.get("msg_type") == "kernel_info_reply" and info is None:
                        content = reply.get("content")
                        info = content if isinstance(content, dict) else {}
                for message in self.channels.receive(iopub) if iopub in ready else ():
                    announced = announced or parent_id(message) in sent
                if info is not None and announced:
                    return info
                if not ready and not self.is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info\n"
                                       + self.log_tail())
            if time.monotonic() > deadline:
                raise RuntimeError("Kernel didn't respond in %d seconds\n%s"
                                   % (timeout, self.log_tail()))

    def log_tail(self):
        try:
            with open(self.log_path, "rb") as log:
                return log.read()[-2000:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def is_alive(self):
        return self.process.poll() is None

    def execute(self, code, silent):
        """Sends a cell; returns its msg_id."""
        return self.channels.send(self.channels.shell, "execute_request", {
            "code": code, "silent": silent, "store_history": not silent,
            "user_expressions": {}, "allow_stdin": False, "stop_on_error": False})

    def interrupt(self):
        if self.interrupt_mode == "message":
            self.channels.send(self.channels.control, "interrupt_request", {})
        else:
            try:
                os.killpg(self.process.pid, signal.SIGINT)
            except OSError:
                pass

    def exit_reason(self):
        code = self.process.poll()
        if code is None:
            return "the interpreter stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "signal %d" % -code
            hint = " (out of memory?)" if -code == signal.SIGKILL else ""
            return "the interpreter was killed by %s%s" % (name, hint)
        return "the interpreter exited with code %d" % code

    def stop(self):
        try:
            self.channels.close()
        except Exception:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        self.process.wait()
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class Commands:
    """paddock's lines on stdin, read straight from the file descriptor: a buffered reader could
    hold a second line that the poller, watching the descriptor, would never report."""

    def __init__(self):
        self.pending = b""

    def next(self, block):
        """The next command; None at end of file; {} when none is whole yet and not `block`."""
        while b"\n" not in self.pending:
            if not block and not select.select([0], [], [], 0)[0]:
                return {}
            chunk = os.read(0, 65536)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            command = json.loads(line)
        except ValueError:
            return {}
        return command if isinstance(command, dict) else {}

    def waiting(self):
        return b"\n" in self.pending


commands = Commands()


def text_of(value):
    return value if isinstance(value, str) else ""


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LIBRARY_FRAME = re.compile(r"File (?P<file>.+?):(?P<line>\d+)(?:, in (?P<name>[^\s(]+))?")
LIBRARY_ROOT = re.compile(r".*/(?:site-packages|dist-packages|lib/python[\d.]+)/")


def frame_kind(entry):
    """IPython's traceback is a list of pieces: a header, one piece per frame (its location line
    and the source around it), and the exception. A frame is the user's when it is a cell's
    ("Cell In[3], line 2") or a file in /work; else a library's."""
    plain = ANSI.sub("", entry).lstrip()
    if plain.startswith(("Cell In", "Input In")):
        return "user"
    if plain.startswith("File "):
        return "user" if plain[5:].startswith("/work/") else "library"
    return None


def library_frame_name(entry):
    first = ANSI.sub("", entry).lstrip().split("\n", 1)[0]
    found = LIBRARY_FRAME.match(first)
    if not found:
        return first[:120]
    name = LIBRARY_ROOT.sub("", found.group("file")) + ":" + found.group("line")
    return name + (" in " + found.group("name") if found.group("name") else "")


def fold_library_frames(lines):
    """A live traceback shows the source around every frame, a library's too, which makes it
    twice as long as a fresh run's. The frames of the user's code and the last frame (where it
    failed) are kept; each run of other library frames becomes one line naming them."""
    kinds = [frame_kind(entry) for entry in lines]
    frames = [at for at, kind in enumerate(kinds) if kind]
    if not frames:
        return lines
    last = frames[-1]
    folded, run = [], []

    def close_run():
        if not run:
            return
        names = [library_frame_name(entry) for entry in run]
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        noun = "frame" if len(run) == 1 else "frames"
        folded.append("[... %d library %s left out: %s]\n" % (len(run), noun, shown))
        del run[:]

    for at, entry in enumerate(lines):
        if kinds[at] == "library" and at != last:
            run.append(entry)
            continue
        close_run()
        folded.append(entry)
    close_run()
    return folded


def send_output(message, state):
    """Relays one iopub message of the cell. Its content comes from the cell's own process, so
    every field is checked: a malformed one is dropped, never a reason to stop."""
    kind = message.get("msg_type")
    content = message.get("content")
    if not isinstance(content, dict):
        return
    if kind == "stream":
        text = text_of(content.get("text"))
        name = "stderr" if content.get("name") == "stderr" else "stdout"
        for start in range(0, len(text), STREAM_CHUNK):
            emit({"stream": name, "text": text[start:start + STREAM_CHUNK]})
    elif kind in ("display_data", "execute_result"):
        bundle = content.get("data")
        if not isinstance(bundle, dict):
            return
        data = {}
        for mime, value in bundle.items():
            if not isinstance(mime, str):
                continue
            if not isinstance(value, str):
                value = json.dumps(value)
            if len(value) > MAX_DISPLAY_BYTES:
                emit({"omitted": {"mime": mime, "bytes": len(value)}})
                continue
            data[mime] = value
        emit({"display": data, "result": kind == "execute_result"})
    elif kind == "error":
        state["error"] = True
        traceback = content.get("traceback")
        lines = [text_of(line) for line in traceback] if isinstance(traceback, list) else []
        lines = fold_library_frames(lines)
        emit({"error": {"ename": text_of(content.get("ename")),
                        "evalue": text_of(content.get("evalue")), "traceback": lines}})


def parent_id(message):
    parent = message.get("parent_header") if isinstance(message, dict) else None
    return parent.get("msg_id") if isinstance(parent, dict) else None


def execute(kernel, command):
    """Runs one cell; returns the kernel (the bridge ends when it is lost: lost()). The cell
    is over when its execute_reply (on shell) and its idle status (on iopub) have both come,
    matched by the request's id. An idle status the kernel dropped under a flood is not waited
    for: once the reply has come and the cell's output has been quiet for
    QUIET_AFTER_REPLY_SECONDS, the cell is over."""
    code = command.get("code", "")
    # Always sent by paddock (live_kernel.cc), whose default is the only one.
    timeout = float(command["timeout"])
    silent = bool(command.get("silent", False))
    msg_id = kernel.execute(code, silent)
    started = time.monotonic()
    deadline = started + timeout
    interrupted_at = None
    why = None  # "timeout" or "cancel"
    state = {"error": False, "idle": False, "reply": None}
    last_heard = started  # the cell's last reply or output
    iopub, shell = kernel.channels.iopub, kernel.channels.shell
    while True:
        now = time.monotonic()
        if interrupted_at is not None and now > interrupted_at + GRACE_SECONDS:
            reason = ("the cell did not stop within %g s of an interrupt" % GRACE_SECONDS)
            return lost(kernel, reason, why)
        if interrupted_at is None and now >= deadline:
            kernel.interrupt()
            interrupted_at, why = now, "timeout"
            continue
        wait = (interrupted_at + GRACE_SECONDS if interrupted_at else deadline) - now
        ready = dict(kernel.poller.poll(int(min(max(wait, 0), 0.1) * 1000) + 1))
        if 0 in ready or commands.waiting():
            line = commands.next(block=False)
            if line is None:  # paddock is gone
                kernel.stop()
                sys.exit(0)
            if line.get("interrupt") and interrupted_at is None:
                kernel.interrupt()
                interrupted_at, why = time.monotonic(), "cancel"
        if iopub not in ready and shell not in ready:
            # Quiet: nothing waits to be read, so no output of the cell is left behind.
            if state["reply"] is not None and now > last_heard + QUIET_AFTER_REPLY_SECONDS:
                return finish(kernel, state, why)
            if not kernel.is_alive():
                return lost(kernel, kernel.exit_reason(), why)
            continue
        for reply in kernel.channels.receive(shell) if shell in ready else ():
            if parent_id(reply) == msg_id and reply.get("msg_type") == "execute_reply":
                state["reply"] = reply
                last_heard = time.monotonic()
        for message in kernel.channels.receive(iopub) if iopub in ready else ():
            if parent_id(message) != msg_id:
                continue  # another cell's late output, or the kernel's own status
            last_heard = time.monotonic()
            if message.get("msg_type") == "status":
                content = message.get("content")
                if isinstance(content, dict) and content.get("execution_state") == "idle":
                    state["idle"] = True
                continue
            send_output(message, state)
        if state["idle"] and state["reply"] is not None:
            return finish(kernel, state, why)


def finish(kernel, state, why):
    content = state["reply"].get("content")
    count = content.get("execution_count") if isinstance(content, dict) else None
    status = {"timeout": "timed_out", "cancel": "cancelled"}.get(why, "error" if state["error"] else "ok")
    emit({"done": {"status": status,
                   "execution_count": count if isinstance(count, int) else 0}})
    return kernel


def tmp_is_full():
    """Whether /tmp has too little room left for a kernel to start (its profile, its log): the
    bridge's own files may still fit where the kernel's do not, and then the kernel just dies."""
    try:
        room = os.statvfs("/tmp")
    except OSError:
        return False
    return room.f_bavail * room.f_frsize < TMP_NEEDED_BYTES


def why_not_started(error):
    """One line for a kernel that did not start; a full /tmp (a cell can fill it, and it outlives
    kernels) says what to do, since no cell can run to empty it."""
    if (isinstance(error, OSError) and error.errno == errno.ENOSPC) or tmp_is_full():
        return ("the sandbox's /tmp is full (%s), so no interpreter can start in it: close this "
                "session and create another (read what you need from /work first)"
                % str(error).split("\n", 1)[0])
    return str(error)[-2000:]


def lost(kernel, reason, why):
    """The kernel died or did not come back from an interrupt: the state is gone, and so is this
    bridge. Not a new kernel from here: processes the old one's cells left behind may still run,
    and paddock kills every one of them before it starts a new bridge and kernel."""
    kernel.stop()
    status = {"timeout": "timed_out", "cancel": "cancelled"}.get(why, "lost")
    emit({"done": {"status": status, "state_lost": reason}})
    sys.exit(0)


def main():
    try:
        kernel = Kernel()
    except NoSuchKernel:
        emit({"failed": "no Jupyter kernelspec named '%s' in the sandbox's file system" % KERNEL})
        return 3
    except Exception as error:
        emit({"failed": why_not_started(error)})
        return 3
    language = kernel.info.get("language_info")
    language = language if isinstance(language, dict) else {}
    emit({"ready": {"kernel": KERNEL,
                    "implementation": text_of(kernel.info.get("implementation")),
                    "language": text_of(language.get("name")),
                    "language_version": text_of(language.get("version"))}})
    while True:
        command = commands.next(block=True)
        if command is None:
            break
        if "code" in command:
            kernel = execute(kernel, command)
    kernel.stop()
    return 0


sys.exit(main())
