"""llm-sandbox's SessionConfig (a session's settings, `session.config`)."""

from ..session import SessionConfig

__all__ = ["SessionConfig"]
