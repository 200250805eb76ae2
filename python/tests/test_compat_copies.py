"""copy_to_runtime and copy_from_runtime through llm-sandbox-compat, with llm-sandbox's folder
semantics (its Docker backend's archives): a file becomes `dest` both ways; a folder copied in
takes `dest`'s name (its contents go into `dest`, made or merged); a folder copied out keeps its
own name inside `dest` (`dest/NAME/...`), as `docker cp` does."""

import os

import pytest

from llm_sandbox import SandboxSession


def _tree(root):
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, root)] = stream.read()
    return found


def _sandbox_tree(session, folder):
    out = session.execute_command(
        "cd %s && find . -type f | sort | while read f; do printf '%%s=' \"$f\"; cat \"$f\"; "
        "echo; done" % folder).stdout
    return dict(line[2:].split("=", 1) for line in out.splitlines() if line)


@pytest.fixture
def host(tmp_path):
    (tmp_path / "one.txt").write_bytes(b"one\x00\xff")
    data = tmp_path / "data"
    (data / "deep").mkdir(parents=True)
    (data / "a.txt").write_text("a")
    (data / "deep" / "b.txt").write_text("b")
    return tmp_path


@pytest.fixture
def session():
    with SandboxSession(lang="python") as opened:
        yield opened


def test_into_the_sandbox(host, session):
    # file to file, under a new name
    session.copy_to_runtime(str(host / "one.txt"), "/sandbox/renamed.bin")
    # file into a folder (the folder is made), named by dest
    session.copy_to_runtime(str(host / "one.txt"), "/sandbox/folder/one.txt")
    # folder to a new path: its contents are the new folder
    session.copy_to_runtime(str(host / "data"), "/sandbox/fresh")
    # folder into an existing folder: merged into it (dest keeps its name)
    session.execute_command("mkdir -p /sandbox/existing && echo kept > /sandbox/existing/k.txt")
    session.copy_to_runtime(str(host / "data"), "/sandbox/existing")
    check = session.execute_command(
        "python3 -c \"import sys; sys.stdout.write(repr(open('/sandbox/renamed.bin','rb')"
        ".read()))\"; echo; cmp /sandbox/folder/one.txt /sandbox/renamed.bin && echo same")
    assert check.stdout.splitlines() == [repr(b"one\x00\xff"), "same"]
    assert _sandbox_tree(session, "/sandbox/fresh") == {"a.txt": "a", "deep/b.txt": "b"}
    assert _sandbox_tree(session, "/sandbox/existing") == {
        "a.txt": "a", "deep/b.txt": "b", "k.txt": "kept"}
    with pytest.raises(FileNotFoundError, match="Source path .* does not exist"):
        session.copy_to_runtime(str(host / "missing"), "/sandbox/x")


def test_out_of_the_sandbox(tmp_path, session):
    session.execute_command(
        "mkdir -p /sandbox/output_dir/sub && printf 1 > /sandbox/output_dir/output1.txt && "
        "printf 2 > /sandbox/output_dir/sub/output2.txt && printf r > /sandbox/result.txt")
    # file to file
    session.copy_from_runtime("/sandbox/result.txt", str(tmp_path / "r.txt"))
    assert (tmp_path / "r.txt").read_text() == "r"
    # file into a folder: dest names the file, its folder is made
    session.copy_from_runtime("/sandbox/result.txt", str(tmp_path / "made" / "result.txt"))
    assert (tmp_path / "made" / "result.txt").read_text() == "r"
    # folder to a new path: the folder keeps its name inside it
    session.copy_from_runtime("/sandbox/output_dir", str(tmp_path / "new"))
    assert _tree(tmp_path / "new") == {"output_dir/output1.txt": b"1",
                                       "output_dir/sub/output2.txt": b"2"}
    # folder into an existing folder: the same, beside what is there
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "mine.txt").write_text("mine")
    session.copy_from_runtime("/sandbox/output_dir/", str(existing))
    assert _tree(existing) == {"mine.txt": b"mine", "output_dir/output1.txt": b"1",
                               "output_dir/sub/output2.txt": b"2"}
    with pytest.raises(FileNotFoundError, match="File /sandbox/nothing not found in container"):
        session.copy_from_runtime("/sandbox/nothing", str(tmp_path / "n"))
