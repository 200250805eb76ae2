"""llm-sandbox-compat's live sessions, pools and security policies, with llm-sandbox's
documented examples (its docs and examples/, written again here) on the real binary."""

import threading
import time
import warnings

import pytest

from llm_sandbox import ArtifactSandboxSession, SandboxSession
from llm_sandbox.exceptions import LanguageNotSupportedError, LanguageNotSupportPlotError
from llm_sandbox.exceptions import SandboxTimeoutError
from llm_sandbox.interactive import InteractiveSandboxSession
from llm_sandbox.pool import (ExhaustionStrategy, PoolConfig, PoolExhaustedError,
                              create_pool_manager)
from llm_sandbox.security import (RestrictedModule, SecurityIssueSeverity, SecurityPattern,
                                  SecurityPolicy, get_security_policy, list_available_presets)


def test_interactive_session_keeps_state_and_raises_timeouts():
    with InteractiveSandboxSession(lang="python", timeout=30) as session:
        session.run("import math\nradius = 2")
        result = session.run("print(round(math.pi * radius ** 2, 2))")
        assert (result.exit_code, result.stdout) == (0, "12.57\n")
        failed = session.run("1 / 0")
        assert failed.exit_code == 1 and "ZeroDivisionError" in failed.stderr
        with pytest.raises(SandboxTimeoutError):
            session.run("import time\ntime.sleep(20)", timeout=1)
    with pytest.raises(LanguageNotSupportedError):
        InteractiveSandboxSession(lang="java")


def test_plots_accumulate_and_clear():
    figure = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"
    with ArtifactSandboxSession(lang="python") as session:
        assert len(session.run(figure).plots) == 1
        assert len(session.run(figure).plots) == 2
        assert len(session.run(figure, clear_plots=True).plots) == 1
        session.clear_plots()
        assert session.run("print(1)").plots == []
    with ArtifactSandboxSession(lang="java", enable_plotting=True) as session:
        with pytest.raises(LanguageNotSupportPlotError):
            session.run("class Main { public static void main(String[] a) {} }")


def test_security_policy_is_checked_before_running():
    # llm-sandbox's documented policy: patterns and restricted modules, blocked from MEDIUM.
    policy = SecurityPolicy(
        severity_threshold=SecurityIssueSeverity.MEDIUM,
        patterns=[SecurityPattern(pattern=r"\bos\.system\s*\(",
                                  description="System command execution",
                                  severity=SecurityIssueSeverity.HIGH)],
        restricted_modules=[RestrictedModule(name="socket", description="Network access",
                                             severity=SecurityIssueSeverity.MEDIUM),
                            RestrictedModule(name="json", description="harmless here",
                                             severity=SecurityIssueSeverity.LOW)])
    with SandboxSession(lang="python", security_policy=policy) as session:
        safe, violations = session.is_safe("import json\nprint(json.dumps([1]))")
        assert safe and [v.description for v in violations] == ["harmless here"]
        safe, violations = session.is_safe("import os\nos.system('id')")
        assert not safe and violations[0].severity == SecurityIssueSeverity.HIGH
        assert not session.is_safe("from socket import socket")[0]
        assert session.is_safe("# import socket\nprint('comment only')")[0]
        if session.is_safe("print(6 * 7)")[0]:
            assert session.run("print(6 * 7)").stdout == "42\n"
    assert SandboxSession(lang="python").is_safe("import os; os.system('x')") == (True, [])
    assert "production" in list_available_presets()
    strict = get_security_policy("strict")
    assert not SandboxSession(lang="python", security_policy=strict).is_safe("import pickle")[0]
    with pytest.raises(ValueError, match="Unknown preset"):
        get_security_policy("lenient")


def test_pool_sessions_share_a_warm_server():
    config = PoolConfig(max_pool_size=2, min_pool_size=1, idle_timeout=30,
                        exhaustion_strategy=ExhaustionStrategy.FAIL_FAST)
    with pytest.warns(UserWarning, match="idle_timeout: ignored by paddock"):
        pool = create_pool_manager(config=config, lang="python")
    try:
        assert pool.server.argv[-4:] == ["--warm", "1", "--max-sessions", "2"]
        with SandboxSession(pool=pool, lang="python") as first, \
                SandboxSession(pool=pool, lang="python") as second:
            assert first.run("print('first')").stdout == "first\n"
            assert second.run("print('second')").stdout == "second\n"
            assert pool.get_stats()["total_size"] == 2
            with pytest.raises(PoolExhaustedError, match="All 2 containers in pool are busy"):
                SandboxSession(pool=pool, lang="python").open()
        assert pool.get_stats()["total_size"] == 0
        with SandboxSession(pool=pool) as again:  # a slot given back is taken again
            assert again.run("print(3)").stdout == "3\n"
    finally:
        pool.close()


def test_pool_waits_for_a_slot_then_gives_up():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults warn of nothing
        pool = create_pool_manager(config=PoolConfig(max_pool_size=1, acquisition_timeout=1),
                                   lang="python")
    try:
        holder = SandboxSession(pool=pool)
        holder.open()
        started = time.monotonic()
        with pytest.raises(PoolExhaustedError, match="timeout of 1s exceeded"):
            SandboxSession(pool=pool).open()
        assert time.monotonic() - started >= 0.9
        threading.Timer(0.5, holder.close).start()
        with SandboxSession(pool=pool) as waited:  # gets the slot once the holder closes
            assert waited.run("print('waited')").stdout == "waited\n"
    finally:
        pool.close()


def test_timeout_demo():
    # llm-sandbox's timeout demo: the run raises, the next session works.
    with SandboxSession(lang="python", execution_timeout=2) as session:
        try:
            session.run("import time\nprint('start', flush=True)\ntime.sleep(10)")
            raise AssertionError("should have timed out")
        except SandboxTimeoutError as error:
            assert error.timeout_duration == 2
    with SandboxSession(lang="python", default_timeout=5) as session:
        assert session.run("print('quick')").stdout == "quick\n"
