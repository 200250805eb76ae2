"""OpenAI function calling with paddock as the code runner.

`handler.schema` goes into `tools=[...]`; each tool call the model makes goes through
`handler.handle(tool_call)`, which returns the `role: tool` message to append. The model's
reply is simulated here so the example runs offline: `python3 examples/openai_function_calling.py`.
"""

import json

from paddock.integrations import OpenAIToolHandler

handler = OpenAIToolHandler()
tools = [handler.schema]  # client.chat.completions.create(model=..., messages=..., tools=tools)

# What a model's response carries in message.tool_calls (the SDK's objects work as well).
tool_call = {"id": "call_42", "type": "function",
             "function": {"name": "run_code",
                          "arguments": json.dumps({"code": "print(2 ** 10)", "lang": "python"})}}
message = handler.handle(tool_call)
print(json.dumps(tools[0]["function"]["name"]), message["tool_call_id"])
print(message["content"])
