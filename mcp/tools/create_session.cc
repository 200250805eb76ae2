// create_session: a sandbox that stays, for files and libraries across execute_code calls.

#include "core/text.h"
#include "mcp/code_runner.h"
#include "mcp/content.h"
#include "mcp/live_session.h"
#include "mcp/progress_observer.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class CreateSession final : public Tool {
 public:
  explicit CreateSession(std::string default_language)
      : default_language_(std::move(default_language)) {}
  std::string name() const override { return "create_session"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Create a session"},
            {"description",
             "Creates a sandbox that stays: files written in its /work directory and libraries "
             "installed in it persist across execute_code calls that pass the returned "
             "session_id. On the native backend, python and R sessions are live: their "
             "interpreter stays too, so "
             "variables, functions, imports and loaded data persist between calls, as cells of "
             "a notebook (the result says live: true). Other languages run each call as a new "
             "process. A session is closed after ttl_seconds without use, by close_session, or "
             "when the server exits."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"language",
                 language_property("The session's language; get_supported_languages lists them.",
                                   default_language_)},
                {"libraries", libraries_property("Packages to install right away with the "
                                                 "language's package manager.")},
                {"live",
                 {{"type", "boolean"},
                  {"default", true},
                  {"description",
                   "Keep the interpreter between calls where the language has one (python, "
                   "r). false: every call is a new process, as in other languages."}}},
                {"ttl_seconds",
                 {{"type", "number"},
                  {"exclusiveMinimum", 0},
                  {"description",
                   "Idle seconds after which the session is closed (default "
                   "1800)."}}}}},
              {"additionalProperties", false}}},
            {"outputSchema", output_schema()},
            {"annotations", annotations("Create a session", false, false)}};
  }

  static json output_schema() {
    json schema = {{"type", "object"},
                   {"properties", interpreter_schema_properties()},
                   {"required", {"session_id", "live"}}};
    schema["properties"]["session_id"] = {{"type", "string"}};
    return schema;
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    ServerState& state = context.state;
    auto policy = state.policies.find(arguments.value("language", default_language_));
    if (!policy) return tool_error(policy.error().message);
    auto spec = session_spec(state, **policy, context.progress);
    if (!spec) return tool_error(spec.error().message);
    if (auto room = state.sessions.reserve(); !room) return tool_error(room.error().message);
    auto opened = state.backend->open_session(*spec);
    if (!opened) {
      state.sessions.unreserve();
      return tool_error("could not create the session: " + opened.error().message);
    }
    auto entry =
        state.sessions.add(std::move(*opened), **policy,
                           arguments.value("ttl_seconds", state.options.session_idle_seconds));
    entry->limits = spec->limits;
    auto libraries = arguments.value("libraries", std::vector<std::string>{});
    std::string text = "session " + entry->id + " (" + (*policy)->name + ")";
    if (!libraries.empty()) {
      ProgressObserver observer(context);
      auto installed = install_in_session(*entry, state, libraries, observer, name());
      if (auto why = install_failure(installed)) {
        state.sessions.close(entry->id);
        return tool_error("installing libraries failed, so the session was closed:\n" + *why);
      }
      text += " with " + counted(libraries.size(), "library", "libraries") + " installed";
    }
    // After the install: the interpreter starts with the libraries there.
    {
      std::lock_guard lock(entry->run_mutex);
      start_interpreter(*entry, arguments.value("live", true), state.secrets);
    }
    ToolResult result;
    result.content.push_back(text_block(text + "; " + interpreter_line(*entry)));
    result.structured = interpreter_json(*entry);
    result.structured["session_id"] = entry->id;
    return result;
  }

 private:
  std::string default_language_;
};

}  // namespace

std::unique_ptr<Tool> make_create_session(const std::string& default_language) {
  return std::make_unique<CreateSession>(default_language);
}

}  // namespace paddock::mcp
