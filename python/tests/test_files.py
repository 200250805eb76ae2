"""copy_to_runtime and copy_from_runtime: binary files intact, folders, the confinement of the
server's file tools, and big files through a share."""

import hashlib
import os

import pytest

from paddock import FileTransferError, SandboxSession, Share, ValidationError


def sha(data):
    return hashlib.sha256(data).hexdigest()


def test_binary_files_round_trip(tmp_path):
    small = bytes(range(256)) * 4
    large = os.urandom(3 * 1024 * 1024 + 17)  # over 1 MiB: read back as a resource link
    (tmp_path / "small.bin").write_bytes(small)
    (tmp_path / "large.bin").write_bytes(large)
    text = "héllo\nwörld\n".encode("utf-8")
    (tmp_path / "text.txt").write_bytes(text)
    with SandboxSession(lang="python") as session:
        for name in ("small.bin", "large.bin", "text.txt"):
            session.copy_to_runtime(str(tmp_path / name), "in/" + name)
        result = session.run(
            "import hashlib\nfor n in ('small.bin', 'large.bin', 'text.txt'):\n"
            "    print(hashlib.sha256(open('in/' + n, 'rb').read()).hexdigest())\n"
            "open('made.bin', 'wb').write(bytes(reversed(range(256))))\n")
        assert result.stdout.split() == [sha(small), sha(large), sha(text)]
        for name in ("small.bin", "large.bin", "text.txt"):
            session.copy_from_runtime("/work/in/" + name, str(tmp_path / "back" / name))
        session.copy_from_runtime("made.bin", str(tmp_path / "made.bin"))
    assert (tmp_path / "back" / "small.bin").read_bytes() == small
    assert (tmp_path / "back" / "large.bin").read_bytes() == large
    assert (tmp_path / "back" / "text.txt").read_bytes() == text
    assert (tmp_path / "made.bin").read_bytes() == bytes(reversed(range(256)))
    assert not [n for n in os.listdir(str(tmp_path)) if n.startswith(".paddock-")]


def test_folders_both_ways(tmp_path):
    source = tmp_path / "project"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "a.py").write_text("A = 1\n")
    (source / "main.txt").write_text("main\n")
    with SandboxSession(lang="python") as session:
        session.copy_to_runtime(str(source), "/sandbox/project")
        listing = session.execute_command("find project -type f | sort")
        assert listing.stdout == "project/main.txt\nproject/pkg/a.py\n"
        session.run("import os\nos.makedirs('out/deep', exist_ok=True)\n"
                    "open('out/deep/r.csv', 'w').write('a,b\\n1,2\\n')\n"
                    "open('out/top.bin', 'wb').write(b'\\x00\\xff')")
        session.copy_from_runtime("out", str(tmp_path / "out"))
    assert (tmp_path / "out" / "deep" / "r.csv").read_text() == "a,b\n1,2\n"
    assert (tmp_path / "out" / "top.bin").read_bytes() == b"\x00\xff"


def test_paths_stay_inside_the_sandbox(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    with SandboxSession(lang="python") as session:
        with pytest.raises(ValidationError, match="outside the sandbox"):
            session.copy_to_runtime(str(tmp_path / "f.txt"), "/etc/f.txt")
        with pytest.raises(FileTransferError):
            session.copy_to_runtime(str(tmp_path / "f.txt"), "../f.txt")
        with pytest.raises(ValidationError):
            session.copy_from_runtime("/etc/passwd", str(tmp_path / "passwd"))
        session.execute_command("ln -s /etc/passwd link")
        with pytest.raises(FileTransferError):
            session.copy_from_runtime("link", str(tmp_path / "passwd"))
        with pytest.raises(FileTransferError, match="no such file"):
            session.copy_from_runtime("missing.txt", str(tmp_path / "m"))
        with pytest.raises(FileTransferError, match="no such file"):
            session.copy_to_runtime(str(tmp_path / "missing"), "m")
    assert not (tmp_path / "passwd").exists()


def test_big_files_go_through_a_share(tmp_path):
    big = os.urandom(30 * 1024 * 1024)
    (tmp_path / "big.bin").write_bytes(big)
    with SandboxSession(lang="python") as session:
        with pytest.raises(FileTransferError, match="shares="):
            session.copy_to_runtime(str(tmp_path / "big.bin"), "big.bin")
    with SandboxSession(lang="python", shares=[Share(str(tmp_path), "data", rw=True)]) as session:
        session.copy_to_runtime(str(tmp_path / "big.bin"), "big.bin")
        digest = session.run("import hashlib; print(hashlib.sha256(open('big.bin','rb').read())"
                             ".hexdigest())")
        assert digest.stdout.strip() == sha(big)
        session.execute_command("cp big.bin copy.bin")
        session.copy_from_runtime("copy.bin", str(tmp_path / "sub" / "copy.bin"))
    assert sha((tmp_path / "sub" / "copy.bin").read_bytes()) == sha(big)
