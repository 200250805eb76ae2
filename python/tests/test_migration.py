"""What code written for llm-sandbox expects of a session, beyond the README's examples: its
timeout settings, its word for a timed-out run, figures that accumulate, `/sandbox`, is_safe."""

import asyncio
import warnings

from paddock import ArtifactSandboxSession, AsyncArtifactSandboxSession, SandboxSession

PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\n"


def test_runtime_configs_timeout_is_the_runs_timeout():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # honoured, so not "ignored"
        session = SandboxSession(lang="python", runtime_configs={"timeout": 1})
    with session:
        result = session.run("import time; time.sleep(20)")
        assert result.timed_out and result.exit_code == 124
        assert result.raw.get("timeout_seconds") == 1


def test_a_timed_out_run_says_so_on_stderr():
    with SandboxSession(lang="python", timeout=1) as session:
        silent = session.run("import time; time.sleep(20)")
        assert silent.stderr == "timed out after 1 s\n"
        loud = session.run("import sys, time\nsys.stderr.write('working')\nsys.stderr.flush()\n"
                           "time.sleep(20)", timeout=2)
        assert loud.stderr == "working\ntimed out after 2 s\n"
        quick = session.run("print('ok')")
        assert "timed out" not in quick.stderr


def test_artifact_session_figures_accumulate_as_llm_sandboxs_do():
    with ArtifactSandboxSession(lang="python") as session:
        counts = [len(session.run(PLOT).plots), len(session.run(PLOT).plots),
                  len(session.run(PLOT, clear_plots=True).plots)]
        assert counts == [1, 2, 1]
        assert len(session.run("print('no figure')").plots) == 1  # the earlier one stays
        session.clear_plots()
        assert len(session.run(PLOT).plots) == 1
        assert len(session.run("print('none')", clear_plots=True).plots) == 0


def test_async_artifact_session_figures_accumulate_too():
    async def counts():
        async with AsyncArtifactSandboxSession(lang="python") as session:
            return [len((await session.run(PLOT)).plots), len((await session.run(PLOT)).plots),
                    len((await session.run(PLOT, clear_plots=True)).plots)]

    assert asyncio.run(counts()) == [1, 2, 1]


def test_without_plotting_nothing_accumulates():
    with ArtifactSandboxSession(lang="python", enable_plotting=False) as session:
        assert [len(session.run(PLOT).plots) for _ in range(2)] == [0, 0]


def test_sandbox_is_the_work_directory_as_in_llm_sandbox():
    with SandboxSession(lang="python") as session:
        wrote = session.run("open('/sandbox/x', 'w').write('from sandbox')")
        assert wrote.exit_code == 0, wrote.stderr
        read = session.run("print(open('/work/x').read())")
        assert read.stdout == "from sandbox\n", read.stderr
        listed = session.execute_command("cd /sandbox && ls")
        assert "x" in listed.stdout.split(), listed.stdout


def test_is_safe_screens_with_the_policys_rules_without_running():
    from paddock import SecurityIssueSeverity, SecurityPattern

    session = SandboxSession(lang="python")  # never opened: nothing runs, no server starts
    assert session.is_safe("print(sum(range(10)))") == (True, [])
    safe, violations = session.is_safe(
        "import os\n# os.system('in a comment')\nos.system('rm -rf /work')\nimport subprocess\n")
    assert safe is False
    assert [(v.rule, v.line, v.severity) for v in violations] == [
        ("py-shell", 3, SecurityIssueSeverity.HIGH),
        ("module:subprocess", 4, SecurityIssueSeverity.HIGH)]
    shell = violations[0]
    assert isinstance(shell, SecurityPattern) and shell.match == "os.system("
    assert "os" in shell.pattern and shell.description
    # Below the threshold: a finding, and still safe (as enforce mode would run it).
    safe, violations = session.is_safe("import pty\n")
    assert safe is True and [v.severity for v in violations] == [SecurityIssueSeverity.MEDIUM]
    assert not session.is_open


def test_is_safe_uses_the_sessions_language():
    safe, violations = SandboxSession(lang="javascript").is_safe(
        "require('child_process').execSync('id')")
    assert violations, "javascript's policy screens child_process"
    assert SandboxSession(lang="javascript").is_safe("console.log(1)") == (True, [])
