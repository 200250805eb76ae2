"""Exceptions: paddock or its use went wrong. What the sandboxed code did is never one of these;
it is a result (`ConsoleOutput`), whatever its exit code."""

__all__ = [
    "SandboxError", "PaddockNotFoundError", "LanguageNotSupportedError", "ValidationError",
    "NotOpenSessionError", "SessionClosedError", "ServerError", "ServerDiedError",
    "CommandFailedError", "LibraryInstallationNotSupportedError", "FileTransferError",
    "ContainerError", "ResourceError", "SecurityError", "SandboxTimeoutError",
]


class SandboxError(Exception):
    """The base of every error this package raises."""


class ContainerError(SandboxError):
    """llm-sandbox's name for a failure of the sandbox machinery; paddock's such errors derive
    from it (`ServerError`)."""


class ResourceError(SandboxError):
    """Kept for llm-sandbox compatibility: paddock reports limits in the result instead."""


class SecurityError(SandboxError):
    """Kept for llm-sandbox compatibility: paddock's screening is in `result.screening`."""


class SandboxTimeoutError(SandboxError):
    """Kept for llm-sandbox compatibility: a run past its timeout is a result with
    `timed_out` set (exit code 124), not this exception."""


class PaddockNotFoundError(SandboxError, FileNotFoundError):
    """The paddock binary is not installed where this package looks for it."""


class LanguageNotSupportedError(SandboxError, ValueError):
    """The server has no policy for the language asked for."""


class ValidationError(SandboxError, ValueError):
    """An argument paddock cannot accept (a path outside the sandbox's /work, a bad setting)."""


class NotOpenSessionError(SandboxError):
    """The call needs an open session (open() it, or use `with`)."""


class SessionClosedError(NotOpenSessionError):
    """The session was closed, expired after its idle time, or its server died."""


class ServerError(ContainerError):
    """The paddock server refused a call or failed to start; the message is the server's."""


class ServerDiedError(ServerError):
    """The paddock server process ended; the message says how, with its last log line."""


class CommandFailedError(SandboxError):
    """A library install failed; `.output` holds the installer's output."""

    def __init__(self, message, output=""):
        super().__init__(message)
        self.output = output


class LibraryInstallationNotSupportedError(SandboxError):
    """The language's policy has no package manager."""


class FileTransferError(SandboxError, OSError):
    """copy_to_runtime or copy_from_runtime could not copy the file."""
