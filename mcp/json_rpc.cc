#include "mcp/json_rpc.h"

#include "core/json_nesting.h"

namespace paddock::mcp {
namespace {

Incoming invalid(int code, std::string message, json id = nullptr) {
  Incoming incoming;
  incoming.kind = Incoming::Kind::kInvalid;
  incoming.id = std::move(id);
  incoming.error = RpcError{code, std::move(message), nullptr};
  return incoming;
}

bool valid_id(const json& id) {
  return id.is_string() || id.is_number_integer();
}

}  // namespace

Incoming classify(std::string_view line, int max_depth) {
  if (core::json_nesting_depth(line, max_depth) > max_depth) {
    return invalid(kParseError,
                   "message nested deeper than " + std::to_string(max_depth) + " levels");
  }
  json message = json::parse(line, nullptr, false);
  if (message.is_discarded()) {
    return invalid(kParseError, "not valid JSON (or not valid UTF-8)");
  }
  if (message.is_array()) {
    return invalid(kInvalidRequest, "JSON-RPC batches are not supported; send one message a line");
  }
  if (!message.is_object()) return invalid(kInvalidRequest, "a message must be a JSON object");
  json id = message.contains("id") ? message["id"] : json(nullptr);
  json reply_id = valid_id(id) ? id : json(nullptr);
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return invalid(kInvalidRequest, "\"jsonrpc\" must be \"2.0\"", reply_id);
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (message.contains("result") || message.contains("error")) {
      Incoming response;
      response.kind = Incoming::Kind::kResponse;
      response.id = reply_id;
      // A response to a request of the server's (an elicitation): its result in `params`, or
      // its error (code never 0) in `error`.
      if (auto result = message.find("result"); result != message.end()) {
        response.params = *result;
        response.error.code = 0;
      } else if (auto error = message.find("error"); error != message.end()) {
        response.error = RpcError{kInternalError, "", nullptr};
        if (error->is_object() && error->contains("code") && (*error)["code"].is_number_integer() &&
            (*error)["code"].get<long long>() != 0) {
          response.error.code = static_cast<int>((*error)["code"].get<long long>());
        }
      }
      return response;
    }
    return invalid(kInvalidRequest, "a request needs a \"method\"", reply_id);
  }
  if (!method->is_string())
    return invalid(kInvalidRequest, "\"method\" must be a string", reply_id);
  Incoming incoming;
  incoming.method = method->get<std::string>();
  auto params = message.find("params");
  if (params != message.end() && !params->is_object() && !params->is_null()) {
    return invalid(kInvalidRequest, "\"params\" must be an object", reply_id);
  }
  incoming.params = params != message.end() ? *params : json(nullptr);
  if (!message.contains("id")) {
    incoming.kind = Incoming::Kind::kNotification;
    return incoming;
  }
  if (!valid_id(id)) {
    return invalid(kInvalidRequest, "\"id\" must be a string or an integer");
  }
  incoming.kind = Incoming::Kind::kRequest;
  incoming.id = id;
  return incoming;
}

json result_message(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json error_message(const json& id, const RpcError& error) {
  json body{{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) body["data"] = error.data;
  json message{{"jsonrpc", "2.0"}, {"error", std::move(body)}};
  // From 2025-11-25 on, an error about a message whose id could not be read has no id at all.
  if (!id.is_null()) message["id"] = id;
  return message;
}

json notification_message(std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string serialize(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace paddock::mcp
