"""Test set-up: the package from this checkout, the real paddock binary, and a check after every
test that no paddock server or sandbox of this run is left and no temporary file either."""

import os
import sys
import tempfile
import time
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
REPO_ROOT = os.path.dirname(PACKAGE_ROOT)
sys.path.insert(0, PACKAGE_ROOT)
# llm-sandbox-compat's `llm_sandbox`, from this checkout too (test_compat_*.py).
COMPAT_ROOT = os.path.join(PACKAGE_ROOT, "llm-sandbox-compat")
sys.path.insert(0, COMPAT_ROOT)

# Every server these tests start inherits this marker, so a stray one can be found even if it
# were no longer our child.
MARKER = "PADDOCK_PYTEST_RUN=" + uuid.uuid4().hex
os.environ[MARKER.split("=")[0]] = MARKER.split("=")[1]

# pytest keeps its own temporary directories where they were; servers and the library get a
# private TMPDIR that must be empty at the end.
tempfile.gettempdir()
WATCHED_TMP = tempfile.mkdtemp(prefix="paddock-py-tmp-")
os.chmod(WATCHED_TMP, 0o700)
os.environ["TMPDIR"] = WATCHED_TMP

if not os.environ.get("PADDOCK_BIN"):
    built = os.path.join(REPO_ROOT, "build", "paddock")
    if os.access(built, os.X_OK):
        os.environ["PADDOCK_BIN"] = built


def _paddock_processes():
    """PIDs of processes that carry this run's marker, or descend from this process and run
    paddock or are zombies."""
    found = {}
    children = {}
    zombies = set()
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open("/proc/%d/stat" % pid, "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(pid)
            if fields[0] == b"Z":
                # Only this run's own count (below): CI runs other suites beside this one, and
                # the machine always has some zombie of theirs about to be reaped.
                zombies.add(pid)
                continue
            with open("/proc/%d/environ" % pid, "rb") as environ:
                if MARKER.encode() in environ.read().split(b"\0") and pid != me:
                    found[pid] = "marked"
        except OSError:
            continue
    todo = [me]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            if child in zombies:
                found[child] = "zombie"
                continue
            try:
                name = os.readlink("/proc/%d/exe" % child)
            except OSError:
                name = ""
            if "paddock" in os.path.basename(name):
                found[child] = name
    found.pop(me, None)
    return found


def _describe(pids):
    lines = []
    for pid, why in sorted(pids.items()):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            command = "?"
        lines.append("%d (%s): %s" % (pid, why, command))
    return "\n".join(lines)


def assert_no_leftovers(grace=10.0):
    deadline = time.monotonic() + grace
    while True:
        left = _paddock_processes()
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, "paddock processes left behind:\n" + _describe(left)
    extra = os.listdir(WATCHED_TMP)
    assert not extra, "temporary files left in TMPDIR: %s" % extra


@pytest.fixture(autouse=True)
def no_leftovers(request):
    yield
    import gc
    gc.collect()
    assert_no_leftovers()


def pytest_sessionfinish(session, exitstatus):
    try:
        os.rmdir(WATCHED_TMP)
    except OSError:
        pass


@pytest.fixture
def paddock_bin():
    return os.environ["PADDOCK_BIN"]
