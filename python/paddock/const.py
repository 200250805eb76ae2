"""Names llm-sandbox users know: backends and languages."""

from enum import Enum

__all__ = ["SandboxBackend", "SupportedLanguage", "DEFAULT_WORKDIR"]

# Where code runs, and what paths in copy_to_runtime/copy_from_runtime are relative to.
DEFAULT_WORKDIR = "/work"


class _StrEnum(str, Enum):
    def __str__(self):
        return str(self.value)


class SandboxBackend(_StrEnum):
    NATIVE = "native"
    DOCKER = "docker"
    PODMAN = "podman"
    KUBERNETES = "kubernetes"


class SupportedLanguage(_StrEnum):
    """The languages of paddock's built-in policies; a server with `--policy-dir` may know
    more, and any name the server knows is accepted."""

    PYTHON = "python"
    JAVASCRIPT = "javascript"
    JAVA = "java"
    CPP = "cpp"
    C = "c"
    GO = "go"
    R = "r"
    RUBY = "ruby"
    BASH = "bash"
