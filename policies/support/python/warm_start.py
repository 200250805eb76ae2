# paddock: a warm python interpreter (runtime/warm_run.h). Written where the call's program
# will be (main.py) and started exactly as a cold run starts the program (`python3 -u main.py`),
# so that sys.argv, sys.orig_argv, sys.path, sys.flags, __file__, the standard streams and
# /proc/self/cmdline are a cold run's. It imports the policy's preload list, says it is ready,
# and waits for exactly one call on the socket paddock gave it as stdout. The call brings its
# streams and environment; its files (main.py among them, over this one) are written by then.
# Its code then runs as __main__, in the namespace python made for this file at start-up.
# No docstring and no annotations here: both would change __main__'s namespace. The namespace as
# python made it is kept first, before anything here is bound in it.
_paddock_initial = dict(globals())


def _paddock_warm_start(namespace, initial, preload, end_if_shadowed, exit_status, finish):
    import os
    import sys
    import time
    import _socket

    channel = _socket.socket(fileno=os.dup(1))
    # Nothing a module prints as it is imported reaches the call's output or paddock's socket.
    null = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    started_with = set(sys.modules)
    for name in preload:
        try:
            __import__(name)
        except BaseException:  # not in this root file system: the call imports it itself
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    # The CPU time up to here is the preload's, not the call's: paddock subtracts it.
    channel.sendall(b"ready %d" % time.process_time_ns())
    try:
        data, ancillary, _, _ = channel.recvmsg(1 << 20, _socket.CMSG_SPACE(3 * 4))
    except OSError:
        data = b""
    fds = []
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds += [int.from_bytes(payload[i : i + 4], sys.byteorder) for i in range(0, len(payload) - 3, 4)]
    if not data.startswith(b"go\0") or len(fds) != 3:
        os._exit(0)  # paddock closed this sandbox without a call
    # A module the preload imported that the call's files would put before it on sys.path (a
    # numpy/ or pandas.py in the script's folder): a cold run would import the call's. This
    # interpreter then ends before it takes the call, which paddock runs cold.
    if preload:
        end_if_shadowed(started_with)
    try:  # before anything of the call runs: paddock waits for this word, for a while
        channel.sendall(b"took")
    except OSError:
        pass
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    channel.close()
    # The call's environment, in its order, replaces the language's.
    environ = os.environb
    environ.clear()
    for entry in data[3:].split(b"\0"):
        name, equals, value = entry.partition(b"=")
        if equals:
            environ[name] = value
    namespace.clear()
    namespace.update(initial)
    del initial
    path = namespace["__file__"]
    status = 0
    try:
        with open(path, "rb") as source:
            code = compile(source.read(), path, "exec", dont_inherit=True)
        del source, data, ancillary, fds, environ
        exec(code, namespace)
    except SystemExit as exit:
        status = exit_status(exit.code)
        del exit
    except BaseException as error:
        # Said as python says an uncaught exception, without this function's frame.
        trace = error.__traceback__.tb_next
        error.__traceback__ = trace
        sys.last_type, sys.last_value, sys.last_traceback = type(error), error, trace
        sys.excepthook(type(error), error, trace)
        del error, trace
        status = -2 if sys.last_type is KeyboardInterrupt else 1
    finish(namespace, status)


def _paddock_end_if_shadowed(started_with):
    import os
    import sys

    # Only the folders of sys.path in the work directory can hold the call's files (the script's
    # own, PYTHONPATH's support folder); they come before the rest.
    work = os.path.dirname(os.path.abspath(sys.argv[0]))
    folders = [path for path in sys.path if (os.path.abspath(path or ".") + os.sep).startswith(work + os.sep)]
    # Only a name that one of their entries starts (numpy/, json.py, _x.cpython-311-*.so) can be
    # shadowed: one listing each, where asking the finder for each of the ~160 names the data
    # libraries import took 1.3 ms.
    present = set()
    for path in folders:
        try:
            present.update(entry.partition(".")[0] for entry in os.listdir(path or "."))
        except OSError:
            pass
    imported = {module.partition(".")[0] for module in set(sys.modules) - started_with}
    if not imported & present:
        return
    # The import system's own finder, loaded at every start: importing importlib.machinery could
    # add a module the call would see.
    finder = sys.modules["importlib._bootstrap_external"].PathFinder
    for path in folders:  # the call's files came after these folders were read
        cached = sys.path_importer_cache.get(path)
        if hasattr(cached, "invalidate_caches"):
            cached.invalidate_caches()
    for name in imported & present:
        try:
            found = finder.find_spec(name, folders)
        except Exception:
            continue
        if found is None:
            continue
        loaded = getattr(sys.modules.get(name), "__spec__", None)
        # A plain folder (a namespace portion) gives way to a module found later on the path.
        if found.origin in (None, "namespace") and loaded is not None and loaded.origin not in (None, "namespace"):
            continue
        if loaded is None or (loaded.origin, list(loaded.submodule_search_locations or [])) != (
            found.origin,
            list(found.submodule_search_locations or []),
        ):
            os._exit(0)


def _paddock_exit_status(code):
    import sys

    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        print(code, file=sys.stderr)
    except BaseException:
        pass
    return 1


# Ends the interpreter as python's own exit does, up to the point where python would tear down
# every module one by one: that takes python about 0.4 s once pandas and scikit-learn are
# loaded, which would cost every call what preloading saved. So: non-daemon threads joined,
# exit handlers run, __main__'s names cleared (its objects finalized, open files flushed, as
# python's teardown clears modules: underscored names first), the standard streams flushed, and
# then the process ends with the status python would give. What python does not promise
# either (finalizers of objects that other modules still hold) does not happen.
def _paddock_finish(namespace, status):
    import os
    import sys

    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:
            pass
    import atexit

    atexit._run_exitfuncs()
    for underscored in (True, False):
        for name in list(namespace):
            if name != "__builtins__" and name.startswith("_") == underscored:
                namespace[name] = None
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            status = 120 if status == 0 else status
    if status == -2:  # python ends by SIGINT after an uncaught KeyboardInterrupt
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(status & 0xFF)

_paddock_warm_start(
    globals(),
    _paddock_initial,
    PADDOCK_PRELOAD,
    _paddock_end_if_shadowed,
    _paddock_exit_status,
    _paddock_finish,
)
