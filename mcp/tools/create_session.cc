// create_session: a sandbox that stays, for files and libraries across execute_code calls.

#include "app/live_session.h"
#include "app/session_service.h"
#include "mcp/content.h"
#include "mcp/interpreter_content.h"
#include "mcp/progress_observer.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

class CreateSession final : public Tool {
 public:
  CreateSession(std::string default_language, CreateSessionOffer offer)
      : default_language_(std::move(default_language)), offer_(offer) {}
  std::string name() const override { return "create_session"; }
  json definition() const override {
    json definition = full_definition();
    json& properties = definition["inputSchema"]["properties"];
    if (!offer_.kept) {
      properties.erase("name");
      properties.erase("from_snapshot");
    }
    if (!offer_.from_archive) properties.erase("from_archive");
    if (!offer_.mounts) properties.erase("mounts");
    return definition;
  }

  json full_definition() const {
    return {
        {"name", name()},
        {"title", "Create a session"},
        {"description",
         "A sandbox that stays: execute_code calls with its session_id keep its /work files "
         "and libraries, across server restarts too. python and r sessions (native "
         "backend) are live: variables persist and the last expression is shown, as in a notebook. "
         "Closes after "
         "ttl_seconds idle."},
        {"inputSchema",
         {{"type", "object"},
          {"properties",
           {{"language", language_property(default_language_)},
            {"libraries", libraries_property("Packages to install now.")},
            {"live",
             {{"type", "boolean"},
              {"default", true},
              {"description", "false: a new process per call."}}},
            {"mounts",
             {{"type", "array"},
              {"maxItems", 8},
              {"description", "Shares to mount in place (native backend); rw if the share allows."},
              {"items",
               {{"type", "object"},
                {"properties",
                 {{"share", {{"type", "string"}}},
                  {"path", {{"type", "string"}, {"description", "Under /work or /mnt."}}},
                  {"rw", {{"type", "boolean"}, {"default", false}}}}},
                {"required", {"share"}},
                {"additionalProperties", false}}}}},
            {"ttl_seconds",
             {{"type", "number"}, {"exclusiveMinimum", 0}, {"description", "Default 1800."}}},
            {"name",
             {{"type", "string"},
              {"maxLength", 64},
              {"description", "Unique; usable as session_id."}}},
            {"from_snapshot",
             {{"type", "object"},
              {"description", "Start from it."},
              {"properties",
               {{"session_id", session_id_property()}, {"snapshot", {{"type", "string"}}}}},
              {"required", {"session_id", "snapshot"}},
              {"additionalProperties", false}}},
            {"from_archive",
             {{"type", "string"}, {"description", "Start from SHARE/x.tar.zst."}}}}},
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
    ProgressObserver observer(context);
    auto created = context.services.sessions.create(request_of(arguments),
                                                    {context.progress, observer}, name());
    if (!created) return tool_error(created.error());
    return answer(*created);
  }

  // The arguments as a request; the schema has checked their types.
  static app::SessionRequest request_of(const json& arguments) {
    app::SessionRequest request;
    request.language = arguments.value("language", "");
    request.name = arguments.value("name", "");
    request.libraries = arguments.value("libraries", std::vector<std::string>{});
    request.live = arguments.value("live", true);
    for (const auto& asked : arguments.value("mounts", json::array())) {
      request.mounts.push_back(
          {asked["share"].get<std::string>(), asked.value("path", ""), asked.value("rw", false)});
    }
    if (arguments.contains("ttl_seconds")) {
      request.ttl_seconds = arguments["ttl_seconds"].get<double>();
    }
    if (arguments.contains("from_snapshot")) {
      request.from_snapshot =
          app::SessionRequest::Snapshot{arguments["from_snapshot"]["session_id"].get<std::string>(),
                                        arguments["from_snapshot"]["snapshot"].get<std::string>()};
    }
    if (arguments.contains("from_archive")) {
      request.from_archive = arguments["from_archive"].get<std::string>();
    }
    return request;
  }

  // create_session's answer, also fork_session's.
  static ToolResult answer(const app::CreatedSession& created) {
    const app::SessionEntry& entry = *created.entry;
    ToolResult result;
    result.content.push_back(text_block(created.summary + "; " + app::interpreter_line(entry)));
    if (!created.not_kept.empty()) result.content.push_back(text_block(created.not_kept));
    result.structured = interpreter_json(entry);
    result.structured["session_id"] = entry.id();
    result.structured["kept"] = entry.kept_on_disk();
    if (!entry.name().empty()) result.structured["name"] = entry.name();
    return result;
  }

 private:
  std::string default_language_;
  CreateSessionOffer offer_;
};

// A snapshot of a session and a new session from it, in one call.
class ForkSession final : public Tool {
 public:
  explicit ForkSession(std::string default_language)
      : default_language_(std::move(default_language)) {}
  std::string name() const override { return "fork_session"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Fork a session"},
            {"description",
             "A new session with a copy of a session's files and libraries (not variables)."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"name", {{"type", "string"}, {"maxLength", 64}}},
                {"live", {{"type", "boolean"}, {"default", true}}}}},
              {"required", {"session_id"}},
              {"additionalProperties", false}}},
            {"outputSchema", CreateSession::output_schema()},
            {"annotations", annotations("Fork a session", false, false)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string source = arguments["session_id"].get<std::string>();
    app::SessionRequest request;
    request.name = arguments.value("name", "");
    request.live = arguments.value("live", true);
    ProgressObserver observer(context);
    std::string snapshot;
    auto created =
        context.services.sessions.fork(source, request, {context.progress, observer}, snapshot);
    if (!created) return tool_error(created.error());
    ToolResult result = CreateSession::answer(*created);
    result.content.push_back(
        text_block("forked from session " + source + " (its snapshot '" + snapshot + "')"));
    return result;
  }

 private:
  std::string default_language_;
};

}  // namespace

std::unique_ptr<Tool> make_create_session(const std::string& default_language,
                                          CreateSessionOffer offer) {
  return std::make_unique<CreateSession>(default_language, offer);
}

std::unique_ptr<Tool> make_fork_session(const std::string& default_language) {
  return std::make_unique<ForkSession>(default_language);
}

}  // namespace paddock::mcp
