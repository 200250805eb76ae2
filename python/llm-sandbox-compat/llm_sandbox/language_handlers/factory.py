"""One handler per language, for screening (`SecurityPolicy` checks): the regex of an import of
a module, and the code with its comments blanked."""

import re

from ..exceptions import LanguageNotSupportedError

__all__ = ["LanguageHandler", "LanguageHandlerFactory"]

_EXTENSIONS = {"python": "py", "javascript": "js", "java": "java", "cpp": "cpp", "c": "c",
               "go": "go", "ruby": "rb", "r": "R", "bash": "sh"}
_LINE_COMMENT = {"python": "#", "r": "#", "ruby": "#", "bash": "#", "javascript": "//",
                 "java": "//", "cpp": "//", "c": "//", "go": "//"}


class LanguageHandler:
    def __init__(self, name):
        self.name = name
        self.file_extension = _EXTENSIONS[name]

    def filter_comments(self, code):
        """`code` with its line comments (and C-style block comments) blanked, so that a
        pattern in a comment is not a finding. Strings are not parsed: a comment marker inside
        one ends the line early."""
        marker = _LINE_COMMENT[self.name]
        if marker == "//":
            code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
        kept = []
        for line in code.splitlines():
            position = line.find(marker)
            kept.append(line if position < 0 else line[:position])
        return "\n".join(kept)

    def get_import_patterns(self, module):
        """A regex for importing `module` (or a submodule of it) in this language."""
        name = re.escape(module)
        lang = self.name
        if lang == "python":
            return (r"(?m)^\s*(?:import\s+(?:[\w.]+\s*(?:as\s+\w+\s*)?,\s*)*%s(?:\.\w+)*\b"
                    r"|from\s+%s(?:\.\w+)*\s+import\b)" % (name, name))
        if lang == "javascript":
            return (r"""(?:require\s*\(\s*['"](?:node:)?%s(?:/[^'"]*)?['"]\s*\)"""
                    r"""|\bfrom\s+['"](?:node:)?%s(?:/[^'"]*)?['"]"""
                    r"""|\bimport\s+['"](?:node:)?%s['"])""" % (name, name, name))
        if lang == "java":
            return r"(?m)^\s*import\s+(?:static\s+)?%s(?:\.[\w*]+)*\s*;" % name
        if lang in ("cpp", "c"):
            return r"(?m)^\s*#\s*include\s*[<\"]%s(?:\.h)?[>\"]" % name
        if lang == "go":
            return r"""["']%s(?:/[^"']*)?["']""" % name
        if lang == "ruby":
            return r"""\brequire(?:_relative)?\s*\(?\s*['"]%s['"]""" % name
        if lang == "r":
            return r"""\b(?:library|require|requireNamespace)\s*\(\s*['"]?%s['"]?""" % name
        return r"\b%s\b" % name


class LanguageHandlerFactory:
    @classmethod
    def create_handler(cls, language, logger=None):
        name = str(getattr(language, "value", language)).lower()
        if name not in _EXTENSIONS:
            raise LanguageNotSupportedError(name)
        return LanguageHandler(name)
