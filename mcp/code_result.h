#pragma once

// What execute_code returns for a run, shaped for a model's small context:
// - structuredContent is complete per the output schema, with each stream cut to the server's
//   result_stream_bytes (its start and its end, a marker between), every figure in the order it
//   was made, and what the caps left out named in artifacts_omitted;
// - the text block is a readable summary, not a second copy: streams appear in it whole only
//   when short, else a shorter excerpt and where the rest is. The MCP specification asks for
//   the serialized JSON in a text block (a SHOULD, for clients without structured content);
//   that would send every stream twice, so the text carries the same facts in fewer bytes.

#include <optional>

#include "app/code_runner.h"
#include "app/server_config.h"
#include "language/screening.h"
#include "mcp/json_rpc.h"
#include "mcp/tool.h"

namespace paddock::mcp {

// The output schema of execute_code's structuredContent.
json code_output_schema();

struct CodeCallFacts {
  std::optional<double> asked_timeout;  // what the call asked for, when it did
  bool in_session = false;
};

ToolResult code_result(const app::CodeRun& run, const language::ScreeningVerdict& screening,
                       const app::ServerOptions& options, const CodeCallFacts& facts);

// Code screening refused: nothing ran.
ToolResult blocked_code_result(const language::ScreeningVerdict& verdict);

}  // namespace paddock::mcp
