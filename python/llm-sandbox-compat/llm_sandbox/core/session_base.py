"""llm-sandbox's BaseSession: here, the session class every session of this package is."""

from ..session import Session as BaseSession

__all__ = ["BaseSession"]
