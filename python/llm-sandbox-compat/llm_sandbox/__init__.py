"""llm-sandbox's API on paddock: `import llm_sandbox` runs code written for llm-sandbox
unchanged, in paddock's rootless sandboxes (the native backend unless a session names
another). Not to be installed beside the real llm-sandbox: both are this import package, and
this one refuses to import when pip has the other too."""

__version__ = "0.1.0"

from ._conflict import check_not_beside_llm_sandbox

check_not_beside_llm_sandbox()

from .const import DefaultImage, SandboxBackend, SupportedLanguage  # noqa: E402
from .data import (ConsoleOutput, ExecutionResult, FileType, PlotOutput,  # noqa: E402
                   StreamCallback)
from .exceptions import (ContainerError, ResourceError, SandboxError,  # noqa: E402
                         SecurityError, ValidationError)
from .interactive import InteractiveSandboxSession, KernelType  # noqa: E402
from .security import SecurityIssueSeverity, SecurityPattern, SecurityPolicy  # noqa: E402
from .session import (ArtifactSandboxSession, SandboxSession, SessionConfig,  # noqa: E402
                      create_session)

__all__ = [
    "ArtifactSandboxSession", "ConsoleOutput", "ContainerError", "DefaultImage",
    "ExecutionResult", "FileType", "InteractiveSandboxSession", "KernelType", "PlotOutput",
    "ResourceError", "SandboxBackend", "SandboxError", "SandboxSession", "SecurityError",
    "SecurityIssueSeverity", "SecurityPattern", "SecurityPolicy", "SessionConfig",
    "StreamCallback", "SupportedLanguage", "ValidationError", "create_session",
]
