#include "mcp/server.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <condition_variable>
#include <thread>

#include "app/kept_sessions.h"
#include "app/log.h"
#include "core/random_hex.h"
#include "core/text.h"
#include "mcp/argument_check.h"
#include "mcp/language_catalog.h"
#include "mcp/resources.h"
#include "mcp/result_text.h"

namespace paddock::mcp {
namespace {

constexpr CachePolicy kStaticList{true, 3'600'000, true};

json tool_result_json(const ToolResult& result) {
  json body{{"content", result.content}, {"isError", result.is_error}};
  if (!result.structured.is_null()) body["structuredContent"] = result.structured;
  return body;
}

json progress_token_of(const json& params) {
  if (!params.is_object()) return nullptr;
  auto meta = params.find("_meta");
  if (meta == params.end() || !meta->is_object()) return nullptr;
  auto token = meta->find("progressToken");
  if (token == meta->end() || !(token->is_string() || token->is_number_integer())) return nullptr;
  return *token;
}

// Closes idle sessions, and freezes those idle for `freeze_seconds` (0: never), once a second
// until stopped; once an hour, removes kept sessions past their retention from disk (the server's
// start did it first), so a server that runs for days keeps to it too.
class Expirer {
 public:
  static constexpr auto kRetentionEvery = std::chrono::hours(1);

