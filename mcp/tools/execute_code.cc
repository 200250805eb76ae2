// execute_code: run code in a fresh sandbox, or in a session's.

#include <sstream>

#include "core/base64.h"
#include "mcp/code_runner.h"
#include "mcp/content.h"
#include "mcp/progress_observer.h"
#include "mcp/server_state.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kResultBudget = 7u << 20;  // below the 8 MiB message cap, with room

json input_schema(const std::string& default_language) {
  json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "code": {"type": "string", "description": "The program's complete source code."},
      "libraries": {"type": "array", "items": {"type": "string"}, "maxItems": 50,
        "description": "Packages to install first with the language's package manager (pip, npm, gem...). In a session they stay installed for later calls."},
      "timeout": {"type": "number", "exclusiveMinimum": 0,
        "description": "Seconds before the sandbox is killed; default from the language's policy (30 s for python), capped by the server."},
      "session_id": {"type": "string",
        "description": "Run inside this session (from create_session): files and installed libraries persist between calls; variables do not (each call is a new process). Omit for a fresh, throw-away sandbox."},
      "stdin": {"type": "string", "description": "Text given to the program on standard input."},
      "files": {"type": "array", "maxItems": 100,
        "description": "Files written into the working directory (/work) before the code runs.",
        "items": {"type": "object",
          "properties": {
            "path": {"type": "string", "description": "Relative path inside /work, e.g. data/input.csv."},
            "content": {"type": "string", "description": "The file's content."},
            "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8",
              "description": "How content is encoded: utf-8 text (default) or base64 for binary files."}
          },
          "required": ["path", "content"], "additionalProperties": false}}
    },
    "required": ["code"],
    "additionalProperties": false
  })");
  schema["properties"]["language"] = language_property(
      "python, javascript, java, cpp, c, go, r, ruby or bash; get_supported_languages lists them "
      "all.",
      default_language);
  return schema;
}

json output_schema() {
  return json::parse(R"({
    "type": "object",
    "properties": {
      "exit_code": {"type": "integer", "description": "The program's exit code; 124 on timeout, 128+N when killed by signal N, 126 when screening blocked it."},
      "stdout": {"type": "string"},
      "stderr": {"type": "string", "description": "Includes the installer's and compiler's output."},
      "timed_out": {"type": "boolean"},
      "oom_killed": {"type": "boolean"},
      "duration_ms": {"type": "integer"},
      "backend": {"type": "string", "description": "Which backend ran it: native, docker or podman."},
      "truncated": {"type": "boolean", "description": "Output beyond the limit was dropped."},
      "artifacts": {"type": "array", "description": "Files the run produced (figures come back as image content).",
        "items": {"type": "object",
          "properties": {"name": {"type": "string"}, "mime_type": {"type": "string"}, "size": {"type": "integer"},
            "withheld": {"type": "string", "description": "Present when the content was not sent, and why."}},
          "required": ["name", "mime_type", "size"]}}
    },
    "required": ["exit_code", "stdout", "stderr", "timed_out", "oom_killed", "duration_ms", "truncated", "artifacts"]
  })");
}

std::string describe_ending(const CodeRun& run) {
  const RunResult& result = run.result.run;
  std::ostringstream text;
  switch (result.outcome) {
    case Outcome::kTimedOut:
      text << "timed out after " << run.timeout_seconds << " s; the sandbox was killed";
      if (run.timeout_capped) text << " (the server caps timeouts at that)";
      break;
    case Outcome::kCancelled:
      text << "cancelled; the sandbox was killed";
      break;
    case Outcome::kExecFailed:
      text << result.exec_error;
      break;
    case Outcome::kSignaled:
      text << "killed by signal " << result.signal << (result.oom_killed ? " (out of memory)" : "");
      break;
    case Outcome::kExited:
      if (run.result.phase == "compile" && result.exit_code != 0) {
        text << "compile error, exit code " << result.exit_code;
      } else if (run.result.phase == "install" && result.exit_code != 0) {
        text << "library install failed, exit code " << result.exit_code;
      } else {
        text << "exit code " << result.exit_code;
      }
      break;
  }
  text << " (" << run.result.language << ", " << result.duration_ms << " ms)";
  return text.str();
}

