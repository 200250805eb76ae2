"""paddock's errors as llm-sandbox's exceptions, and llm-sandbox's backend and image names as
paddock's settings."""

import contextlib
import re

from paddock import exceptions as pe

from . import exceptions as ls
from .const import SandboxBackend

__all__ = ["translated", "paddock_backend", "paddock_image"]


def _as_llm_sandbox(error, lang):
    text = str(error)
    if isinstance(error, pe.NotOpenSessionError):  # SessionClosedError too
        return ls.NotOpenSessionError()
    if isinstance(error, pe.LanguageNotSupportedError):
        return ls.LanguageNotSupportedError(lang)
    if isinstance(error, pe.LibraryInstallationNotSupportedError):
        return ls.LibraryInstallationNotSupportedError(lang)
    if isinstance(error, pe.CommandFailedError) and "no library installer" in text:
        return ls.LibraryInstallationNotSupportedError(lang)
    if isinstance(error, pe.CommandFailedError):
        return ls.CommandFailedError("install", 1, getattr(error, "output", "") or text)
    if isinstance(error, pe.PaddockNotFoundError):
        return ls.MissingDependencyError(text)
    if isinstance(error, pe.FileTransferError):
        if "no such file" in text:
            return FileNotFoundError(text)
        return ls.SandboxError(text)
    if isinstance(error, pe.ValidationError):
        return ls.ValidationError(text)
    if isinstance(error, pe.ContainerError):  # ServerError, ServerDiedError
        return ls.ContainerError(text)
    return ls.SandboxError(text)


@contextlib.contextmanager
def translated(lang="python"):
    """Runs the block; a paddock error leaving it becomes llm-sandbox's (the original is its
    __cause__)."""
    try:
        yield
    except pe.SandboxError as error:
        raise _as_llm_sandbox(error, lang) from error


def paddock_backend(backend):
    """None (paddock's native backend) or "docker", "podman", "kubernetes"."""
    if backend is None:
        return None
    name = str(getattr(backend, "value", backend)).lower()
    if name == "native":
        return None
    if name == SandboxBackend.MICROMAMBA.value:
        error = ls.UnsupportedBackendError(name)
        error.args = ("Unsupported backend: micromamba (paddock has no micromamba backend; leave "
                      "backend= out for paddock's native sandbox, where the host's Python and "
                      "session.install() or libraries= give the packages)",)
        raise error
    if name not in ("docker", "podman", "kubernetes"):
        raise ls.UnsupportedBackendError(backend)
    return name


_THEIR_IMAGE = re.compile(r"^(?:ghcr\.io/)?vndee/sandbox-([a-z]+)-")
_THEIR_LANGUAGES = {"python": "python", "java": "java", "node": "javascript", "cpp": "cpp",
                    "go": "go", "ruby": "ruby", "r": "r"}


def paddock_image(image, lang):
    """llm-sandbox's own images (ghcr.io/vndee/sandbox-LANG-...) are not pulled: a session
    given the one of its language runs on paddock's root for that language (natively the
    host's /usr, which has it), as if no image were named. Another language's is refused."""
    if not image:
        return None
    found = _THEIR_IMAGE.match(str(image))
    if not found:
        return image
    theirs = _THEIR_LANGUAGES.get(found.group(1))
    if theirs == str(getattr(lang, "value", lang)).lower():
        return None
    raise ls.ValidationError(
        "image %s is llm-sandbox's image for %s, and paddock does not use llm-sandbox's images: "
        "leave image= out (paddock runs %s on its own root) or name an image of yours"
        % (image, theirs or found.group(1), lang))
