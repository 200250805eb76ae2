"""The integration classes and the examples, without LangChain or OpenAI installed."""

import asyncio
import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from paddock import InteractiveSandboxSession, SandboxSession
from paddock.integrations import OpenAIToolHandler, SandboxTool

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_langchain_style_tool():
    tool = SandboxTool()
    assert tool.name == "run_code" and tool.description
    assert tool.args_schema["required"] == ["code"]
    out = tool.invoke({"code": "print(6 * 7)"})
    assert out.startswith("exit code 0") and "42" in out
    assert "stdout:\nhi\n" in tool.invoke("print('hi')")
    failed = tool._run(code="raise SystemExit(3)", lang="python")
    assert failed.startswith("exit code 3")
    assert "not offered" in tool.invoke({"code": "x", "lang": "cobol"})
    # a ToolCall dict as LangChain passes it
    call = {"name": "run_code", "args": {"code": "console.log(1 + 1)", "lang": "javascript"},
            "id": "c1", "type": "tool_call"}
    assert "2" in tool.invoke(call)
    assert "exit code 0" in asyncio.run(tool.ainvoke({"code": "print(1)"}))


def test_tool_on_a_live_session_keeps_state():
    with InteractiveSandboxSession(lang="python") as session:
        tool = SandboxTool(session=session, languages=["python"])
        tool.invoke({"code": "total = 40"})
        assert "42" in tool.invoke({"code": "print(total + 2)"})


def test_openai_handler():
    with SandboxSession(lang="python") as session:
        handler = OpenAIToolHandler(session=session, languages=["python"])
        schema = handler.schema
        assert schema["type"] == "function"
        assert schema["function"]["name"] == "run_code"
        assert schema["function"]["parameters"]["properties"]["code"]["type"] == "string"
        json.dumps(schema)  # it is plain JSON
        content = handler(json.dumps({"code": "open('f', 'w').write('x'); print('made')"}))
        assert "made" in content
        call = {"id": "call_1", "type": "function",
                "function": {"name": "run_code",
                             "arguments": json.dumps({"code": "print(open('f').read())"})}}
        message = handler.handle(call)
        assert message["role"] == "tool" and message["tool_call_id"] == "call_1"
        assert "stdout:\nx\n" in message["content"]
        # the SDK's objects work too
        sdk_call = SimpleNamespace(id="call_2", function=SimpleNamespace(
            name="run_code", arguments='{"code": "print(5)"}'))
        assert "5" in handler.handle(sdk_call)["content"]
        assert handler("not json").startswith("error:")
        assert handler.handle({"id": "c", "function": {"name": "other", "arguments": "{}"}})[
            "content"].startswith("error: no tool")


@pytest.mark.parametrize("example, expected", [
    ("langchain_tool.py", ["50005000", "42", "12.566"]),
    ("openai_function_calling.py", ["call_42", "1024"]),
    ("async_agent.py", ["0 1 4 9 16 25 36 49 64 81"]),
])
def test_examples_run(example, expected):
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, os.path.join(PACKAGE_ROOT, "examples", example)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for text in expected:
        assert text in out.stdout
