"""Ready-made tools for agent frameworks, duck-typed so that neither framework needs to be
installed for them to work (or to be tested):

- `SandboxTool`: a LangChain-style tool (`name`, `description`, `args_schema`, `invoke`,
  `_run`, `ainvoke`, `_arun`). Wrap it with `langchain_core.tools.StructuredTool.from_function(
  func=tool._run, coroutine=tool._arun, name=tool.name, description=tool.description)` when
  LangChain wants its own class.
- `OpenAIToolHandler`: the function-calling schema for OpenAI's `tools=[...]`, and a handler that
  takes the model's arguments (the JSON string) and returns the tool message's content.
"""

import json

from .aio import AsyncSandboxSession
from .exceptions import SandboxError
from .session import SandboxSession

__all__ = ["SandboxTool", "OpenAIToolHandler", "format_result"]

DEFAULT_LANGUAGES = ("python", "javascript", "java", "cpp", "go", "r", "ruby", "bash")


def format_result(result, limit=8000):
    """A run's result as text for a model: the exit code and phase, then each stream, each cut
    to its first and last `limit // 2` characters."""
    def cut(text):
        if len(text) <= limit:
            return text
        half = limit // 2
        return "%s\n[... %d characters left out ...]\n%s" % (
            text[:half], len(text) - 2 * half, text[-half:])

    head = "exit code %d" % result.exit_code
    if result.timed_out:
        head += " (timed out)"
    elif result.exit_code and result.phase != "run":
        head += " (failed at %s)" % result.phase
    parts = [head]
    if result.stdout:
        parts.append("stdout:\n" + cut(result.stdout))
    if result.stderr:
        parts.append("stderr:\n" + cut(result.stderr))
    if result.result is not None:
        parts.append("value: " + cut(result.result))
    plots = getattr(result, "plots", None)
    if plots:
        parts.append("%d figure(s) drawn" % len(plots))
    return "\n".join(parts)


def _schema(languages):
    return {
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "The program to run."},
            "lang": {"type": "string", "enum": list(languages),
                     "description": "Its language (default python)."},
            "libraries": {"type": "array", "items": {"type": "string"},
                          "description": "Libraries to install first, if any."},
        },
        "required": ["code"],
    }


class SandboxTool:
    """A LangChain-style tool that runs code in a paddock sandbox.

    With `session` (an open SandboxSession, or an InteractiveSandboxSession for state between
    calls) every call runs there; without, each call gets a fresh sandbox."""

    name = "run_code"
    description = ("Run a program in an isolated sandbox (no network) and get its output. "
                   "Give the code, its language and any libraries it needs.")

    def __init__(self, session=None, languages=DEFAULT_LANGUAGES, name=None, description=None,
                 **session_options):
        self.session = session
        self.languages = tuple(languages)
        self.session_options = session_options
        if name:
            self.name = name
        if description:
            self.description = description
        self.args_schema = _schema(self.languages)
        self.args = self.args_schema["properties"]

    def _arguments(self, tool_input):
        if isinstance(tool_input, str):
            return {"code": tool_input}
        arguments = dict(tool_input)
        if "args" in arguments and isinstance(arguments["args"], dict):  # a ToolCall
            arguments = dict(arguments["args"])
        return arguments

    def _refusal(self, lang):
        """Why `lang` (None: python) may not run, or None."""
        lang = lang or "python"
        if self.languages and lang not in self.languages:
            return "error: language %r is not offered; use one of %s" % (
                lang, ", ".join(self.languages))
        return None

    def _run(self, code, lang="python", libraries=None, **ignored):
        refused = self._refusal(lang)
        if refused:
            return refused
        lang = lang or "python"
        try:
            if self.session is not None:
                return format_result(self.session.run(code, libraries=libraries))
            return format_result(
                SandboxSession(lang=lang, **self.session_options).run(code, libraries=libraries))
        except SandboxError as error:
            return "error: %s" % error

    async def _arun(self, code, lang="python", libraries=None, **ignored):
        refused = self._refusal(lang)
        lang = lang or "python"
        if refused:
            return refused
        try:
            if self.session is None:
                session = AsyncSandboxSession(lang=lang, **self.session_options)
                try:
                    return format_result(await session.run(code, libraries=libraries))
                finally:
                    await session.close()
            outcome = self.session.run(code, libraries=libraries)
            if hasattr(outcome, "__await__"):
                outcome = await outcome
            return format_result(outcome)
        except SandboxError as error:
            return "error: %s" % error

    def invoke(self, input, config=None, **kwargs):
        return self._run(**self._arguments(input))

    async def ainvoke(self, input, config=None, **kwargs):
        return await self._arun(**self._arguments(input))

    def run(self, tool_input, **kwargs):
        return self.invoke(tool_input)

    def __call__(self, tool_input):
        return self.invoke(tool_input)


class OpenAIToolHandler:
    """OpenAI function calling: `schema` goes into `tools=[...]`; `handle(tool_call)` (or
    calling the handler with the arguments' JSON) runs the code and gives the tool message."""

    def __init__(self, session=None, languages=DEFAULT_LANGUAGES, name="run_code",
                 **session_options):
        self.tool = SandboxTool(session=session, languages=languages, name=name,
                                **session_options)

    @property
    def name(self):
        return self.tool.name

    @property
    def schema(self):
        return {"type": "function",
                "function": {"name": self.tool.name, "description": self.tool.description,
                             "parameters": self.tool.args_schema}}

    def __call__(self, arguments_json):
        """The model's `arguments` string in, the tool message's content out."""
        try:
            arguments = json.loads(arguments_json or "{}")
        except ValueError as error:
            return "error: the arguments are not JSON (%s)" % error
        if not isinstance(arguments, dict) or not isinstance(arguments.get("code"), str):
            return "error: the arguments need a \"code\" string"
        return self.tool._run(**arguments)

    def handle(self, tool_call):
        """A tool call (the SDK's object or its dict) in, the `role: tool` message out."""
        if isinstance(tool_call, dict):
            call_id = tool_call.get("id")
            function = tool_call.get("function") or {}
            name, arguments = function.get("name"), function.get("arguments")
        else:
            call_id = tool_call.id
            name, arguments = tool_call.function.name, tool_call.function.arguments
        if name != self.tool.name:
            content = "error: no tool named %r" % name
        else:
            content = self(arguments)
        return {"role": "tool", "tool_call_id": call_id, "content": content}
