#include "mcp/client_questions.h"

namespace paddock::mcp {

json elicitation_params(const app::UserQuestion& question, const std::string& version) {
  json decision = {{"type", "string"}, {"title", "Your answer"}};
  if (version == "2025-06-18") {
    // That revision's enum schema names its choices with enumNames.
    json values = json::array(), names = json::array();
    for (const auto& choice : question.choices) {
      values.push_back(choice.value);
      names.push_back(choice.title);
    }
    decision["enum"] = std::move(values);
    decision["enumNames"] = std::move(names);
  } else {
    json choices = json::array();
    for (const auto& choice : question.choices) {
      choices.push_back({{"const", choice.value}, {"title", choice.title}});
    }
    decision["oneOf"] = std::move(choices);
  }
  json params = {{"message", question.message},
                 {"requestedSchema",
                  {{"type", "object"},
                   {"properties", {{"decision", std::move(decision)}}},
                   {"required", json::array({"decision"})}}}};
  if (version != "2025-06-18") params["mode"] = "form";
  return params;
}

app::UserReply reply_of(const json& result) {
  app::UserReply reply;
  reply.kind = app::UserReply::Kind::kDismissed;
  if (!result.is_object()) return reply;
  std::string action = result.value("action", "");
  if (action == "decline") {
    reply.kind = app::UserReply::Kind::kDeclined;
  } else if (action == "accept") {
    // An accepted form without a decision the question offered says nothing: a refusal.
    auto content = result.find("content");
    reply.kind = app::UserReply::Kind::kDeclined;
    if (content != result.end() && content->is_object() && content->contains("decision") &&
        (*content)["decision"].is_string()) {
      reply.kind = app::UserReply::Kind::kChosen;
      reply.choice = (*content)["decision"].get<std::string>();
    }
  }
  return reply;
}

bool can_elicit(const json& capabilities) {
  if (!capabilities.is_object()) return false;
  auto elicitation = capabilities.find("elicitation");
  if (elicitation == capabilities.end() || !elicitation->is_object()) return false;
  // {} is form mode (2025-06-18's only one); a client that names its modes must name form.
  return elicitation->empty() || elicitation->contains("form");
}

void PendingAnswer::give(const app::UserReply& reply) {
  std::function<void(const app::UserReply&)> done;
  {
    std::lock_guard lock(mutex_);
    done = std::exchange(done_, nullptr);
  }
  if (done) done(reply);
}

bool PendingAnswer::given() {
  std::lock_guard lock(mutex_);
  return !done_;
}

QuestionTimer::QuestionTimer() : thread_([this] { run(); }) {}

QuestionTimer::~QuestionTimer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void QuestionTimer::watch(std::shared_ptr<PendingAnswer> answer,
                          std::chrono::steady_clock::time_point when) {
  {
    std::lock_guard lock(mutex_);
    due_.emplace(when, answer);
  }
  changed_.notify_all();
}

void QuestionTimer::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (due_.empty()) {
      changed_.wait(lock);
      continue;
    }
    auto first = due_.begin();
    if (std::chrono::steady_clock::now() < first->first) {
      changed_.wait_until(lock, first->first);
      continue;
    }
    auto answer = first->second.lock();
    due_.erase(first);
    lock.unlock();
    if (answer) answer->give({app::UserReply::Kind::kUnanswered, ""});
    lock.lock();
  }
}

std::shared_ptr<ClientQuestions::Channel> ClientQuestions::channel(bool can_ask,
                                                                   const std::string& version) {
  return std::make_shared<Channel>(*this, can_ask, version);
}

bool ClientQuestions::take_response(const Incoming& response) {
  std::shared_ptr<PendingAnswer> answer;
  {
    std::lock_guard lock(mutex_);
    auto found = open_.find(response.id.dump());
    if (found == open_.end()) return false;
    answer = std::move(found->second);
    open_.erase(found);
  }
  // A client that failed the request (no handler, an error) did not ask its user.
  answer->give(response.error.code != 0 ? app::UserReply{app::UserReply::Kind::kDismissed, ""}
                                        : reply_of(response.params));
  return true;
}

void ClientQuestions::close_all() {
  std::map<std::string, std::shared_ptr<PendingAnswer>> open;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    open.swap(open_);
  }
  for (auto& [id, answer] : open) answer->give({app::UserReply::Kind::kCannotAsk, ""});
}

void ClientQuestions::Channel::ask(const app::UserQuestion& question,
                                   std::function<void(const app::UserReply&)> done) {
  if (!can_ask_) {
    done({app::UserReply::Kind::kCannotAsk, ""});
    return;
  }
  auto answer = std::make_shared<PendingAnswer>(std::move(done));
  json id;
  {
    std::lock_guard lock(mutex_);
    std::unique_lock all(questions_.mutex_);
    if (closed_ || questions_.closed_) {
      all.unlock();
      answer->give({app::UserReply::Kind::kCannotAsk, ""});
      return;
    }
    id = "paddock-ask-" + std::to_string(++questions_.next_id_);
    questions_.open_[id.dump()] = answer;
    mine_[id.dump()] = answer;
  }
  questions_.timer_.watch(
      answer, std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(
                                                     questions_.timeout_seconds_ * 1000)));
  json request = {{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "elicitation/create"},
                  {"params", elicitation_params(question, version_)}};
  questions_.outbox_.post(std::move(request), [answer] {
    answer->give({app::UserReply::Kind::kCannotAsk, ""});  // the client is gone
  });
}

void ClientQuestions::Channel::close() {
  std::map<std::string, std::shared_ptr<PendingAnswer>> unanswered;  // by the client
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    std::lock_guard all(questions_.mutex_);
    for (auto& [id, answer] : mine_) {
      if (questions_.open_.erase(id) > 0) unanswered.emplace(id, std::move(answer));
    }
    mine_.clear();
  }
  for (auto& [id, answer] : unanswered) {
    answer->give({app::UserReply::Kind::kCannotAsk, ""});
    // The client may still show it: it is withdrawn, its answer would change nothing now.
    questions_.outbox_.post(notification_message(
        "notifications/cancelled",
        {{"requestId", json::parse(id)}, {"reason", "the tool call that asked has ended"}}));
  }
}

}  // namespace paddock::mcp
