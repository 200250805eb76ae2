#include "app/wrapped_stream.h"

namespace paddock::app {
namespace {

using json = nlohmann::json;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;

// A message written anew: compact, one line. Invalid UTF-8 cannot come from a parsed line, but a
// dump must never throw.
std::string one_line(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json error_response(const json& id, int code, std::string message) {
  json reply{{"jsonrpc", "2.0"}, {"error", {{"code", code}, {"message", std::move(message)}}}};
  if (!id.is_null()) reply["id"] = id;
  return reply;
}

bool valid_id(const json& id) {
  return id.is_string() || id.is_number();
}

std::string method_of(const json& message) {
  auto method = message.find("method");
  return method != message.end() && method->is_string() ? method->get<std::string>() : "";
}

// A response: no method, and a result or an error.
bool is_response(const json& message) {
  return message.is_object() && !message.contains("method") &&
         (message.contains("result") || message.contains("error"));
}

const json* params_field(const json& message, const char* name) {
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return nullptr;
  auto field = params->find(name);
  return field == params->end() ? nullptr : &*field;
}

// How an answered call ended, and the JSON-RPC error's message.
std::pair<std::string, std::optional<std::string>> outcome_of(const json& response) {
  if (auto error = response.find("error"); error != response.end()) {
    auto message = error->is_object() ? error->find("message") : error->end();
    if (message != error->end() && message->is_string())
      return {"error", message->get<std::string>()};
    return {"error", error->dump(-1, ' ', false, json::error_handler_t::replace)};
  }
  const json& result = response["result"];
  auto is_error = result.is_object() ? result.find("isError") : result.end();
  if (is_error != result.end() && *is_error == true) return {"tool_error", std::nullopt};
  return {"ok", std::nullopt};
}

}  // namespace

WrappedStream::WrappedStream(Options options, std::function<void(const WrappedCall&)> on_call,
                             Clock now)
    : options_(std::move(options)),
      on_call_(std::move(on_call)),
      now_(std::move(now)),
      from_client_(options_.max_frame_bytes),
      from_server_(options_.max_frame_bytes) {}

StreamOutput WrappedStream::from_client(std::string_view bytes) {
  StreamOutput out;
  for (const auto& line : from_client_.feed(bytes)) client_line(line, out);
  return out;
}

StreamOutput WrappedStream::from_server(std::string_view bytes) {
  StreamOutput out;
  for (const auto& line : from_server_.feed(bytes)) server_line(line, out);
  return out;
}

StreamOutput WrappedStream::client_ended() {
  StreamOutput out;
  if (auto line = from_client_.finish()) client_line(*line, out);
  return out;
}

StreamOutput WrappedStream::server_ended() {
  StreamOutput out;
  if (auto line = from_server_.finish()) server_line(*line, out);
  std::size_t calls = 0;
  while (!oldest_.empty()) {
    Open open = take(open_.find(oldest_.begin()->second));
    if (open.list) continue;
    ++calls;
    end_call(std::move(open), "unanswered", "the wrapped server ended before answering");
  }
  if (calls > 0) {
    out.notes.push_back("the wrapped server " + options_.server_name + " ended with " +
                        std::to_string(calls) + " tools/call unanswered");
  }
  return out;
}

void WrappedStream::client_line(const JsonLine& line, StreamOutput& out) {
  if (line.oversized) {
    refuse_client_line(kInvalidRequest,
                       "it is " + std::to_string(line.bytes) + " bytes long, over the limit of " +
                           std::to_string(options_.max_frame_bytes) + " bytes a message",
                       out);
    return;
  }
  if (blank_line(line.message())) return;
  auto parsed = parse_line(line.message());
  if (parsed.why) {
    refuse_client_line(kParseError, "it is " + *parsed.why, out);
  } else if (parsed.value.is_array() && !parsed.value.empty()) {
    client_batch(line, parsed.value, out);
  } else if (parsed.value.is_object()) {
    Verdict verdict = client_message(parsed.value, out);
    if (verdict.reply) out.to_client += one_line(*verdict.reply);
    if (verdict.forward) out.to_server += line.raw;
  } else {
    refuse_client_line(kInvalidRequest,
                       "it is not a JSON-RPC message (an object) or a batch of them", out);
  }
}

// Each message of a batch by the rules of one. The batch passes as it came unless a call in it
// was denied; then what is left passes written anew, and the denials go back as a batch.
void WrappedStream::client_batch(const JsonLine& line, json& batch, StreamOutput& out) {
  json kept = json::array();
  json replies = json::array();
  bool dropped = false;
  for (auto& message : batch) {
    Verdict verdict = client_message(message, out);
    if (verdict.reply) replies.push_back(std::move(*verdict.reply));
    if (verdict.forward) {
      kept.push_back(std::move(message));
    } else {
      dropped = true;
    }
  }
  if (!dropped) {
    out.to_server += line.raw;
  } else if (!kept.empty()) {
    out.to_server += one_line(kept);
  }
  if (!replies.empty()) out.to_client += one_line(replies);
}

WrappedStream::Verdict WrappedStream::client_message(const json& message, StreamOutput& out) {
  if (!message.is_object()) return {};
  std::string method = method_of(message);
  auto id = message.find("id");
  bool answerable = id != message.end() && valid_id(*id);
  if (method == "tools/list" && answerable) {
    Open open;
    open.list = true;
    remember(*id, std::move(open), out);
  }
  if (method != "tools/call") return {};
  Open call = describe_call(message);
  if (options_.denied_tools.count(call.tool) == 0) {
    if (answerable) remember(*id, std::move(call), out);
    return {};
  }
  std::string why = "the user denied the tool \"" + call.tool + "\" of the wrapped server " +
                    options_.server_name +
                    " (paddock wrap --deny-tool, or the server's profile); it was not run";
  out.notes.push_back("refused a call to the denied tool " + call.tool + " of " +
                      options_.server_name);
  call.started = now_();
  end_call(std::move(call), "denied", why);
  // A notification asked for no answer, and gets none; an id that is not one is not echoed.
  if (id == message.end()) return {false, std::nullopt};
  return {false, error_response(answerable ? *id : json(nullptr), kDeniedToolCode, why)};
}

// A call's tool and arguments as the audit log writes them, taken when it passes, since the
// request is not kept.
WrappedStream::Open WrappedStream::describe_call(const json& message) const {
  Open call;
  const json* name = params_field(message, "name");
  if (name != nullptr && name->is_string()) call.tool = name->get<std::string>();
  call.held = 128 + call.tool.size();
  const json* arguments = params_field(message, "arguments");
  if (arguments == nullptr) return call;
  if (arguments->is_object()) {
    for (const auto& [key, value] : arguments->items()) {
      auto size = value.dump(-1, ' ', false, json::error_handler_t::replace).size();
      call.arguments.emplace_back(key, size);
      call.held += key.size() + 48;
    }
  }
  if (options_.record_values) {
    call.values = arguments->dump(-1, ' ', false, json::error_handler_t::replace);
    call.held += call.values->size();
  }
  return call;
}

void WrappedStream::remember(const json& id, Open open, StreamOutput& out) {
  // A client that reuses an open id: the newer request is the one an answer will be matched to.
  if (auto same = open_.find(id); same != open_.end()) {
    Open older = take(same);
    if (!older.list) {
      end_call(std::move(older), "unanswered", "the client sent another request with its id");
    }
  }
  open.order = next_order_++;
  open.started = now_();
  // The id is held twice (by id, by age), and a string id may be as long as a line.
  open.held += 2 * (id.is_string() ? id.get_ref<const std::string&>().size() : sizeof(double));
  open_bytes_ += open.held;
  oldest_.emplace(open.order, id);
  open_.emplace(id, std::move(open));
  while (!open_.empty() &&
         (open_.size() > options_.max_open_requests || open_bytes_ > options_.max_open_bytes)) {
    Open oldest = take(open_.find(oldest_.begin()->second));
    out.notes.push_back("forgot the oldest open request to the wrapped server " +
                        options_.server_name + ": over " +
                        std::to_string(options_.max_open_requests) + " requests or " +
                        std::to_string(options_.max_open_bytes) + " bytes awaited answers");
    if (!oldest.list) {
      end_call(std::move(oldest), "unanswered",
               "forgotten: too many requests awaited answers at once");
    }
  }
}

WrappedStream::Open WrappedStream::take(std::map<json, Open>::iterator at) {
  Open open = std::move(at->second);
  oldest_.erase(open.order);
  open_bytes_ -= open.held;
  open_.erase(at);
  return open;
}

void WrappedStream::end_call(Open open, std::string outcome, std::optional<std::string> error) {
  WrappedCall call;
  call.tool = std::move(open.tool);
  call.arguments = std::move(open.arguments);
  if (open.values) call.values = json::parse(*open.values, nullptr, false);
  call.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now_() - open.started).count();
  call.outcome = std::move(outcome);
  call.error = std::move(error);
  if (on_call_) on_call_(call);
}

void WrappedStream::server_line(const JsonLine& line, StreamOutput& out) {
  if (line.oversized) {
    drop_server_line("an oversized line of " + std::to_string(line.bytes) +
                         " bytes (over the limit of " + std::to_string(options_.max_frame_bytes) +
                         " bytes a message)",
                     out);
    return;
  }
  if (blank_line(line.message())) return;
  auto parsed = parse_line(line.message());
  if (parsed.why) {
    drop_server_line(
        "a malformed line of " + std::to_string(line.bytes) + " bytes (" + *parsed.why + ")", out);
    return;
  }
  json& value = parsed.value;
  bool rewritten = false;
  if (value.is_object()) {
    rewritten = server_message(value);
  } else if (value.is_array()) {
    for (auto& message : value) rewritten = server_message(message) || rewritten;
  } else {
    drop_server_line("a line of " + std::to_string(line.bytes) +
                         " bytes that is not a JSON-RPC message (an object) or a batch of them",
                     out);
    return;
  }
  out.to_client += rewritten ? one_line(value) : line.raw;
}

bool WrappedStream::server_message(json& message) {
  if (!is_response(message)) return false;
  auto id = message.find("id");
  if (id == message.end()) return false;
  auto at = open_.find(*id);
  if (at == open_.end()) return false;
  Open open = take(at);
  if (open.list) return filter_tools(message);
  auto [outcome, error] = outcome_of(message);
  end_call(std::move(open), std::move(outcome), std::move(error));
  return false;
}

// A tools/list answer less the denied tools; untouched (and passed as it came) without any.
bool WrappedStream::filter_tools(json& message) {
  if (options_.denied_tools.empty()) return false;
  auto result = message.find("result");
  if (result == message.end() || !result->is_object()) return false;
  auto tools = result->find("tools");
  if (tools == result->end() || !tools->is_array()) return false;
  json kept = json::array();
  for (auto& tool : *tools) {
    auto name = tool.is_object() ? tool.find("name") : tool.end();
    bool denied = name != tool.end() && name->is_string() &&
                  options_.denied_tools.count(name->get<std::string>()) > 0;
    if (!denied) kept.push_back(std::move(tool));
  }
  bool removed = kept.size() != tools->size();
  *tools = std::move(kept);
  return removed;
}

void WrappedStream::refuse_client_line(int code, const std::string& why, StreamOutput& out) {
  std::string text =
      "paddock wrap refused a message from the client, which was not passed to "
      "the wrapped server " +
      options_.server_name + ": " + why;
  out.to_client += one_line(error_response(nullptr, code, text));
  out.notes.push_back(text);
}

void WrappedStream::drop_server_line(const std::string& what, StreamOutput& out) {
  std::string text =
      "paddock wrap: the wrapped server " + options_.server_name + " sent " + what + ", dropped";
  json notification{{"jsonrpc", "2.0"},
                    {"method", "notifications/message"},
                    {"params", {{"level", "error"}, {"logger", "paddock"}, {"data", text}}}};
  out.to_client += one_line(notification);
  out.notes.push_back(text);
}

}  // namespace paddock::app
