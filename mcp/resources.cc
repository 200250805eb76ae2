#include "mcp/resources.h"

#include "core/base64.h"
#include "core/mime_types.h"
#include "mcp/content.h"
#include "mcp/language_catalog.h"
#include "mcp/session_files.h"

namespace paddock::mcp {
namespace {

constexpr const char* kLanguagesUri = "sandbox://languages";

}  // namespace

json list_resources() {
  return json::array({{{"uri", kLanguagesUri},
                       {"name", "languages"},
                       {"title", "Supported languages"},
                       {"description", "The languages execute_code runs, as JSON."},
                       {"mimeType", "application/json"}}});
}

json list_resource_templates() {
  return json::array({{{"uriTemplate", "sandbox://sessions/{session_id}/files/{path}"},
                       {"name", "session-file"},
                       {"title", "A file in a session"},
                       {"description", "A file of a session's /work directory (up to 6 MiB)."}}});
}

std::variant<ResourceRead, RpcError> read_resource(const app::Services& services,
                                                   const json& params) {
  if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string()) {
    return RpcError{kInvalidParams, "resources/read needs a \"uri\" string", nullptr};
  }
  std::string uri = params["uri"].get<std::string>();
  if (uri == kLanguagesUri) {
    json contents = json::array(
        {{{"uri", uri},
          {"mimeType", "application/json"},
          {"text", json{{"languages", language_list(services.catalog.list())}}.dump(2)}}});
    return ResourceRead{std::move(contents), true};
  }
  auto file = parse_session_file_uri(uri);
  if (!file) {
    return RpcError{kInvalidParams, "unknown resource " + uri, json{{"uri", uri}}};
  }
  auto lease = services.registry.acquire(file->session_id);
  if (!lease) return RpcError{kInvalidParams, lease.error().message, json{{"uri", uri}}};
  auto read = (*lease)->session().read_file(file->path, kResourceReadBytes);
  if (!read) return RpcError{kInvalidParams, read.error().message, json{{"uri", uri}}};
  if (read->size > read->data.size()) {
    return RpcError{kInvalidParams,
                    file->path + " is " + std::to_string(read->size >> 20) +
                        " MiB, over the 6 MiB a message can carry; split it or compress it in "
                        "the session first",
                    json{{"uri", uri}}};
  }
  // What read_file masks or withholds, this does too: its links lead here.
  auto shown = client_view(services.secrets, std::move(read->data), false);
  if (!shown) {
    return RpcError{kInvalidParams, file->path + " " + std::string(app::kWithheld),
                    json{{"uri", uri}}};
  }
  read->data = std::move(*shown);
  std::string mime = core::mime_type_for(file->path, read->data);
  json item{{"uri", uri}, {"mimeType", mime}};
  if (core::looks_like_text(read->data)) {
    item["text"] = read->data;
  } else {
    item["blob"] = core::base64_encode(read->data);
  }
  return ResourceRead{json::array({item}), false};
}

}  // namespace paddock::mcp
