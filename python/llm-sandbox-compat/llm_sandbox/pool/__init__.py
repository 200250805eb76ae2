"""llm-sandbox's container pool, on paddock's warm pool. A pool manager is one `paddock mcp`
server that its sessions share:

- `min_pool_size` is the server's `--warm` (sandboxes, and for python live interpreters, set
  up ahead; `enable_prewarming=False` makes it 0);
- `max_pool_size` is how many pooled sessions are open at once (and the server's
  `--max-sessions`); a session past it waits (`exhaustion_strategy` WAIT, at most
  `acquisition_timeout` seconds), fails (FAIL_FAST: PoolExhaustedError) or gets a server of its
  own (TEMPORARY);
- `idle_timeout`, `health_check_interval`, `max_container_lifetime` and `max_container_uses`
  are accepted and ignored, with a warning when set: a pooled paddock session is a fresh
  sandbox each time (nothing of one session is left for the next), so there is nothing to
  age, check or recycle.
"""

from .base import ContainerPoolManager, ContainerState, PooledContainer
from .config import ExhaustionStrategy, PoolConfig
from .exceptions import PoolClosedError, PoolExhaustedError, PoolHealthCheckError
from .factory import create_pool_manager
from .session import ArtifactPooledSandboxSession, PooledSandboxSession

__all__ = ["ArtifactPooledSandboxSession", "ContainerPoolManager", "ContainerState",
           "ExhaustionStrategy", "PoolClosedError", "PoolConfig", "PoolExhaustedError",
           "PoolHealthCheckError", "PooledContainer", "PooledSandboxSession",
           "create_pool_manager"]
