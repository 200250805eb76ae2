"""`pip install ./python` into a virtual environment, as docs/python.md says (Debian 12 keeps
pip out of the system's site-packages: PEP 668), then the installed package runs code."""

import os
import shutil
import subprocess
import sys

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_pip_install_into_a_venv(tmp_path):
    # pip builds in the source tree: install from a copy (the checkout may be read-only).
    source = tmp_path / "src"
    shutil.copytree(PACKAGE_ROOT, str(source),
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "tests"))
    venv = tmp_path / "venv"
    # --system-site-packages for Debian's setuptools; --no-build-isolation since no package
    # index is reachable here.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               HOME=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                              str(source)], env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    check = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import paddock, sys\n"
         "assert 'site-packages' in paddock.__file__, paddock.__file__\n"
         "from paddock import SandboxSession\n"
         "with SandboxSession(lang='python') as s:\n"
         "    print(s.run('print(40 + 2)').stdout, end='')\n"],
        env=env, capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert (check.returncode, check.stdout) == (0, "42\n"), check.stderr
