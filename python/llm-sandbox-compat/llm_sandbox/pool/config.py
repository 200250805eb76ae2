"""llm-sandbox's PoolConfig and ExhaustionStrategy (what each knob does here: pool/__init__.py)."""

from dataclasses import dataclass, fields
from enum import Enum
from typing import Optional

__all__ = ["ExhaustionStrategy", "PoolConfig"]


class ExhaustionStrategy(str, Enum):
    FAIL_FAST = "fail_fast"
    WAIT = "wait"
    TEMPORARY = "temporary"


_IGNORED_KNOBS = ("idle_timeout", "health_check_interval", "max_container_lifetime",
                  "max_container_uses")


@dataclass
class PoolConfig:
    max_pool_size: int = 10
    min_pool_size: int = 0
    idle_timeout: Optional[float] = 300.0
    acquisition_timeout: Optional[float] = 30.0
    health_check_interval: float = 60.0
    max_container_lifetime: Optional[float] = 3600.0
    max_container_uses: Optional[int] = None
    exhaustion_strategy: ExhaustionStrategy = ExhaustionStrategy.WAIT
    enable_prewarming: bool = True

    def __post_init__(self):
        if self.max_pool_size < 1:
            raise ValueError("max_pool_size must be at least 1")
        if self.min_pool_size < 0:
            raise ValueError("min_pool_size must be at least 0")
        for name in ("idle_timeout", "acquisition_timeout", "max_container_lifetime"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError("%s must be greater than 0" % name)
        if self.health_check_interval <= 0:
            raise ValueError("health_check_interval must be greater than 0")
        if self.max_container_uses is not None and self.max_container_uses < 1:
            raise ValueError("max_container_uses must be at least 1")
        self.exhaustion_strategy = ExhaustionStrategy(self.exhaustion_strategy)
        if self.min_pool_size > self.max_pool_size:
            raise ValueError("min_pool_size (%d) cannot be greater than max_pool_size (%d)"
                             % (self.min_pool_size, self.max_pool_size))

    def ignored_settings(self):
        """The knobs set away from their defaults that mean nothing here."""
        defaults = {f.name: f.default for f in fields(self)}
        return [name for name in _IGNORED_KNOBS if getattr(self, name) != defaults[name]]
