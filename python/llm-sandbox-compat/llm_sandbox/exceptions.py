"""llm-sandbox's exceptions, with its constructor arguments and message texts (code matches on
both). paddock's own errors reach llm-sandbox code as these (session.py translates them): a
paddock error is always a SandboxError here, and the original is its __cause__."""

__all__ = [
    "SandboxError", "ContainerError", "SecurityError", "ResourceError", "ValidationError",
    "ExtraArgumentsError", "LanguageNotSupportedError", "ImageNotFoundError",
    "NotOpenSessionError", "LibraryInstallationNotSupportedError", "CommandEmptyError",
    "CommandFailedError", "PackageManagerError", "ImagePullError", "UnsupportedBackendError",
    "MissingDependencyError", "LanguageNotSupportPlotError", "InvalidRegexPatternError",
    "LanguageHandlerNotInitializedError", "SecurityViolationError", "SandboxTimeoutError",
]


class SandboxError(Exception):
    """What every exception of this package is."""

    def __init__(self, message):
        super().__init__(message)


class ContainerError(SandboxError):
    """The sandbox could not be made or driven (paddock's server refused or failed)."""


class SecurityError(SandboxError):
    pass


class ResourceError(SandboxError):
    pass


class ValidationError(SandboxError):
    """An argument this package cannot take."""


class ExtraArgumentsError(SandboxError):
    pass


class LanguageNotSupportedError(SandboxError):
    def __init__(self, lang):
        super().__init__("Language %s is not supported" % lang)


class ImageNotFoundError(SandboxError):
    def __init__(self, image):
        super().__init__("Image %s not found" % image)


class NotOpenSessionError(SandboxError):
    def __init__(self):
        super().__init__("Session is not open. Please call open() method before running code.")


class LibraryInstallationNotSupportedError(SandboxError):
    def __init__(self, lang):
        super().__init__("Library installation is not supported for %s" % lang)


class CommandEmptyError(SandboxError):
    def __init__(self):
        super().__init__("Command cannot be empty")


class CommandFailedError(SandboxError):
    def __init__(self, command, exit_code, output):
        super().__init__("Command %s failed with exit code %s:\n%s" % (command, exit_code, output))


class PackageManagerError(SandboxError):
    def __init__(self, package_manager):
        super().__init__("Package manager %s not found" % package_manager)


class ImagePullError(SandboxError):
    def __init__(self, image, error):
        super().__init__("Failed to pull image %s: %s" % (image, error))


class UnsupportedBackendError(SandboxError):
    def __init__(self, backend):
        super().__init__("Unsupported backend: %s" % backend)


class MissingDependencyError(SandboxError):
    """Here: the paddock binary is not installed where the library looks for it."""


class LanguageNotSupportPlotError(SandboxError):
    def __init__(self, lang):
        super().__init__("Language %s does not support plot detection" % lang)


class InvalidRegexPatternError(SandboxError):
    def __init__(self, pattern):
        super().__init__("Invalid regex pattern: %s" % pattern)


class LanguageHandlerNotInitializedError(SandboxError):
    def __init__(self, language):
        super().__init__("Language handler for %s is not initialized." % language)


class SecurityViolationError(SandboxError):
    pass


class SandboxTimeoutError(SandboxError):
    """A run went past its timeout (paddock stopped it; the session stays usable)."""

    def __init__(self, message, timeout_duration=None):
        super().__init__(message)
        self.timeout_duration = timeout_duration
