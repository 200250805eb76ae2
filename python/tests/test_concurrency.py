"""Many sessions at once, from threads and from asyncio tasks, and nothing left behind: after
close, garbage collection, the interpreter's exit, or its death."""

import asyncio
import gc
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from paddock import (AsyncArtifactSandboxSession, AsyncInteractiveSandboxSession,
                     AsyncSandboxSession, LanguageNotSupportedError, PaddockServer,
                     SandboxSession)

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stat_fields(pid):
    """/proc/PID/stat's fields after the command's name (state first), or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def identify(pids):
    """Each process as (pid, start time): CI's machines have pid_max 32768, and a busy run can
    hand a pid that has exited to a new process, which must not count as the old one."""
    found = []
    for pid in pids:
        fields = stat_fields(pid)
        if fields is not None:
            found.append((pid, fields[19]))
    return found


def gone(process):
    """The process has exited (and no longer runs, even if a parent has yet to reap it)."""
    pid, start = process
    fields = stat_fields(pid)
    return fields is None or fields[0] in ("Z", "X") or fields[19] != start


def describe(process):
    try:
        with open("/proc/%d/cmdline" % process[0], "rb") as cmdline:
            return "%d (%s)" % (process[0], cmdline.read().replace(b"\0", b" ").decode().strip())
    except OSError:
        return str(process[0])


def wait_gone(pids, seconds=10):
    """The processes (pids, or (pid, start time) pairs) still running after `seconds`, each
    with its command line."""
    processes = [p for p in pids if isinstance(p, tuple)]
    processes += identify(p for p in pids if not isinstance(p, tuple))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(gone(p) for p in processes):
        time.sleep(0.05)
    return [describe(p) for p in processes if not gone(p)]


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def test_twenty_sessions_from_threads():
    results, errors = {}, []

    def work(number):
        try:
            with SandboxSession(lang="python") as session:
                session.run("open('n', 'w').write('%d')" % number)
                results[number] = session.run("print(int(open('n').read()) * 2)").stdout
        except Exception as error:  # collected: a thread's exception is otherwise lost
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not errors
    assert results == {n: "%d\n" % (2 * n) for n in range(20)}


def test_twenty_sessions_from_asyncio_tasks():
    async def work(number):
        async with AsyncSandboxSession(lang="python") as session:
            await session.run("open('n', 'w').write('%d')" % number)
            result = await session.run("print(int(open('n').read()) + 1000)")
            return result.stdout

    async def main():
        return await asyncio.gather(*[work(n) for n in range(20)])

    assert asyncio.run(main()) == ["%d\n" % (n + 1000) for n in range(20)]


def test_one_session_shared_by_threads():
    with SandboxSession(lang="python") as session:
        outputs = []

        def work(number):
            outputs.append(session.run("print(%d)" % number).stdout)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    assert sorted(outputs) == sorted("%d\n" % n for n in range(8))


def test_one_server_shared_by_sessions():
    with PaddockServer.start() as server:
        sessions = [SandboxSession(lang="python", server=server).open() for _ in range(4)]
        assert len({s.session_id for s in sessions}) == 4
        assert [s.run("print(7)").stdout for s in sessions] == ["7\n"] * 4
        for session in sessions[:2]:
            session.close()
        del sessions[2:]
        gc.collect()  # the collected sessions are closed at the server's next call
        listed = server.call(("tool", "list_sessions", {}))["structuredContent"]["sessions"]
        assert len(listed) <= 2
        deadline = time.monotonic() + 5
        while server.call(("tool", "list_sessions", {}))["structuredContent"]["sessions"]:
            assert time.monotonic() < deadline, "the collected sessions were not closed"
            time.sleep(0.05)
    assert not server.alive


def test_async_sessions_do_what_the_blocking_ones_do(tmp_path):
    async def main():
        async with AsyncInteractiveSandboxSession(lang="python") as live:
            await live.run("x = 20")
            kept = (await live.run("print(x + 1)")).stdout
        async with AsyncArtifactSandboxSession(lang="python") as artifacts:
            plotted = await artifacts.run(
                "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()")
            (tmp_path / "f.bin").write_bytes(b"\x00\x01\xfe")
            await artifacts.copy_to_runtime(str(tmp_path / "f.bin"), "f.bin")
            command = await artifacts.execute_command("od -An -tx1 f.bin")
            await artifacts.copy_from_runtime("f.bin", str(tmp_path / "g.bin"))
        with pytest.raises(LanguageNotSupportedError):
            async with AsyncSandboxSession(lang="cobol"):
                pass
        fresh = await AsyncSandboxSession(lang="python").run("print('fresh')")
        return kept, plotted, command, fresh

    kept, plotted, command, fresh = asyncio.run(main())
    gc.collect()
    assert kept == "21\n"
    assert [p.format.value for p in plotted.plots] == ["png"]
    assert command.stdout.split() == ["00", "01", "fe"]
    assert (tmp_path / "g.bin").read_bytes() == b"\x00\x01\xfe"
    assert fresh.stdout == "fresh\n"


def test_a_collected_session_ends_its_server():
    session = SandboxSession(lang="python").open()
    session.run("print(1)")
    server = session.server.pid
    sandboxes = descendants(server)
    assert sandboxes  # the session's sandbox runs under its server
    del session
    gc.collect()
    assert wait_gone([server] + sandboxes) == []


def test_a_session_dropped_without_open_ends_its_server():
    session = SandboxSession(lang="python")
    assert session.run("print(1)").stdout == "1\n"  # a fresh sandbox on a server of its own
    server = session.server.pid
    del session
    gc.collect()
    assert wait_gone([server]) == []


EXITING = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, %r)
    from paddock import SandboxSession, InteractiveSandboxSession
    kept = [SandboxSession(lang="python").open(), InteractiveSandboxSession(lang="python").open()]
    kept[0].run("print(1)")
    def tree(pid):
        out = [pid]
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    parent = int(open("/proc/%%s/stat" %% entry).read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError):
                    continue
                if parent == pid:
                    out += tree(int(entry))
        return out
    def start(pid):
        return open("/proc/%%d/stat" %% pid).read().rsplit(")", 1)[1].split()[19]
    print(" ".join("%%d:%%s" %% (p, start(p)) for s in kept for p in tree(s.server.pid)),
          flush=True)
    how = sys.argv[1]
    if how == "raise":
        raise SystemExit("leaving with an exception")
    if how == "kill":
        sys.stdin.read()
""") % PACKAGE_ROOT


@pytest.mark.parametrize("how", ["exit", "raise", "kill"])
def test_nothing_is_left_when_the_interpreter_ends(how):
    child = subprocess.Popen([sys.executable, "-c", EXITING, how], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    processes = [(int(pid), start) for pid, start in
                 (word.split(":") for word in child.stdout.readline().split())]
    assert len(processes) >= 4, child.stderr.read()  # two servers and their sandboxes
    if how == "kill":
        child.kill()  # no finalizer runs: the servers see the end of their input
    try:
        child.wait(60)
    except subprocess.TimeoutExpired:
        child.kill()
        pytest.fail("the interpreter took over 60 s to exit; still running: %s; its stderr: %s"
                    % (wait_gone(processes, 0), child.communicate()[1]))
    assert wait_gone(processes, 20) == [], child.stderr.read()
    child.stdout.close()
    child.stderr.close()
    child.stdin.close()
