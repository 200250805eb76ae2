"""Sessions kept on disk through the library: a named session closed with llm-sandbox's
commit_container comes back in a new server with its files; snapshots, diffs, forks and exports."""

import os

import pytest

from paddock import SandboxSession
from paddock.exceptions import SandboxError


def test_a_committed_session_comes_back_in_a_new_server(tmp_path):
    state = tmp_path / "state"
    with SandboxSession(lang="python", name="kept", state_dir=state,
                        commit_container=True) as session:
        assert session.run("open('note.txt', 'w').write('still here')").exit_code == 0
    with SandboxSession(lang="python", resume="kept", state_dir=state) as again:
        result = again.run("print(open('note.txt').read())")
        assert result.stdout == "still here\n"
    # Closed without commit_container: gone from disk, and cannot be resumed.
    with pytest.raises(SandboxError):
        SandboxSession(lang="python", resume="kept", state_dir=state).open()


def test_snapshots_diffs_forks_and_exports(tmp_path):
    share = tmp_path / "out"
    share.mkdir()
    with SandboxSession(lang="python", state_dir=tmp_path / "state",
                        shares=[(str(share), "out", True)]) as session:
        session.run("open('a.txt', 'w').write('one')")
        made = session.snapshot("first")
        assert made["snapshot"] == "first"
        session.run("open('a.txt', 'w').write('two!')\nopen('b.txt', 'w').write('new')")
        changes = {c["path"]: c["change"] for c in session.diff(since="first")}
        assert changes["a.txt"] == "changed"
        assert changes["b.txt"] == "added"
        fork_id = session.fork()
        assert fork_id and fork_id != session.session_id
        exported = session.export("out/s.tar.zst")
        assert exported["bytes"] > 0
        assert os.path.getsize(share / "s.tar.zst") == exported["bytes"]
        with pytest.raises(SandboxError):
            session.snapshot("../escape")


def test_an_unnamed_fork_follows_its_session_and_a_named_one_is_kept(tmp_path):
    """Issue 55: the unnamed fork stayed in the state directory after the server ended. It now
    closes with the session that made it, under that session's rule."""
    state = tmp_path / "state"
    with SandboxSession(lang="python", state_dir=state) as session:
        session.run("open('a.txt', 'w').write('forked')")
        unnamed = session.fork()
        named = session.fork(name="kept-fork")
        assert unnamed != named
    with pytest.raises(SandboxError):
        SandboxSession(lang="python", resume=unnamed, state_dir=state).open()
    with SandboxSession(lang="python", resume="kept-fork", state_dir=state) as again:
        assert again.run("print(open('a.txt').read())").stdout == "forked\n"

    # With commit_container the session is kept, and its unnamed fork with it.
    with SandboxSession(lang="python", state_dir=state, commit_container=True) as kept:
        kept.run("open('b.txt', 'w').write('kept')")
        kept_fork = kept.fork()
    with SandboxSession(lang="python", resume=kept_fork, state_dir=state) as again:
        assert again.run("print(open('b.txt').read())").stdout == "kept\n"
