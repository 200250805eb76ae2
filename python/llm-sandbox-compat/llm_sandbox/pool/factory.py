"""llm-sandbox's create_pool_manager."""

from ..const import SupportedLanguage
from .base import ContainerPoolManager

__all__ = ["create_pool_manager"]


def create_pool_manager(client=None, backend=None, config=None, lang=SupportedLanguage.PYTHON,
                        **kwargs):
    """A pool on `backend` (None: paddock's native sandbox; llm-sandbox's default is Docker)."""
    return ContainerPoolManager(config=config, lang=lang, backend=backend, client=client,
                                **kwargs)