std::string with_marker(const CapturedOutput& output) {
  if (!output.truncated) return output.data;
  return output.data + "\n[... output truncated: " + std::to_string(output.data.size()) + " of " +
         std::to_string(output.total_bytes) + " bytes shown]\n";
}

int exit_code_of(const RunResult& result) {
  return result.outcome == Outcome::kTimedOut ? 124 : result.exit_code;
}

ToolResult to_tool_result(const CodeRun& run, const std::optional<ScreeningVerdict>& warnings) {
  const RunResult& result = run.result.run;
  std::string out = with_marker(result.stdout_data), err = with_marker(result.stderr_data);
  std::string text;
  if (!out.empty()) text += "stdout:\n" + out + (out.back() == '\n' ? "" : "\n");
  if (!err.empty()) text += "stderr:\n" + err + (err.back() == '\n' ? "" : "\n");
  if (warnings) {
    for (const auto& finding : warnings->findings) {
      text += "screening warning: " + describe(finding) + "\n";
    }
  }
  text += describe_ending(run);
  ToolResult tool;
  tool.content.push_back(text_block(std::move(text)));
  auto add_line = [&tool](const std::string& line) {
    tool.content[0]["text"] = tool.content[0]["text"].get<std::string>() + "\n" + line;
  };
  json artifacts = json::array();
  std::size_t budget = kResultBudget - std::min(kResultBudget, 2 * (out.size() + err.size()));
  for (const auto& artifact : result.artifacts) {
    artifacts.push_back(
        {{"name", artifact.path}, {"mime_type", artifact.mime_type}, {"size", artifact.size}});
    if (!artifact.withheld.empty()) {
      artifacts.back()["withheld"] = artifact.withheld;
      add_line(artifact.path + " " + artifact.withheld);
      continue;
    }
    std::size_t encoded = (artifact.data.size() + 2) / 3 * 4;
    if (encoded > budget) {
      add_line(artifact.path + " was left out: the message size limit");
      continue;
    }
    budget -= encoded;
    if (is_displayable_image(artifact.mime_type)) {
      tool.content.push_back(image_block(artifact.data, artifact.mime_type));
    } else {
      tool.content.push_back(
          blob_resource_block("file:///work/" + artifact.path, artifact.data, artifact.mime_type));
    }
  }
  tool.structured = {{"exit_code", exit_code_of(result)},
                     {"stdout", result.stdout_data.data},
                     {"stderr", result.stderr_data.data},
                     {"timed_out", result.outcome == Outcome::kTimedOut},
                     {"oom_killed", result.oom_killed},
                     {"duration_ms", result.duration_ms},
                     {"backend", result.backend},
                     {"truncated", result.stdout_data.truncated || result.stderr_data.truncated},
                     {"artifacts", std::move(artifacts)}};
  tool.is_error = !(result.outcome == Outcome::kExited && result.exit_code == 0);
  return tool;
}

ToolResult blocked(const ScreeningVerdict& verdict) {
  std::string text =
      "blocked by code screening before anything ran (" + blocking_summary(verdict) + "):\n";
  for (const auto& finding : verdict.findings) text += describe(finding) + "\n";
  ToolResult tool = tool_error(text);
  tool.structured = {{"exit_code", kScreeningBlockedExitCode},
                     {"stdout", ""},
                     {"stderr", text},
                     {"timed_out", false},
                     {"oom_killed", false},
                     {"duration_ms", 0},
                     {"truncated", false},
                     {"artifacts", json::array()}};
  return tool;
}

Result<std::vector<SandboxFile>> input_files(const json& files) {
  std::vector<SandboxFile> result;
  for (const auto& file : files) {
    SandboxFile item;
    item.path = file["path"].get<std::string>();
    if (auto valid = check_session_path(item.path); !valid) return valid.error();
    std::string content = file["content"].get<std::string>();
    if (file.value("encoding", "utf-8") == "base64") {
      auto decoded = base64_decode(content);
      if (!decoded) return invalid_input("files: '" + item.path + "' is not valid base64");
      content = std::move(*decoded);
    }
    item.content = std::move(content);
    result.push_back(std::move(item));
  }
  return result;
}

