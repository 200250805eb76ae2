"""What screening needs to know of each language: how an import of a module reads, and what a
comment is (`factory.LanguageHandlerFactory.create_handler(lang)`). Running code is paddock's:
these handlers build no commands."""

from .factory import LanguageHandler, LanguageHandlerFactory

__all__ = ["LanguageHandler", "LanguageHandlerFactory"]
