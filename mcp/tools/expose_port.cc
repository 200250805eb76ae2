// expose_port: open a port of a session's sandbox to the user, on the host's 127.0.0.1
// (docs/previews.md). Only a server started with --allow-preview opens any: the model cannot
// allow itself.

#include "app/preview_consent.h"
#include "app/services.h"
#include "mcp/content.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

json exposed_json(const app::ExposedPort& exposed) {
  json item = {{"port", exposed.port},
               {"host_port", exposed.host_port},
               {"protocol", exposed.protocol},
               {"url", exposed.url},
               {"accepting", exposed.accepting}};
  if (!exposed.accepting) item["not_accepting"] = exposed.probe;
  return item;
}

class ExposePort final : public Tool {
 public:
  std::string name() const override { return "expose_port"; }
  json definition() const override {
    return {
        {"name", name()},
        {"title", "Open a session's port to the user"},
        {"description",
         "Opens a port a program listens on in the session to the user, at a URL on their "
         "127.0.0.1 (it holds a token: pass it on as it is); tcp: plain, no token. Only if the "
         "user started the server with --allow-preview."},
        {"inputSchema",
         {{"type", "object"},
          {"properties",
           {{"session_id", session_id_property()},
            {"port",
             {{"type", "integer"},
              {"minimum", 1},
              {"maximum", 65535},
              {"description", "The sandbox's own."}}},
            {"protocol", {{"type", "string"}, {"enum", {"http", "tcp"}}, {"default", "http"}}}}},
          {"required", {"session_id", "port"}},
          {"additionalProperties", false}}},
        {"outputSchema", json::parse(R"({
          "type": "object",
          "properties": {
            "session_id": {"type": "string"}, "port": {"type": "integer"},
            "host_port": {"type": "integer"}, "protocol": {"type": "string"},
            "url": {"type": "string"}, "accepting": {"type": "boolean"},
            "not_accepting": {"type": "string"}},
          "required": ["session_id", "port", "host_port", "protocol", "url", "accepting"]})")},
        {"annotations", annotations("Open a session's port to the user", false, true)}};
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    app::SessionRegistry& sessions = context.services.registry;
    if (!sessions.previews_allowed()) {
      return tool_error(
          "expose_port is off: only the user can allow it, by starting the server with "
          "--allow-preview (or PADDOCK_ALLOW_PREVIEW=on)");
    }
    std::string id = arguments["session_id"].get<std::string>();
    auto port = arguments["port"].get<std::int64_t>();
    if (port < 1 || port > 65535) {
      return tool_error("port " + std::to_string(port) + " is not a port: name 1 to 65535");
    }
    std::string protocol = arguments.value("protocol", "http");
    if (protocol != "http" && protocol != "tcp") {
      return tool_error("protocol '" + protocol + "': use http (the default) or tcp");
    }
    auto lease = sessions.acquire(id);
    if (!lease) return tool_error(lease.error());
    app::PreviewAsking asking{context.user.get(), context.services.open_questions,
                              context.services.audit, context.cancellation};
    if (auto allowed = app::preview_consent(context.services.options, asking, **lease,
                                            static_cast<std::uint16_t>(port));
        !allowed) {
      return tool_error(allowed.error());
    }
    auto exposed = sessions.expose(**lease, static_cast<std::uint16_t>(port),
                                   protocol == "http" ? net::preview::PreviewProtocol::kHttp
                                                      : net::preview::PreviewProtocol::kTcp);
    if (!exposed) return tool_error(exposed.error());
    std::string text = "session " + (*lease)->id() + ": port " + std::to_string(port) +
                       " is open to the user at " + exposed->url;
    text += exposed->accepting
                ? " (something accepts connections there)"
                : " (but nothing accepts connections there yet: " + exposed->probe + ")";
    ToolResult result;
    result.content.push_back(text_block(text));
    result.structured = exposed_json(*exposed);
    result.structured["session_id"] = (*lease)->id();
    return result;
  }
};

}  // namespace

json exposed_ports_json(const app::SessionEntry& entry) {
  json list = json::array();
  for (const auto& exposed : entry.previews()) list.push_back(exposed_json(exposed));
  return list;
}

std::unique_ptr<Tool> make_expose_port() {
  return std::make_unique<ExposePort>();
}

}  // namespace paddock::mcp
