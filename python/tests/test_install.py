"""The package installs with no package index reachable, as docs/python.md says: `pip install
./python` into a venv of Debian's python3 (with pip's build isolation, as a user types it), a
wheel built with `pip wheel --no-index` into a fresh venv, the sdist, an editable install, and
`pip install ./python` with every other Python 3.9+ on the machine. Each installed copy then
runs code through the real binary ($PADDOCK_BIN)."""

import base64
import csv
import glob
import hashlib
import io
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEBIAN_PYTHON = "/usr/bin/python3"

USE_THE_LIBRARY = (
    "import os, sys, paddock\n"
    "expected = os.path.realpath(sys.argv[1])\n"
    "assert os.path.realpath(paddock.__file__).startswith(expected), paddock.__file__\n"
    "from paddock import SandboxSession\n"
    "with SandboxSession(lang='python') as s:\n"
    "    print(s.run('print(40 + 2)').stdout, end='')\n")


def _offline_env(tmp_path):
    """pip with no index and no other source of packages: no find-links (this machine sets
    PIP_FIND_LINKS), no configuration files, a HOME and TMPDIR of the test's own."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PIP_") and k not in ("PYTHONPATH", "PYTHONHOME")}
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    env.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1",
               HOME=str(tmp_path), TMPDIR=str(temporary), PYTHONDONTWRITEBYTECODE="1")
    return env


def _source_copy(tmp_path):
    # pip builds in the source tree: install from a copy (the checkout may be read-only).
    source = tmp_path / "src"
    shutil.copytree(PACKAGE_ROOT, str(source),
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist"))
    return source


def _run(command, env, cwd, timeout=300):
    done = subprocess.run([str(part) for part in command], env=env, cwd=str(cwd),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, "%s\n%s%s" % (command, done.stdout, done.stderr)
    return done


def _check_runs_code(python, installed_under, env, cwd):
    done = _run([python, "-c", USE_THE_LIBRARY, installed_under], env, cwd, timeout=120)
    assert done.stdout == "42\n", done.stderr


def _venv_without_pip(python, venv, env, cwd):
    """A venv pip installs into with `--python` (pip 22.3+): the interpreter's own pip, without
    the seconds ensurepip takes to copy pip into every venv."""
    _run([python, "-m", "venv", "--without-pip", venv], env, cwd)
    return [python, "-m", "pip", "--python", venv / "bin" / "python"]


def test_pip_install_source_into_a_venv_of_debians_python(tmp_path):
    env = _offline_env(tmp_path)
    source = _source_copy(tmp_path)
    venv = tmp_path / "venv"
    _run([DEBIAN_PYTHON, "-m", "venv", venv], env, tmp_path)
    _run([venv / "bin" / "pip", "install", source], env, tmp_path)
    _check_runs_code(venv / "bin" / "python", venv, env, tmp_path)


def _record_matches(wheel_path):
    """Every file of the wheel is in RECORD with its sha256 and size, as the wheel spec says."""
    with zipfile.ZipFile(wheel_path) as wheel:
        names = wheel.namelist()
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(wheel.read(record_name).decode())))
        listed = {row[0]: row for row in rows}
        assert sorted(listed) == sorted(names)
        for name in names:
            if name == record_name:
                assert listed[name][1:] == ["", ""]
                continue
            data = wheel.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert listed[name][1:] == ["sha256=" + digest.decode(), str(len(data))], name
        return names


def test_wheel_built_offline_installs_into_a_fresh_venv(tmp_path):
    env = _offline_env(tmp_path)
    source = _source_copy(tmp_path)
    dist = tmp_path / "dist"
    _run([DEBIAN_PYTHON, "-m", "pip", "wheel", "--no-index", "--no-deps", "-w", dist, source],
         env, tmp_path)
    wheels = glob.glob(str(dist / "paddock-*-py3-none-any.whl"))
    assert len(wheels) == 1, os.listdir(str(dist))
    names = _record_matches(wheels[0])
    assert "paddock/session.py" in names
    assert not [n for n in names if n.startswith(("tests/", "backend/")) or n.endswith(".pyc")]

    venv = tmp_path / "venv"
    pip = _venv_without_pip(DEBIAN_PYTHON, venv, env, tmp_path)
    _run(pip + ["install", "--no-index", wheels[0]], env, tmp_path)
    shown = _run(pip + ["show", "paddock"], env, tmp_path).stdout
    assert "Name: paddock\nVersion: 0.1.0\n" in shown, shown
    _check_runs_code(venv / "bin" / "python", venv, env, tmp_path)


def test_sdist_builds_and_installs_offline(tmp_path):
    env = _offline_env(tmp_path)
    source = _source_copy(tmp_path)
    dist = tmp_path / "dist"
    dist.mkdir()
    made = _run([DEBIAN_PYTHON, "-c",
                 "import sys, paddock_backend\nprint(paddock_backend.build_sdist(sys.argv[1]))",
                 dist], dict(env, PYTHONPATH=str(source / "backend")), source).stdout.strip()
    assert made == "paddock-0.1.0.tar.gz", made
    venv = tmp_path / "venv"
    pip = _venv_without_pip(DEBIAN_PYTHON, venv, env, tmp_path)
    # From the sdist alone: pip unpacks it and builds the wheel with the backend it carries.
    _run(pip + ["install", dist / made], env, tmp_path)
    _check_runs_code(venv / "bin" / "python", venv, env, tmp_path)


def test_editable_install_imports_the_source_tree(tmp_path):
    env = _offline_env(tmp_path)
    source = _source_copy(tmp_path)
    venv = tmp_path / "venv"
    pip = _venv_without_pip(DEBIAN_PYTHON, venv, env, tmp_path)
    _run(pip + ["install", "--editable", source], env, tmp_path)
    _check_runs_code(venv / "bin" / "python", source / "paddock", env, tmp_path)


def _pythons_on_this_machine():
    """Every Python 3.9+ with pip this user can run: Debian's, the one running the tests,
    pyenv's (/root/.pyenv, /opt/pyenv) and any under /opt or /usr/local."""
    candidates = [DEBIAN_PYTHON, sys.executable]
    for pattern in ("/root/.pyenv/versions/*/bin/python3", "/opt/pyenv/versions/*/bin/python3",
                    "/opt/*/bin/python3", "/usr/local/bin/python3.*", "/usr/bin/python3.*"):
        candidates += sorted(glob.glob(pattern))
    found = {}
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if real in found or not os.access(real, os.X_OK) or not os.path.isfile(real):
            continue
        try:
            probe = subprocess.run(
                [real, "-c", "import sys, venv, pip; print(sys.version_info >= (3, 9))"],
                capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.stdout.strip() == "True":
            found[real] = candidate
    return sorted(found.values())


@pytest.mark.parametrize("python", _pythons_on_this_machine())
def test_pip_install_source_with_every_python_here(tmp_path, python):
    env = _offline_env(tmp_path)
    source = _source_copy(tmp_path)
    venv = tmp_path / "venv"
    pip = _venv_without_pip(python, venv, env, tmp_path)
    _run(pip + ["install", source], env, tmp_path)
    _check_runs_code(venv / "bin" / "python", venv, env, tmp_path)


def test_backend_reads_pyproject_without_tomllib_as_tomllib_does():
    """Python 3.9 and 3.10 have no tomllib: the backend's own reader of [project] must give what
    tomllib gives, and refuse what it cannot read by name."""
    import tomllib  # the suite runs on Debian 12's python3, 3.11
    sys.path.insert(0, os.path.join(PACKAGE_ROOT, "backend"))
    try:
        import paddock_backend
    finally:
        sys.path.pop(0)
    with open(os.path.join(PACKAGE_ROOT, "pyproject.toml"), encoding="utf-8") as handle:
        text = handle.read()
    assert paddock_backend._read_project_table(text) == tomllib.loads(text)["project"]
    tricky = ('[project]\nname = "a#b" # comment\nlist = [\n  "x", # one\n  "y\\"z",\n]\n'
              '[tool.other]\nanything = {inline = 1}\n')
    assert paddock_backend._read_project_table(tricky) == tomllib.loads(tricky)["project"]
    with pytest.raises(paddock_backend.BuildError, match="only strings and arrays of strings"):
        paddock_backend._read_project_table('[project]\nversion = {attr = "x"}\n')