  Expirer(const app::Services& services, double freeze_seconds)
      : thread_([this, &services, freeze_seconds] {
          app::SessionRegistry& sessions = services.registry;
          auto next_retention = std::chrono::steady_clock::now() + kRetentionEvery;
          std::unique_lock lock(mutex_);
          while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
            lock.unlock();
            if (std::chrono::steady_clock::now() >= next_retention) {
              services.kept.remove_unused();
              next_retention = std::chrono::steady_clock::now() + kRetentionEvery;
            }
            for (const auto& id : sessions.expire_idle()) {
              log(app::LogLevel::kInfo, "session " + id + " closed after its idle time");
            }
            for (const auto& id : sessions.freeze_idle(freeze_seconds)) {
              log(app::LogLevel::kDebug, "session " + id + " frozen while idle");
            }
            lock.lock();
          }
        }) {}
  ~Expirer() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

Server::Server(const app::Services& services, app::KernelPool& kernels, const ToolRegistry& tools,
               int in_fd, int out_fd, SettingWording wording)
    : services_(services),
      options_(services.options),
      kernels_(kernels),
      tools_(tools),
      wording_(std::move(wording)),
      in_fd_(in_fd),
      reader_(in_fd, kMaxInboundLine),
      writer_(out_fd, services.secrets),
      questions_(writer_, services.options.ask_timeout_seconds),
      roots_(writer_, services.shares, services.options.share_roots),
      pool_(options_.workers, options_.max_queued, options_.max_queued_bytes) {}

int Server::run() {
  sigset_t termination;
  sigemptyset(&termination);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&termination, sig);
  int signals = signalfd(-1, &termination, SFD_CLOEXEC | SFD_NONBLOCK);
  Expirer expirer(services_, options_.idle_freeze_seconds);
  log(app::LogLevel::kInfo, "serving MCP on stdio (backend " +
                                std::string(services_.backend.name()) + ", " +
                                core::counted(options_.workers, "worker", "workers") + ")");
  for (;;) {
    pollfd watched[2] = {{in_fd_, POLLIN, 0}, {signals, POLLIN, 0}};
    if (poll(watched, signals >= 0 ? 2 : 1, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (signals >= 0 && watched[1].revents != 0) {
      signalfd_siginfo info{};
      [[maybe_unused]] ssize_t got = read(signals, &info, sizeof info);
      log(app::LogLevel::kInfo, "signal " + std::to_string(info.ssi_signo) + ": shutting down");
      break;
    }
    if (watched[0].revents == 0) continue;
    reader_.fill();
    while (auto line = reader_.next()) handle_line(*line);
    if (reader_.eof()) {
      log(app::LogLevel::kInfo, "end of input: shutting down");
      break;
    }
  }
  shut_down();
  if (signals >= 0) close(signals);
  return 0;
}

Server::~Server() {
  app::stop_forwarding_log();
}

void Server::shut_down() {
  {
    std::lock_guard lock(in_flight_mutex_);
    for (auto& [id, call] : in_flight_) call->token.cancel();
  }
  questions_.close_all();
  // A 2026-07-28 call's questions end unasked too, and nobody is owed its answer any more.
  std::map<std::string, std::shared_ptr<SuspendedCall>> suspended;
  {
    std::lock_guard lock(suspended_mutex_);
    suspended.swap(suspended_);
  }
  for (auto& [state, suspension] : suspended) suspension->finish(std::nullopt);
  services_.registry.close_all();
  pool_.stop();
}

void Server::handle_line(const LineReader::Line& line) {
  if (line.oversized) {
    respond_error(nullptr, RpcError{kParseError,
                                    "message longer than " + std::to_string(kMaxInboundLine >> 20) +
                                        " MiB; it was skipped",
                                    nullptr});
    return;
  }
  Incoming incoming = classify(line.text);
  incoming.bytes = line.text.size();
  switch (incoming.kind) {
    case Incoming::Kind::kInvalid:
      respond_error(incoming.id, incoming.error);
      break;
    case Incoming::Kind::kNotification:
      handle_notification(incoming);
      break;
    case Incoming::Kind::kRequest:
      handle_request(incoming);
      break;
    case Incoming::Kind::kResponse:
      // An answer to roots/list or to a question (elicitation/create); anything else matches
      // nothing sent.
      if (!roots_.take_response(incoming)) questions_.take_response(incoming);
      break;
  }
}

void Server::handle_notification(const Incoming& notification) {
  if (notification.method == "notifications/initialized" ||
      notification.method == "notifications/roots/list_changed") {
    roots_.ask(client_capabilities_);
    return;
  }
  if (notification.method != "notifications/cancelled") return;
  const json& params = notification.params;
  if (!params.is_object() || !params.contains("requestId")) return;
  std::lock_guard lock(in_flight_mutex_);
  auto found = in_flight_.find(params["requestId"].dump());
  if (found == in_flight_.end()) {
    // A 2026-07-28 retry waiting for its call's result cancels that call.
    std::lock_guard suspended(suspended_mutex_);
    for (auto& [state, suspension] : suspended_) suspension->cancel_if_owed(params["requestId"]);
    return;
  }
  found->second->cancelled = true;
  found->second->token.cancel();
  log(app::LogLevel::kDebug, "request " + found->first + " cancelled by the client");
}

std::string Server::instructions(bool roots) const {
  InstructionFacts facts;
  facts.shares = services_.shares.summary();
  for (const auto& share : services_.shares.all()) facts.writable_share |= share->writable;
  using Sharing = app::ServerOptions::RootSharing;
  if (roots && options_.share_roots != Sharing::kNone) {
    bool writable = options_.share_roots == Sharing::kReadWrite;
    facts.writable_share |= writable;
    facts.root_sharing = writable ? "read-write" : "read-only";
  }
  facts.allowed_hosts = options_.allowed_hosts;
  facts.preinstalled = preinstalled_lines(services_.policies);
  facts.secrets = options_.secrets;
  facts.ask_network = options_.ask_network;
  return server_instructions(facts);
}

Era Server::legacy_era() const {
  return Era{negotiated_version_.value_or(kLegacyVersions.front()), false};
}

void Server::handle_request(const Incoming& request) {
  const std::string& method = request.method;
  EraChoice choice = era_from_meta(request.params);
  if (choice.unsupported) {
    respond_error(request.id, choice.error);
    return;
  }
  Era era = choice.from_meta ? choice.era : legacy_era();
  if (method == "server/discover") era = Era{kStatelessVersion, true};

  if (method == "initialize") {
    json requested =
        request.params.is_object() ? request.params.value("protocolVersion", json()) : json();
    negotiated_version_ = negotiate_version(requested);
    client_capabilities_ =
        request.params.is_object() ? request.params.value("capabilities", json()) : json();
    log(app::LogLevel::kInfo,
        "client asked for " + requested.dump() + ", speaking " + *negotiated_version_);
    respond(request.id,
            {{"protocolVersion", *negotiated_version_},
             {"capabilities", server_capabilities()},
             {"serverInfo", server_info()},
             {"instructions", instructions(true)}},
            legacy_era());
  } else if (method == "server/discover") {
    respond(request.id,
            {{"supportedVersions", supported_versions()},
             {"capabilities", server_capabilities()},
             {"instructions", instructions(false)}},
            era, kStaticList);
  } else if (method == "ping") {
    respond(request.id, json::object(), era);
  } else if (method == "logging/setLevel") {
    auto level = request.params.is_object() && request.params.contains("level") &&
                         request.params["level"].is_string()
                     ? app::log_level_from_name(request.params["level"].get<std::string>())
                     : std::nullopt;
    if (!level) {
      respond_error(request.id, RpcError{kInvalidParams,
                                         "\"level\" must be one of debug, info, notice, warning, "
                                         "error, critical, alert, emergency",
                                         nullptr});
      return;
    }
    // From now on the server's log lines at that level and above reach the client too.
    app::forward_log(*level, [this](app::LogLevel line_level, const std::string& text) {
      writer_.write(notification_message(
          "notifications/message",
          {{"level", to_string(line_level)}, {"logger", "paddock"}, {"data", text}}));
    });
    respond(request.id, json::object(), era);
  } else if (method == "tools/list") {
    respond(request.id, {{"tools", tools_.list()}}, era, kStaticList);
  } else if (method == "resources/list") {
    respond(request.id, {{"resources", list_resources()}}, era, kStaticList);
  } else if (method == "resources/templates/list") {
    respond(request.id, {{"resourceTemplates", list_resource_templates()}}, era, kStaticList);
  } else if (method == "prompts/list") {
    respond(request.id, {{"prompts", json::array()}}, era, kStaticList);
  } else if (method == "tools/call" && request.params.is_object() &&
             request.params.contains("requestState")) {
    resume(request);
  } else if (method == "tools/call" || method == "resources/read") {
    submit(request, era);
  } else {
    respond_error(request.id,
                  RpcError{kMethodNotFound, "unknown method '" + method + "'", nullptr});
  }
}

namespace {

// Why a tools/call cannot be taken (no tool name, an unknown tool, arguments that are not an
// object), before it is given to a worker; nothing when it can.
std::optional<RpcError> tool_call_refusal(const ToolRegistry& tools, const json& params) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    return RpcError{kInvalidParams, "tools/call needs a tool \"name\"", nullptr};
  }
  if (const std::string* setting = tools.withheld(params["name"].get<std::string>())) {
    return RpcError{kInvalidParams,
                    "tool '" + params["name"].get<std::string>() +
                        "' is not offered by this server: it needs " + *setting,
                    nullptr};
  }
  if (tools.find(params["name"].get<std::string>()) == nullptr) {
    return RpcError{
        kInvalidParams,
        "unknown tool '" + params["name"].get<std::string>() + "'; tools/list names them", nullptr};
  }
  if (params.contains("arguments") && !params["arguments"].is_object()) {
    return RpcError{kInvalidParams, "tool \"arguments\" must be an object", nullptr};
  }
  return std::nullopt;
}

// resources/read's result, or nothing with `error` set.
json read_resource_result(const app::Services& services, const json& params, const Era& era,
                          std::optional<RpcError>& error) {
  auto read = read_resource(services, params);
  if (auto* failure = std::get_if<RpcError>(&read)) {
    error = *failure;
    return nullptr;
  }
  auto& contents = std::get<ResourceRead>(read);
  json result = {{"contents", std::move(contents.contents)}};
  return finish_result(std::move(result), era,
                       CachePolicy{true, contents.shared ? 60'000 : 0, contents.shared});
}

}  // namespace

void Server::submit(const Incoming& request, const Era& era) {
  const json& params = request.params;
  bool is_tool = request.method == "tools/call";
  if (is_tool) {
    if (auto refused = tool_call_refusal(tools_, params)) {
      respond_error(request.id, *refused);
      return;
    }
  }
  auto call = std::make_shared<InFlight>();
  std::string key = request.id.dump();
  {
    std::lock_guard lock(in_flight_mutex_);
    if (!in_flight_.emplace(key, call).second) {
      respond_error(request.id,
                    RpcError{kInvalidRequest, "request id " + key + " is already in use", nullptr});
      return;
    }
  }
  json id = request.id;
  json token = progress_token_of(params);
  auto forget = [this, key] {
    std::lock_guard lock(in_flight_mutex_);
    in_flight_.erase(key);
  };
  std::shared_ptr<app::UserChannel> user;
  if (is_tool) {
    // Weak: the suspension may outlive the call, and must not keep its token's descriptor.
    user =
        user_channel(params, era, id, client_capabilities_, [weak = std::weak_ptr<InFlight>(call)] {
          if (auto running = weak.lock()) {
            running->cancelled = true;
            running->token.cancel();
          }
        });
  }
  // A throw the job did not expect (an engine's odd reply, a bug) ends this request with an
  // internal error, never the server; a 2026-07-28 call's goes to whichever request is owed it.
  auto failed = [this, id, call, forget, user, era,
                 method = request.method](const std::string& what) {
    forget();
    std::string message = "internal error in " + method + ": " + what;
    if (auto suspension = std::dynamic_pointer_cast<SuspendedCall>(user)) {
      std::optional<json> owed;
      if (!call->cancelled) owed = finish_result(tool_result_json(tool_error(message)), era);
      if (suspension->finish(std::move(owed))) forget_suspension(*suspension);
      return;
    }
    if (auto* legacy = dynamic_cast<ClientQuestions::Channel*>(user.get())) legacy->close();
    if (call->cancelled) return;
    respond_error(id, RpcError{kInternalError, message, nullptr});
  };
  auto job = [this, id, forget, params, era, token, call, is_tool, user] {
    // Runs last, once the answer is written or withheld.
    struct Answered {
      InFlight& call;
      ~Answered() { call.until_answered.reset(); }
    } answered{*call};
    // No kernel is made ready while any call is in flight: starting one takes about a second
    // of CPU, which the calls' own work should not share. The pool refills once the server is
    // idle.
    app::KernelPool::CallInFlight busy(kernels_);
    json result;
    std::optional<RpcError> error;
    if (is_tool) {
      result = call_tool(params, era, token, *call, user);
    } else {
      result = read_resource_result(services_, params, era, error);
    }
    forget();
    // The warm pool starts opening the next sandbox now, before the answer is written, so that
    // it is ready as soon as it can be for the client's next call.
    call->until_answered.reset();
    // Its questions end with it: a late answer changes nothing.
    if (auto* legacy = dynamic_cast<ClientQuestions::Channel*>(user.get())) legacy->close();
    if (auto suspension = std::dynamic_pointer_cast<SuspendedCall>(user)) {
      // Owed to the first request, or to the retry that comes for it; a cancelled call's to
      // nobody.
      std::optional<json> owed;
      if (!call->cancelled) owed = std::move(result);
      if (suspension->finish(std::move(owed))) forget_suspension(*suspension);
      return;
    }
    // A cancelled request gets no answer: the client has forgotten it.
    if (call->cancelled) return;
    if (error) {
      respond_error(id, *error);
    } else {
      writer_.write(result_message(id, std::move(result)));
    }
  };
  app::Admission admission = pool_.submit(std::move(job), request.bytes, std::move(failed));
  if (!admission) {
    forget();
    // Nothing ran: the call's questions end unasked, and its suspension with them.
    if (auto suspension = std::dynamic_pointer_cast<SuspendedCall>(user)) {
      suspension->finish(std::nullopt);
      forget_suspension(*suspension);
    }
    std::string waiting =
        admission.kind == app::Admission::kOverByteBudget
            ? std::to_string(options_.max_queued_bytes >> 20) + " MiB of requests waiting"
            : core::counted(options_.max_queued, "call", "calls") + " waiting";
    respond_error(request.id,
                  RpcError{kInternalError,
                           "the server is busy (" + waiting + "); try again shortly", nullptr});
  }
}

std::shared_ptr<app::UserChannel> Server::user_channel(const json& params, const Era& era,
                                                       const json& id, const json& capabilities,
                                                       std::function<void()> cancel) {
  if (!era.stateless) return questions_.channel(can_elicit(capabilities), era.version);
  // 2026-07-28: what the client can do comes with each request.
  json meta = params.value("_meta", json::object());
  json declared = meta.is_object() ? meta.value(kCapabilitiesMetaKey, json()) : json();
  auto state = core::random_hex(16, "a tool call's requestState");
  if (!state) return questions_.channel(false, era.version);
  auto suspension = std::make_shared<SuspendedCall>(
      writer_, questions_.outbox(), questions_.timer(), options_.ask_timeout_seconds,
      can_elicit(declared), *state, id, std::move(cancel));
  std::lock_guard lock(suspended_mutex_);
  // A result no retry came for in kAbandonedAfter is dropped.
  auto long_ago = std::chrono::steady_clock::now() - kAbandonedAfter;
  std::erase_if(suspended_,
                [&](const auto& entry) { return entry.second->abandoned_since(long_ago); });
  suspended_[*state] = suspension;
  return suspension;
}

void Server::resume(const Incoming& request) {
  const json& state = request.params["requestState"];
  std::shared_ptr<SuspendedCall> suspension;
  if (state.is_string()) {
    std::lock_guard lock(suspended_mutex_);
    if (auto found = suspended_.find(state.get<std::string>()); found != suspended_.end()) {
      suspension = found->second;
    }
  }
  auto resumed =
      suspension
          ? suspension->resume(request.id, request.params.value("inputResponses", json::object()))
          : SuspendedCall::Resumed::kEnded;
  if (resumed == SuspendedCall::Resumed::kEnded) {
    respond_error(request.id, RpcError{kInvalidParams,
                                       "requestState names no call waiting for answers (it "
                                       "ended, or was dropped); call the tool again without it",
                                       nullptr});
    return;
  }
  if (resumed == SuspendedCall::Resumed::kAnswered) forget_suspension(*suspension);
}

void Server::forget_suspension(const SuspendedCall& suspension) {
  std::lock_guard lock(suspended_mutex_);
  std::erase_if(suspended_, [&](const auto& entry) { return entry.second.get() == &suspension; });
}

json Server::call_tool(const json& params, const Era& era, const json& progress_token,
                       InFlight& in_flight, std::shared_ptr<app::UserChannel> user) {
  Tool* tool = tools_.find(params["name"].get<std::string>());
  json arguments = params.value("arguments", json::object());
  auto progress_count = std::make_shared<std::atomic<long long>>(0);
  ToolContext context{services_, in_flight.token,
                      [&](const std::string& message) {
                        if (progress_token.is_null() || message.empty()) return;
                        writer_.write(notification_message("notifications/progress",
                                                           {{"progressToken", progress_token},
                                                            {"progress", ++*progress_count},
                                                            {"message", message}}));
                      },
                      in_flight.until_answered, std::move(user)};
  ToolResult result;
  std::string withheld;
  for (const auto& [argument, value] : arguments.items()) {
    if (const std::string* setting = tools_.withheld_argument(tool->name(), argument)) {
      withheld = tool->name() + "'s argument '" + argument +
                 "' is not offered by this server: it needs " + *setting;
      break;
    }
  }
  if (!withheld.empty()) {
    result = tool_error(withheld);
  } else if (auto problem = check_arguments(arguments, tools_.input_schema(*tool))) {
    result = tool_error("invalid arguments for " + tool->name() + ": " + *problem);
  } else {
    try {
      result = tool->call(arguments, context);
    } catch (const std::exception& failure) {
      log(app::LogLevel::kError, tool->name() + " failed: " + failure.what());
      result = tool_error(std::string("internal error in ") + tool->name() + ": " + failure.what());
    }
  }
  // A refusal that names a setting says how this server's operator sets it.
  if (result.is_error && !result.setting.empty() && wording_ && !result.content.empty() &&
      result.content[0].contains("text")) {
    result.content[0]["text"] =
        result.content[0]["text"].get<std::string>() + wording_(result.setting);
  }
  // The one place every tool's text passes: bounded here whatever the tool did.
  bound_result_text(result);
  return finish_result(tool_result_json(result), era);
}

void Server::respond(const json& id, json result, const Era& era, const CachePolicy& cache) {
  writer_.write(result_message(id, finish_result(std::move(result), era, cache)));
}

void Server::respond_error(const json& id, const RpcError& error) {
  // Up to 2025-06-18 an error response must carry an id; when it could not be read there is no
  // valid way to answer, so the problem is only logged.
  // Only the reader thread answers messages without an id, and only it reads the negotiation.
  if (id.is_null() && negotiated_version_ && *negotiated_version_ <= "2025-06-18") {
    log(app::LogLevel::kWarning, "unanswerable message: " + error.message);
    return;
  }
  log(app::LogLevel::kDebug, "error " + std::to_string(error.code) + ": " + error.message);
  writer_.write(error_message(id, error));
}

}  // namespace paddock::mcp
