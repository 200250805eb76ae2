"""Every shell and python snippet of README.md and docs/python.md runs as it is written (issue 55:
one failed at `export`, another was out of date), or is marked, just above its fence, with why
it is not run here: `<!-- snippet not run: REASON -->`. A marked snippet passes only with a
reason; an unmarked one passes only when it exits 0.

Each runs in a folder of its own, which holds what the snippets name as the reader's own files
(`data.csv`, `script.py`) and `build/` (the binaries under test, as a checkout has them), with
a state directory of its own and the binary under test (PADDOCK_BIN)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# The repository, or scripts/test's copy of README.md and docs/ beside python/.
ROOT = Path(__file__).resolve().parent.parent.parent
LIBRARY = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md", "docs/python.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
MARK = re.compile(r"<!-- snippet not run: (.*?) -->\s*$")


def snippets():
    found = []
    for document in DOCUMENTS:
        text = (ROOT / document).read_text()
        for match in FENCE.finditer(text):
            language, body = match.group(1), match.group(2)
            if language not in ("sh", "python"):
                continue
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            mark = MARK.search(before)
            line = text.count("\n", 0, match.start()) + 1
            found.append(pytest.param(language, body, mark.group(1) if mark else None,
                                      id="%s:%d" % (document, line)))
    return found


@pytest.fixture
def reader_folder(tmp_path):
    """Where a reader would run the snippet: their files, and build/ as a checkout has it."""
    build = tmp_path / "build"
    build.mkdir()
    binary = Path(os.environ["PADDOCK_BIN"]).resolve()
    for name in ("paddock", "paddock-full", "paddock-init"):
        if (binary.parent / name).exists():
            (build / name).symlink_to(binary.parent / name)
    (tmp_path / "data.csv").write_text("a,b\n1,2\n3,4\n")
    (tmp_path / "script.py").write_text("print('hello from script.py')\n")
    return tmp_path


@pytest.mark.parametrize("language,body,reason", snippets())
def test_a_documented_snippet_runs_or_says_why_not(language, body, reason, reader_folder):
    if reason is not None:
        assert reason.strip(), "a snippet marked not run must say why"
        return
    env = dict(os.environ)
    env["PADDOCK_STATE_DIR"] = str(reader_folder / "state")
    # Debian's python3 and tools, as a reader of these docs on Debian 12 has them.
    env["PATH"] = os.pathsep.join([str(reader_folder / "build"), "/usr/bin", "/bin"])
    env["PYTHONPATH"] = os.pathsep.join([str(LIBRARY), str(LIBRARY / "llm-sandbox-compat")])
    command = [sys.executable, "-c", body] if language == "python" else ["bash", "-e", "-c", body]
    done = subprocess.run(command, cwd=str(reader_folder), env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, "the snippet failed:\n%s\nstdout:\n%s\nstderr:\n%s" % (
        body, done.stdout[-4000:], done.stderr[-4000:])
