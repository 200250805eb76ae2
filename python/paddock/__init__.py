"""paddock: llm-sandbox's Python API, with paddock's rootless sandboxes underneath.

    from paddock import SandboxSession

    with SandboxSession(lang="python") as session:
        print(session.run("print('hello')").stdout)

Every session drives a `paddock mcp` server (found at $PADDOCK_BIN, on PATH, or beside this
package) over stdio; sessions, live interpreters, files, figures, backends, policies and limits
are the server's.
"""

__version__ = "0.1.0"

from ._binary import find_paddock  # noqa: E402
from ._server import PaddockServer, Share  # noqa: E402
from .aio import (AsyncArtifactSandboxSession, AsyncInteractiveSandboxSession,  # noqa: E402
                  AsyncSandboxSession)
from .const import SandboxBackend, SupportedLanguage  # noqa: E402
from .data import ConsoleOutput, ExecutionResult, FileType, PlotOutput  # noqa: E402
from .exceptions import (CommandFailedError, ContainerError, FileTransferError,  # noqa: E402
                         LanguageNotSupportedError, LibraryInstallationNotSupportedError,
                         NotOpenSessionError, PaddockNotFoundError, ResourceError,
                         SandboxError, SandboxTimeoutError, SecurityError, ServerDiedError,
                         ServerError, SessionClosedError, ValidationError)
from .security import SecurityIssueSeverity, SecurityPattern  # noqa: E402
from .session import (ArtifactSandboxSession, InteractiveSandboxSession,  # noqa: E402
                      SandboxSession, create_session)
from .wrap import wrap_command  # noqa: E402

__all__ = [
    "SandboxSession", "ArtifactSandboxSession", "InteractiveSandboxSession", "create_session",
    "AsyncSandboxSession", "AsyncArtifactSandboxSession", "AsyncInteractiveSandboxSession",
    "ConsoleOutput", "ExecutionResult", "PlotOutput", "FileType", "SandboxBackend",
    "SupportedLanguage", "PaddockServer", "Share", "find_paddock", "SecurityPattern",
    "SecurityIssueSeverity", "wrap_command",
    "SandboxError", "PaddockNotFoundError", "LanguageNotSupportedError", "ValidationError",
    "NotOpenSessionError", "SessionClosedError", "ServerError", "ServerDiedError",
    "CommandFailedError", "LibraryInstallationNotSupportedError", "FileTransferError",
    "ContainerError", "ResourceError", "SecurityError", "SandboxTimeoutError",
]
