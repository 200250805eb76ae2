"""llm-sandbox's constants: backends, languages and default image names, as its users' code
names them."""

from enum import Enum

__all__ = ["StrEnum", "SandboxBackend", "SupportedLanguage", "DefaultImage",
           "EncodingErrorsType"]

try:
    from typing import Literal
    EncodingErrorsType = Literal["strict", "replace", "ignore", "surrogateescape",
                                 "backslashreplace", "xmlcharrefreplace"]
except ImportError:  # pragma: no cover
    EncodingErrorsType = str


class StrEnum(str, Enum):
    """An enum whose members are their string values (Python 3.11's StrEnum, on 3.9 too);
    looking a member up by value ignores case."""

    def __new__(cls, value):
        if not isinstance(value, str):
            raise TypeError("StrEnum values must be strings, got %s" % type(value).__name__)
        member = str.__new__(cls, value)
        member._value_ = value
        return member

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return "<%s.%s: '%s'>" % (type(self).__name__, self.name, self.value)

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str):
            for member in cls:
                if member.value.lower() == value.lower():
                    return member
        raise ValueError("%r is not a valid %s" % (value, cls.__name__))


class SandboxBackend(StrEnum):
    """llm-sandbox's backends. A session that names none runs on paddock's native backend;
    DOCKER, PODMAN and KUBERNETES are paddock's container backends; MICROMAMBA is refused."""

    DOCKER = "docker"
    KUBERNETES = "kubernetes"
    PODMAN = "podman"
    MICROMAMBA = "micromamba"


class SupportedLanguage(StrEnum):
    PYTHON = "python"
    JAVA = "java"
    JAVASCRIPT = "javascript"
    CPP = "cpp"
    GO = "go"
    RUBY = "ruby"
    R = "r"


class DefaultImage:
    """llm-sandbox's image names per language. paddock does not pull them: a session given one
    runs on the language's own root (the host's /usr natively), which has the language."""

    PYTHON = "ghcr.io/vndee/sandbox-python-311-bullseye"
    JAVA = "ghcr.io/vndee/sandbox-java-11-bullseye"
    JAVASCRIPT = "ghcr.io/vndee/sandbox-node-22-bullseye"
    CPP = "ghcr.io/vndee/sandbox-cpp-11-bullseye"
    GO = "ghcr.io/vndee/sandbox-go-123-bullseye"
    RUBY = "ghcr.io/vndee/sandbox-ruby-302-bullseye"
    R = "ghcr.io/vndee/sandbox-r-451-bullseye"