// The audit log's line for a run, or for code that screening blocked (`run` null).
AuditRecord audit_record(const ServerState& state, const std::optional<SessionLease>& lease,
                         const LanguagePolicy& policy, const CodeRequest& request,
                         const Result<CodeRun>* run) {
  AuditRecord record;
  record.tool = "execute_code";
  record.language = policy.name;
  record.code = request.code;
  record.libraries = request.libraries;
  record.backend = state.backend->name();
  if (lease) record.session = (*lease)->id;
  if (run == nullptr) {
    record.outcome = "blocked";
    return record;
  }
  if (!*run) {
    record.outcome = "error";
    return record;
  }
  const RunResult& result = (*run)->result.run;
  record.limits = (*run)->limits;
  record.outcome = to_string(result.outcome);
  if (result.outcome == Outcome::kExited) record.exit_code = result.exit_code;
  record.duration_ms = result.duration_ms;
  return record;
}

class ExecuteCode final : public Tool {
 public:
  explicit ExecuteCode(std::string default_language)
      : default_language_(std::move(default_language)) {}
  std::string name() const override { return "execute_code"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Execute code in a sandbox"},
            {"description",
             "Runs code in an isolated Linux sandbox (no network, limited memory, CPU time and "
             "processes) and returns stdout, stderr and the exit status; every matplotlib (Python) "
             "or R figure comes back as a PNG image. Each call without session_id gets a fresh "
             "sandbox; pass a session_id to keep files and installed libraries between calls."},
            {"inputSchema", input_schema(default_language_)},
            {"outputSchema", output_schema()},
            {"annotations", annotations("Execute code", false, false)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    ServerState& state = context.state;
    CodeRequest request;
    request.code = arguments["code"].get<std::string>();
    request.libraries = arguments.value("libraries", std::vector<std::string>{});
    if (arguments.contains("timeout")) request.timeout_seconds = arguments["timeout"].get<double>();
    if (arguments.contains("stdin")) request.stdin_text = arguments["stdin"].get<std::string>();
    auto files = input_files(arguments.value("files", json::array()));
    if (!files) return tool_error(files.error().message);
    request.files = std::move(*files);

    std::optional<SessionLease> lease;
    const LanguagePolicy* policy = nullptr;
    if (arguments.contains("session_id")) {
      auto acquired = state.sessions.acquire(arguments["session_id"].get<std::string>());
      if (!acquired) return tool_error(acquired.error().message);
      lease.emplace(std::move(*acquired));
      policy = (*lease)->policy;
      if (arguments.contains("language")) {
        auto asked = state.policies.find(arguments["language"].get<std::string>());
        if (!asked || *asked != policy) {
          return tool_error("session " + (*lease)->id + " runs " + policy->name +
                            "; create another session for another language");
        }
      }
    } else {
      auto found = state.policies.find(arguments.value("language", default_language_));
      if (!found) return tool_error(found.error().message);
      policy = *found;
    }

    ScreeningVerdict verdict = screen(policy->screening_rules, policy->source_syntax, request.code);
    if (verdict.blocked) {
      state.record(audit_record(state, lease, *policy, request, nullptr));
      return blocked(verdict);
    }
    ProgressObserver observer(context);
    auto run = lease ? run_in_session(**lease, state, request, observer)
                     : run_fresh(state, *policy, request, observer);
    state.record(audit_record(state, lease, *policy, request, &run));
    if (!run) return tool_error(run.error().message);
    std::optional<ScreeningVerdict> warnings;
    if (!verdict.findings.empty()) warnings = std::move(verdict);
    return to_tool_result(*run, warnings);
  }

 private:
  std::string default_language_;
};

}  // namespace

std::unique_ptr<Tool> make_execute_code(const std::string& default_language) {
  return std::make_unique<ExecuteCode>(default_language);
}

}  // namespace paddock::mcp
