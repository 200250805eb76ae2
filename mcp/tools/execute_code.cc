// execute_code: run code in a fresh sandbox, or in a session's.

#include "app/code_service.h"
#include "app/services.h"
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
std::string language_names(const language::PolicyStore& policies) {
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
  timeout.replace(timeout.find("MAX_TIMEOUT"), 11, core::seconds_text(max_timeout));
  schema["properties"]["language"] = language_property(default_language);
  schema["properties"]["language"]["description"] = languages + ".";
  return schema;
}

core::Result<std::vector<runtime::SandboxFile>> input_files(const json& files) {
  std::vector<runtime::SandboxFile> result;
  for (const auto& file : files) {
    runtime::SandboxFile item;
    item.path = file["path"].get<std::string>();
    if (auto valid = runtime::check_session_path(item.path); !valid) return valid.error();
    std::string content = file["content"].get<std::string>();
    if (file.value("encoding", "utf-8") == "base64") {
      auto decoded = core::base64_decode(content);
      if (!decoded) return core::invalid_input("files: '" + item.path + "' is not valid base64");
      content = std::move(*decoded);
    }
    item.content = std::move(content);
    result.push_back(std::move(item));
  }
  return result;
}

class ExecuteCode final : public Tool {
 public:
  ExecuteCode(const app::ServerOptions& options, const language::PolicyStore& policies)
      : default_language_(options.default_language),
        max_timeout_(options.max_timeout_seconds),
        languages_(language_names(policies)) {}
  std::string name() const override { return "execute_code"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Execute code in a sandbox"},
            {"description",
             "Runs code in a fresh isolated Linux sandbox (no network; limited memory, CPU and "
             "processes); returns stdout, stderr, the exit code, figures as PNG images and files "
             "in outputs/. Timeouts are capped at " +
                 core::seconds_text(max_timeout_) + "."},
            {"inputSchema", input_schema(default_language_, max_timeout_, languages_)},
            {"outputSchema", code_output_schema()},
            {"annotations", annotations("Execute code", false, false)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    app::CodeCall call;
    call.language = arguments.value("language", "");
    call.session = arguments.value("session_id", "");
    call.user = context.user;
    app::CodeRequest& request = call.request;
    request.code = arguments["code"].get<std::string>();
    request.libraries = arguments.value("libraries", std::vector<std::string>{});
    if (arguments.contains("timeout")) request.timeout_seconds = arguments["timeout"].get<double>();
    if (arguments.contains("stdin")) request.stdin_text = arguments["stdin"].get<std::string>();
    auto files = input_files(arguments.value("files", json::array()));
    if (!files) return tool_error(files.error());
    request.files = std::move(*files);

    ProgressObserver observer(context);
    auto answer = context.services.code.execute(call, observer, context.until_answered);
    if (!answer) return tool_error(answer.error());
    if (answer->screening.blocked) return blocked_code_result(answer->screening);
    if (!answer->run) return tool_error(answer->run.error());
    ToolResult result = code_result(*answer->run, answer->screening, context.services.options,
                                    {request.timeout_seconds, answer->in_session});
    if (!answer->not_kept.empty()) result.content.push_back(text_block(answer->not_kept));
    return result;
  }

 private:
  std::string default_language_;
  double max_timeout_;
  std::string languages_;  // what the policy store holds, for the `language` argument
};

}  // namespace

std::unique_ptr<Tool> make_execute_code(const app::ServerOptions& options,
                                        const language::PolicyStore& policies) {
  return std::make_unique<ExecuteCode>(options, policies);
}

}  // namespace paddock::mcp
