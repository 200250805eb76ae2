"""llm-sandbox's `is_safe`, with paddock's screening: the patterns and restricted modules of the
session language's policy (`paddock policy show LANG`), checked by the paddock binary itself
(`paddock policy screen LANG`), so that the verdict is the one the server reaches. Nothing runs.

Screening is a convenience, not a boundary (docs/security.md): code can always be written past a
pattern, and what holds is the sandbox."""

import json
import subprocess
from dataclasses import dataclass
from enum import IntEnum

from .exceptions import SandboxError, ValidationError

__all__ = ["SecurityIssueSeverity", "SecurityPattern", "screen"]


class SecurityIssueSeverity(IntEnum):
    """llm-sandbox's severities, and paddock's CRITICAL above HIGH."""

    SAFE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4


@dataclass
class SecurityPattern:
    """One finding: llm-sandbox's fields (`pattern`, `description`, `severity`), and where and
    what matched, and the rule of the policy that found it."""

    pattern: str
    description: str
    severity: SecurityIssueSeverity
    rule: str = ""
    line: int = 0
    match: str = ""


def screen(paddock, lang, code, policy_dir=None, env=None):
    """(safe, findings) for `code` in `lang`: safe is False when enforce mode would refuse the
    code (a finding at or above the policy's threshold), whatever mode the server runs in."""
    if not isinstance(code, str):
        raise ValidationError("is_safe takes the code as a string, not %s" % type(code).__name__)
    argv = [paddock, "policy", "screen", lang, "--json"]
    if policy_dir:
        argv += ["--policy-dir", str(policy_dir)]
    try:
        done = subprocess.run(argv, input=code.encode("utf-8", "surrogatepass"),
                              capture_output=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxError("screening the code with %s failed: %s" % (paddock, error)) from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SandboxError(said[-1] if said else "paddock policy screen exited with %d"
                           % done.returncode)
    verdict = json.loads(done.stdout)
    findings = [SecurityPattern(pattern=found.get("pattern", ""),
                                description=found.get("message", ""),
                                severity=SecurityIssueSeverity[found["severity"].upper()],
                                rule=found.get("rule", ""), line=found.get("line", 0),
                                match=found.get("match", ""))
                for found in verdict.get("findings", [])]
    return not verdict.get("blocked", False), findings
