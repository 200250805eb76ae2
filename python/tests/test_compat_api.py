"""llm-sandbox-compat's names, signatures and behaviours where llm-sandbox and paddock's library
differ: llm-sandbox's exceptions with their arguments and messages, frozen results, timeouts
that raise, calls on a session not open, backends, llm-sandbox's image names, and the refusal to
import beside the real llm-sandbox. Sessions run on the real binary."""

import dataclasses
import inspect
import os
import subprocess
import sys

import pytest

import llm_sandbox
from llm_sandbox import (ConsoleOutput, DefaultImage, ExecutionResult, KernelType, PlotOutput,
                         SandboxBackend, SandboxSession, StreamCallback, SupportedLanguage)
from llm_sandbox import exceptions as ex
from llm_sandbox.const import StrEnum

HERE = os.path.dirname(os.path.abspath(__file__))
COMPAT_ROOT = os.path.join(os.path.dirname(HERE), "llm-sandbox-compat")


def test_the_public_names_are_there():
    for name in llm_sandbox.__all__:
        assert getattr(llm_sandbox, name) is not None, name
    assert {"SandboxSession", "ArtifactSandboxSession", "InteractiveSandboxSession",
            "SecurityPolicy", "KernelType", "StreamCallback", "DefaultImage",
            "SessionConfig"} <= set(llm_sandbox.__all__)
    from llm_sandbox.interactive import InteractiveSandboxSession
    from llm_sandbox.pool import (ContainerPoolManager, ExhaustionStrategy, PoolConfig,  # noqa
                                  PooledSandboxSession, create_pool_manager)
    from llm_sandbox.security import RestrictedModule, get_security_policy  # noqa: F401
    assert InteractiveSandboxSession is llm_sandbox.InteractiveSandboxSession
    assert KernelType("IPython") is KernelType.IPYTHON


@pytest.mark.parametrize("cls, args, message", [
    (ex.SandboxError, ("boom",), "boom"),
    (ex.LanguageNotSupportedError, ("cobol",), "Language cobol is not supported"),
    (ex.ImageNotFoundError, ("img",), "Image img not found"),
    (ex.NotOpenSessionError, (),
     "Session is not open. Please call open() method before running code."),
    (ex.LibraryInstallationNotSupportedError, ("go",),
     "Library installation is not supported for go"),
    (ex.CommandEmptyError, (), "Command cannot be empty"),
    (ex.CommandFailedError, ("ls", 2, "no such file"),
     "Command ls failed with exit code 2:\nno such file"),
    (ex.PackageManagerError, ("pip",), "Package manager pip not found"),
    (ex.ImagePullError, ("img", "denied"), "Failed to pull image img: denied"),
    (ex.UnsupportedBackendError, ("lxc",), "Unsupported backend: lxc"),
    (ex.MissingDependencyError, ("need x",), "need x"),
    (ex.LanguageNotSupportPlotError, ("java",), "Language java does not support plot detection"),
    (ex.InvalidRegexPatternError, ("(",), "Invalid regex pattern: ("),
    (ex.LanguageHandlerNotInitializedError, ("go",), "Language handler for go is not initialized."),
    (ex.SecurityViolationError, ("no",), "no"),
    (ex.ExtraArgumentsError, ("extra",), "extra"),
])
def test_exceptions_take_llm_sandboxs_arguments(cls, args, message):
    error = cls(*args)
    assert isinstance(error, ex.SandboxError)
    assert str(error) == message


def test_timeout_error_keeps_its_duration():
    error = ex.SandboxTimeoutError("too slow", timeout_duration=2.5)
    assert (str(error), error.timeout_duration) == ("too slow", 2.5)
    assert ex.SandboxTimeoutError("x").timeout_duration is None
    assert list(inspect.signature(ex.SandboxTimeoutError).parameters) == [
        "message", "timeout_duration"]


def test_results_are_frozen_and_llm_sandboxs():
    output = ConsoleOutput(exit_code=1, stderr="e", stdout="o")
    with pytest.raises(dataclasses.FrozenInstanceError):
        output.exit_code = 0
    assert [f.name for f in dataclasses.fields(ExecutionResult)] == [
        "exit_code", "stderr", "stdout", "plots"]
    assert not output.success() and ConsoleOutput().success()
    plot = PlotOutput(format=llm_sandbox.FileType.PNG, content_base64="AA==")
    with pytest.raises(dataclasses.FrozenInstanceError):
        plot.width = 3
    assert '"plots"' not in ExecutionResult(plots=[plot]).to_json()
    assert '"png"' in ExecutionResult(plots=[plot]).to_json(include_plots=True)


