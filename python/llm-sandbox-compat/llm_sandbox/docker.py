"""llm-sandbox's Docker session class, on paddock's docker backend (the engine reached through
DOCKER_HOST or /var/run/docker.sock by paddock itself, docs/backends.md). `client=` is
accepted and unused. `docker` is the Docker SDK when it is installed, as in llm-sandbox; paddock
needs none."""

from .exceptions import MissingDependencyError
from .session import Session

__all__ = ["SandboxDockerSession", "docker"]

try:
    import docker
except ImportError:
    class _NoDockerSdk:
        """Stands for the Docker SDK, which is not installed (paddock does not need it)."""

        @staticmethod
        def from_env(*args, **kwargs):
            raise MissingDependencyError("the Docker SDK (pip package docker) is not installed; "
                                         "paddock reaches the engine without it")

    docker = _NoDockerSdk()


class SandboxDockerSession(Session):
    def __init__(self, client=None, image=None, dockerfile=None, *args, **kwargs):
        kwargs["backend"] = "docker"
        super().__init__(client, image, dockerfile, *args, **kwargs)
