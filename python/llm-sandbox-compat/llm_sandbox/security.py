"""llm-sandbox's security policy: regex patterns and restricted modules, each with a severity,
checked against code (`session.is_safe(code)`) before anything runs. Screening is a convenience,
not the boundary: the boundary is paddock's sandbox (docs/security.md).

Presets (`get_security_policy(name)`, `list_available_presets()`) are this package's own, for
code that wants a ready policy; llm-sandbox shows such presets in its examples."""

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import List, Optional

from .exceptions import InvalidRegexPatternError

__all__ = ["SecurityIssueSeverity", "SecurityPattern", "RestrictedModule", "SecurityPolicy",
           "get_security_policy", "list_available_presets", "check_code"]


class SecurityIssueSeverity(IntEnum):
    SAFE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass
class SecurityPattern:
    pattern: str
    description: str
    severity: SecurityIssueSeverity

    def __post_init__(self):
        try:
            re.compile(self.pattern)
        except (re.error, TypeError) as error:
            raise InvalidRegexPatternError(self.pattern) from error
        self.severity = SecurityIssueSeverity(self.severity)


@dataclass
class RestrictedModule:
    name: str
    description: str
    severity: SecurityIssueSeverity

    def __post_init__(self):
        self.severity = SecurityIssueSeverity(self.severity)


@dataclass
class SecurityPolicy:
    """Code is unsafe when a pattern (or an import of a restricted module) at or above
    `severity_threshold` appears outside comments; a threshold of SAFE blocks nothing."""

    severity_threshold: SecurityIssueSeverity = SecurityIssueSeverity.SAFE
    patterns: Optional[List[SecurityPattern]] = None
    restricted_modules: Optional[List[RestrictedModule]] = None

    def __post_init__(self):
        self.severity_threshold = SecurityIssueSeverity(self.severity_threshold)

    def add_pattern(self, pattern):
        if self.patterns is None:
            self.patterns = []
        self.patterns.append(pattern)

    def add_restricted_module(self, module):
        if self.restricted_modules is None:
            self.restricted_modules = []
        self.restricted_modules.append(module)


# -- checking code ---------------------------------------------------------------------------

def check_code(policy, lang, code):
    """(safe, violations): every pattern found, up to the first at or above the threshold,
    which makes the code unsafe (llm-sandbox's order: patterns, then restricted modules)."""
    if policy is None:
        return True, []
    from .language_handlers.factory import LanguageHandlerFactory
    handler = LanguageHandlerFactory.create_handler(lang)
    patterns = list(policy.patterns or [])
    for module in policy.restricted_modules or []:
        patterns.append(SecurityPattern(pattern=handler.get_import_patterns(module.name),
                                        description=module.description,
                                        severity=module.severity))
    if not patterns:
        return True, []
    text = handler.filter_comments(code)
    threshold = policy.severity_threshold
    violations = []
    for found in patterns:
        if not found.pattern or not re.search(found.pattern, text):
            continue
        violations.append(found)
        if threshold > SecurityIssueSeverity.SAFE and found.severity >= threshold:
            return False, violations
    return True, violations


# -- presets -----------------------------------------------------------------------------------

def _sev(name):
    return SecurityIssueSeverity[name]


def _policy(threshold, patterns, modules):
    return SecurityPolicy(
        severity_threshold=_sev(threshold),
        patterns=[SecurityPattern(p, d, _sev(s)) for p, d, s in patterns],
        restricted_modules=[RestrictedModule(n, d, _sev(s)) for n, d, s in modules])


_SYSTEM = [(r"\bos\.system\s*\(", "runs a shell command", "HIGH"),
           (r"\bsubprocess\.\w+\s*\(", "starts a process", "HIGH"),
           (r"\b(?:eval|exec)\s*\(", "runs code built at run time", "MEDIUM"),
           (r"\b__import__\s*\(", "imports by computed name", "MEDIUM")]
_FILES = [(r"\bshutil\.rmtree\s*\(", "removes a folder tree", "HIGH"),
          (r"\bos\.(?:remove|unlink|rmdir)\s*\(", "removes files", "MEDIUM"),
          (r"\bopen\s*\([^)]*['\"][wax]\+?b?['\"]", "writes a file", "LOW")]
_NETWORK = [(r"\bsocket\.socket\s*\(", "opens a socket", "MEDIUM"),
            (r"\b(?:requests|urllib\.request|httpx)\.\w+\s*\(", "makes a web request", "LOW")]
_PROCESS_MODULES = [("os", "operating system interface", "HIGH"),
                    ("subprocess", "starts processes", "HIGH"),
                    ("ctypes", "calls native code", "HIGH")]

_PRESETS = {
    "minimal": lambda: _policy("HIGH", _SYSTEM[:2], []),
    "development": lambda: _policy("HIGH", _SYSTEM + _FILES[:1], []),
    "educational": lambda: _policy("MEDIUM", _SYSTEM + _FILES + _NETWORK[:1],
                                   _PROCESS_MODULES),
    "data_science": lambda: _policy("HIGH", _SYSTEM + _FILES[:2],
                                    [("subprocess", "starts processes", "HIGH"),
                                     ("ctypes", "calls native code", "HIGH")]),
    "production": lambda: _policy("MEDIUM", _SYSTEM + _FILES + _NETWORK,
                                  _PROCESS_MODULES + [("socket", "raw network access", "MEDIUM")]),
    "strict": lambda: _policy("LOW", _SYSTEM + _FILES + _NETWORK,
                              _PROCESS_MODULES + [("socket", "raw network access", "MEDIUM"),
                                                  ("importlib", "dynamic imports", "MEDIUM"),
                                                  ("pickle", "loads arbitrary objects",
                                                   "MEDIUM")]),
}


def list_available_presets():
    return list(_PRESETS)


def get_security_policy(preset_name):
    """A fresh SecurityPolicy of the named preset (`list_available_presets()`)."""
    if preset_name not in _PRESETS:
        raise ValueError("Unknown preset '%s'. Available presets: %s"
                         % (preset_name, ", ".join(_PRESETS)))
    return _PRESETS[preset_name]()
