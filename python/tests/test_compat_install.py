"""llm-sandbox-compat installs with no package index, beside paddock's library, in one pip
command as docs/python.md gives it; alone it cannot (its dependency `paddock` is in no index);
and the installed `llm_sandbox` refuses to import once pip also has the real llm-sandbox."""

import subprocess

from test_install import DEBIAN_PYTHON, _offline_env, _run, _source_copy

RUN_CODE = ("import llm_sandbox, sys\n"
            "assert llm_sandbox.__file__.startswith(sys.prefix), llm_sandbox.__file__\n"
            "from llm_sandbox import SandboxSession\n"
            "with SandboxSession(lang='python') as s:\n"
            "    print(s.run('print(40 + 2)').stdout, end='')\n")


def test_pip_installs_both_distributions_offline(tmp_path):
    env = _offline_env(tmp_path)
    source = _source_copy(tmp_path)
    venv = tmp_path / "venv"
    _run([DEBIAN_PYTHON, "-m", "venv", venv], env, tmp_path)
    pip = venv / "bin" / "pip"
    alone = subprocess.run([str(pip), "install", str(source / "llm-sandbox-compat")], env=env,
                           cwd=str(tmp_path), capture_output=True, text=True)
    assert alone.returncode != 0 and "paddock" in alone.stderr
    _run([pip, "install", source, source / "llm-sandbox-compat"], env, tmp_path)
    assert _run([venv / "bin" / "python", "-c", RUN_CODE], env, tmp_path).stdout == "42\n"

    # The real llm-sandbox installed too (as pip records it): one line, and no import.
    site = next((venv / "lib").glob("python3*/site-packages"))
    fake = site / "llm_sandbox-0.3.0.dist-info"
    fake.mkdir()
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: llm-sandbox\nVersion: 0.3.0\n")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import llm_sandbox"], env=env,
                          cwd=str(tmp_path), capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(
        "ImportError: llm-sandbox 0.3.0 is installed beside llm-sandbox-compat")
