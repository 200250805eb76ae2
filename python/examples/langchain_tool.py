"""A LangChain tool that runs the model's code in paddock.

`SandboxTool` has what LangChain's agents call (name, description, args_schema, invoke,
ainvoke), so it works as is; with LangChain installed it can also become a StructuredTool.
Run it: `python3 examples/langchain_tool.py` (no LangChain needed)."""

from paddock import InteractiveSandboxSession
from paddock.integrations import SandboxTool

tool = SandboxTool()  # each call in a fresh sandbox
print(tool.invoke({"code": "print(sum(range(10001)))", "lang": "python"}))

# A tool call as an agent sends it.
print(tool.invoke({"name": "run_code", "args": {"code": "console.log(6 * 7)", "lang": "javascript"},
                   "id": "call_1", "type": "tool_call"}))

# State between calls: give the tool a live session.
with InteractiveSandboxSession(lang="python") as session:
    stateful = SandboxTool(session=session, languages=["python"])
    stateful.invoke({"code": "import math\nradius = 2"})
    print(stateful.invoke({"code": "print(round(math.pi * radius ** 2, 3))"}))

try:
    from langchain_core.tools import StructuredTool
except ImportError:
    StructuredTool = None
if StructuredTool is not None:
    lc_tool = StructuredTool.from_function(func=tool._run, coroutine=tool._arun,
                                           name=tool.name, description=tool.description)
    print(lc_tool.invoke({"code": "print('from a StructuredTool')"}))
