// execute_code: run code in a fresh sandbox, or in a session's.

#include "app/code_runner.h"
#include "app/kept_sessions.h"
#include "app/server_state.h"
#include "core/base64.h"
#include "core/units.h"
#include "mcp/code_result.h"
#include "mcp/content.h"
#include "mcp/progress_observer.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

// The languages the policy store holds, as the description names them: "bash, c, ... or ruby".
std::string language_names(const PolicyStore& policies) {
  std::string names;
  const auto& all = policies.all();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) names += i + 1 == all.size() ? " or " : ", ";
    names += all[i].name;
  }
  return names;
}

json input_schema(const std::string& default_language, double max_timeout,
                  const std::string& languages) {
  json schema = json::parse(R"({
    "type": "object",
    "properties": {
      "code": {"type": "string"},
      "libraries": {"type": "array", "items": {"type": "string"}, "maxItems": 50,
        "description": "Packages to install first (pip, npm, gem...)."},
      "timeout": {"type": "number", "exclusiveMinimum": 0,
        "description": "Seconds; default per language, at most MAX_TIMEOUT."},
      "session_id": {"type": "string",
        "description": "A session (create_session) keeps files, libraries and live variables; omit for a throw-away sandbox."},
      "stdin": {"type": "string", "description": "Not in live sessions."},
      "files": {"type": "array", "maxItems": 100,
        "description": "Written into /work first.",
        "items": {"type": "object",
          "properties": {
            "path": {"type": "string", "description": "Relative to /work."},
            "content": {"type": "string"},
            "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8"}
          },
          "required": ["path", "content"], "additionalProperties": false}}
    },
    "required": ["code"],
    "additionalProperties": false
  })");
  std::string& timeout = schema["properties"]["timeout"]["description"].get_ref<std::string&>();
  timeout.replace(timeout.find("MAX_TIMEOUT"), 11, seconds_text(max_timeout));
  schema["properties"]["language"] = language_property(default_language);
  schema["properties"]["language"]["description"] = languages + ".";
  return schema;
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
app::AuditRecord audit_record(const app::ServerState& state,
                              const std::optional<app::SessionLease>& lease,
                              const LanguagePolicy& policy, const app::CodeRequest& request,
                              const Result<app::CodeRun>* run) {
  app::AuditRecord record;
  record.tool = "execute_code";
  record.language = policy.name;
  record.code = request.code;
  record.libraries = request.libraries;
  record.backend = state.backend().name();
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
  record.network = result.network;
  record.warm = (*run)->warm;
  return record;
}

class ExecuteCode final : public Tool {
 public:
  ExecuteCode(const app::ServerOptions& options, const PolicyStore& policies)
      : default_language_(options.default_language),
        max_timeout_(options.max_timeout_seconds),
        languages_(language_names(policies)) {}
  std::string name() const override { return "execute_code"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Execute code in a sandbox"},
            {"description",
             "Runs code in a fresh isolated Linux sandbox (no network; limited memory, CPU and "
             "processes); returns stdout, stderr and the exit code. Figures come back as PNG "
             "images, files in outputs/ as files. Timeouts are capped at " +
                 seconds_text(max_timeout_) + "."},
            {"inputSchema", input_schema(default_language_, max_timeout_, languages_)},
            {"outputSchema", code_output_schema()},
            {"annotations", annotations("Execute code", false, false)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    app::ServerState& state = context.state;
    app::CodeRequest request;
    request.code = arguments["code"].get<std::string>();
    request.libraries = arguments.value("libraries", std::vector<std::string>{});
    if (arguments.contains("timeout")) request.timeout_seconds = arguments["timeout"].get<double>();
    if (arguments.contains("stdin")) request.stdin_text = arguments["stdin"].get<std::string>();
    auto files = input_files(arguments.value("files", json::array()));
    if (!files) return tool_error(files.error().message);
    request.files = std::move(*files);

    std::optional<app::SessionLease> lease;
    const LanguagePolicy* policy = nullptr;
    if (arguments.contains("session_id")) {
      auto acquired = state.sessions().acquire(arguments["session_id"].get<std::string>());
      if (!acquired) return tool_error(acquired.error().message);
      lease.emplace(std::move(*acquired));
      policy = (*lease)->policy;
      if (arguments.contains("language")) {
        auto asked = state.policies().find(arguments["language"].get<std::string>());
        if (!asked || *asked != policy) {
          return tool_error("session " + (*lease)->id + " runs " + policy->name +
                            "; create another session for another language");
        }
      }
    } else {
      auto found = state.policies().find(arguments.value("language", default_language_));
      if (!found) return tool_error(found.error().message);
      policy = *found;
    }

    ScreeningVerdict verdict = screen(policy->screening_rules, policy->source_syntax, request.code);
    if (verdict.blocked) {
      state.record(audit_record(state, lease, *policy, request, nullptr));
      return blocked_code_result(verdict);
    }
    ProgressObserver observer(context);
    auto run = lease ? app::run_in_session(**lease, state, request, observer)
                     : app::run_fresh(state, *policy, request, observer, context.until_answered);
    state.record(audit_record(state, lease, *policy, request, &run));
    // An error may carry what the sandbox said (a kernel's log when it cannot start again).
    std::string not_kept = lease ? app::keep_session_files(**lease) : "";
    if (!run) return tool_error(run.error().message);
    ToolResult result =
        code_result(*run, verdict, state.options(), {request.timeout_seconds, lease.has_value()});
    if (!not_kept.empty()) result.content.push_back(text_block(not_kept));
    return result;
  }

 private:
  std::string default_language_;
  double max_timeout_;
  std::string languages_;  // what the policy store holds, for the `language` argument
};

}  // namespace

std::unique_ptr<Tool> make_execute_code(const app::ServerOptions& options,
                                        const PolicyStore& policies) {
  return std::make_unique<ExecuteCode>(options, policies);
}

}  // namespace paddock::mcp
