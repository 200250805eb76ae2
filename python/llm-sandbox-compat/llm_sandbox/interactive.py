"""llm-sandbox's InteractiveSandboxSession: a paddock live session, whose interpreter (a
Jupyter kernel in the sandbox) keeps variables, imports and data between runs. Python, and R
(which llm-sandbox has not), on paddock's native backend."""

from dataclasses import dataclass
from typing import Optional

import paddock

from ._translate import translated
from .const import StrEnum, SupportedLanguage
from .data import from_paddock
from .exceptions import LanguageNotSupportedError
from .session import Session

__all__ = ["KernelType", "InteractiveSettings", "InteractiveSandboxSession"]


class KernelType(StrEnum):
    IPYTHON = "ipython"


@dataclass
class InteractiveSettings:
    kernel_type: KernelType = KernelType.IPYTHON
    max_memory: Optional[str] = None
    history_size: int = 1000
    timeout: Optional[float] = 300.0
    poll_interval: float = 0.1

    def __post_init__(self):
        if self.history_size < 0:
            raise ValueError("history_size must be non-negative")
        if self.poll_interval <= 0:
            raise ValueError("poll_interval must be positive")


class InteractiveSandboxSession(Session):
    """`kernel_type`, `history_size` and `poll_interval` are accepted: paddock's kernel is its
    own and keeps no history."""

    _paddock_class = paddock.InteractiveSandboxSession

    def __init__(self, *, backend=None, lang=SupportedLanguage.PYTHON,
                 kernel_type=KernelType.IPYTHON, max_memory="1GB", history_size=1000,
                 timeout=300.0, runtime_configs=None, **kwargs):
        lang_value = str(getattr(lang, "value", lang)).lower()
        if lang_value not in ("python", "r"):
            raise LanguageNotSupportedError(lang_value)
        self.settings = InteractiveSettings(kernel_type=KernelType(kernel_type),
                                            max_memory=max_memory, history_size=history_size,
                                            timeout=timeout)
        configs = dict(runtime_configs or {})
        if max_memory:
            configs.setdefault("mem_limit", max_memory)
        if timeout is not None:
            kwargs.setdefault("execution_timeout", timeout)
        super().__init__(lang=lang_value, runtime_configs=configs, backend=backend, **kwargs)

    def run(self, code, libraries=None, timeout=None, on_stdout=None, on_stderr=None):
        """Runs `code` in the live interpreter; an ExecutionResult (llm-sandbox's: exit code,
        stdout, stderr; a cell's exception is exit code 1 with its traceback in stderr)."""
        self._require_open()
        timeout = self._timeout(timeout)
        if libraries:
            self.install(libraries)
        with translated(self.lang):
            result = self.paddock.run(code, timeout=timeout, on_stdout=on_stdout)
        result = self._finished(result, timeout)
        if result.error and not result.exit_code:
            result.exit_code = 1
        return from_paddock(result, True)