def test_constants():
    assert SandboxBackend("MicroMamba") is SandboxBackend.MICROMAMBA
    assert [b.value for b in SandboxBackend] == ["docker", "kubernetes", "podman", "micromamba"]
    assert SupportedLanguage.JAVASCRIPT == "javascript" and str(SupportedLanguage.R) == "r"
    assert DefaultImage.PYTHON == "ghcr.io/vndee/sandbox-python-311-bullseye"
    with pytest.raises(TypeError, match="StrEnum values must be strings"):
        class Numbers(StrEnum):
            ONE = 1
    assert StreamCallback is not None


def test_a_run_past_its_timeout_raises_and_the_session_goes_on():
    with SandboxSession(lang="python") as session:
        with pytest.raises(ex.SandboxTimeoutError) as raised:
            session.run("import time\ntime.sleep(30)", timeout=1)
        assert raised.value.timeout_duration == 1
        assert str(raised.value) == "Operation timed out after 1 seconds"
        assert session.run("print('still here')").stdout == "still here\n"
    with SandboxSession(lang="python", execution_timeout=1) as session:
        with pytest.raises(ex.SandboxTimeoutError):
            session.run("while True: pass")


def test_calls_on_a_session_not_open_raise():
    session = SandboxSession(lang="python")
    with pytest.raises(ex.NotOpenSessionError):
        session.run("print(1)")
    with pytest.raises(ex.NotOpenSessionError):
        session.execute_command("ls")
    with pytest.raises(ex.CommandEmptyError):
        session.execute_command("")
    session.close()


def test_commands_and_failed_installs():
    with SandboxSession(lang="python") as session:
        result = session.execute_commands(["echo one", ("pwd", "/sandbox"), "exit 3", "echo no"])
        assert result.exit_code == 3
        assert session.execute_command("echo hi").stdout == "hi\n"
        with pytest.raises(ex.LanguageNotSupportedError):
            SandboxSession(lang="cobol").open()
    with SandboxSession(lang="bash") as session:
        with pytest.raises(ex.LibraryInstallationNotSupportedError):
            session.install(["x"])


def test_backends():
    with pytest.raises(ex.UnsupportedBackendError, match="micromamba.*leave backend= out"):
        SandboxSession(backend=SandboxBackend.MICROMAMBA, lang="python")
    with pytest.raises(ex.UnsupportedBackendError, match="Unsupported backend: lxc"):
        SandboxSession(backend="lxc", lang="python")
    assert SandboxSession(lang="python").backend is None  # paddock's native sandbox
    session = SandboxSession(backend=SandboxBackend.KUBERNETES, lang="python",
                             kube_namespace="agents")
    assert session.paddock._command[0][-2:] == ["--namespace", "agents"]
    docker = SandboxSession(backend="docker", lang="python")
    assert docker.backend == "docker" and type(docker).__name__ == "SandboxDockerSession"


def test_llm_sandboxs_images_are_mapped_or_refused():
    session = SandboxSession(lang="python", image=DefaultImage.PYTHON)
    assert session.paddock.image is None  # paddock's root for python
    with pytest.raises(ex.ValidationError, match="leave image= out"):
        SandboxSession(lang="python", image=DefaultImage.JAVA)
    mine = SandboxSession(lang="python", image="registry.example/team/python:3.12")
    assert mine.paddock.image == "registry.example/team/python:3.12"


def test_refuses_to_import_beside_the_real_llm_sandbox(tmp_path):
    fake = tmp_path / "llm_sandbox-0.3.0.dist-info"
    fake.mkdir()
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: llm-sandbox\nVersion: 0.3.0\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), COMPAT_ROOT,
                                                       os.path.dirname(COMPAT_ROOT)]))
    done = subprocess.run([sys.executable, "-c", "import llm_sandbox"], env=env,
                          capture_output=True, text=True)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last == ("ImportError: llm-sandbox 0.3.0 is installed beside llm-sandbox-compat (both "
                    "are `llm_sandbox`): uninstall one (pip uninstall llm-sandbox, or pip "
                    "uninstall llm-sandbox-compat)")
