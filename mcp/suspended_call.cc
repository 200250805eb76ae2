#include "mcp/suspended_call.h"

#include "mcp/protocol.h"

namespace paddock::mcp {

void SuspendedCall::ask(const app::UserQuestion& question,
                        std::function<void(const app::UserReply&)> done) {
  if (!can_ask_) {
    done({app::UserReply::Kind::kCannotAsk, ""});
    return;
  }
  auto answer = std::make_shared<PendingAnswer>(std::move(done));
  {
    std::lock_guard lock(mutex_);
    if (result_) {
      answer->give({app::UserReply::Kind::kCannotAsk, ""});
      return;
    }
    std::string key = "ask-" + std::to_string(++next_question_);
    json request = {{"method", "elicitation/create"},
                    {"params", elicitation_params(question, kStatelessVersion)}};
    questions_[key] = Question{std::move(request), answer, false};
    send_questions();
  }
  timer_.watch(answer,
               std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(static_cast<long long>(timeout_seconds_ * 1000)));
}

void SuspendedCall::send_questions() {
  if (!owed_) return;
  json requests = json::object();
  for (auto& [key, question] : questions_) {
    if (question.sent || question.answer->given()) continue;
    requests[key] = question.request;
    question.sent = true;
  }
  if (requests.empty()) return;
  json result = {{"resultType", "input_required"},
                 {"inputRequests", std::move(requests)},
                 {"requestState", state_}};
  outbox_.post(result_message(*std::exchange(owed_, std::nullopt), std::move(result)));
}

bool SuspendedCall::finish(std::optional<json> result) {
  std::map<std::string, Question> open;
  {
    std::lock_guard lock(mutex_);
    open.swap(questions_);
    finished_at_ = std::chrono::steady_clock::now();
    if (!result) {
      result_ = json(nullptr);
    } else if (owed_) {
      writer_.write(result_message(*std::exchange(owed_, std::nullopt), std::move(*result)));
      result_ = json(nullptr);  // delivered: nothing waits
    } else {
      result_ = std::move(*result);
    }
  }
  for (auto& [key, question] : open) question.answer->give({app::UserReply::Kind::kCannotAsk, ""});
  std::lock_guard lock(mutex_);
  return result_->is_null();
}

SuspendedCall::Resumed SuspendedCall::resume(const json& retry_id, const json& answers) {
  std::vector<std::pair<std::shared_ptr<PendingAnswer>, json>> given;
  std::optional<json> superseded;
  {
    std::lock_guard lock(mutex_);
    // Its result went to another request already (the suspension is about to be forgotten).
    if (result_ && result_->is_null()) return Resumed::kEnded;
    if (answers.is_object()) {
      for (auto& [key, question] : questions_) {
        auto found = answers.find(key);
        if (question.sent && found != answers.end()) given.emplace_back(question.answer, *found);
      }
      // Only a question the client was shown can be answered: an answer to one not yet sent
      // (its key guessed) leaves it waiting for its turn.
      std::erase_if(questions_, [&](const auto& entry) {
        return entry.second.sent && answers.contains(entry.first);
      });
    }
    if (result_ && !result_->is_null()) {
      writer_.write(result_message(retry_id, std::exchange(*result_, json(nullptr))));
      return Resumed::kAnswered;
    }
    // Two retries of one call at once: the earlier one gets an error rather than no answer at
    // all, and the later one is owed what comes next.
    if (owed_ && *owed_ != retry_id) superseded = std::move(owed_);
    owed_ = retry_id;
    send_questions();
  }
  if (superseded) {
    outbox_.post(
        error_message(*superseded, RpcError{kInvalidRequest,
                                            "a later retry of this call (the same requestState) "
                                            "came; it gets the call's answer instead",
                                            nullptr}));
  }
  for (auto& [answer, reply] : given) answer->give(reply_of(reply));
  return Resumed::kWaiting;
}

void SuspendedCall::cancel_if_owed(const json& id) {
  {
    std::lock_guard lock(mutex_);
    if (!owed_ || *owed_ != id) return;
    owed_.reset();  // a cancelled request gets no answer
  }
  cancel_();
}

bool SuspendedCall::abandoned_since(std::chrono::steady_clock::time_point when) {
  std::lock_guard lock(mutex_);
  return result_ && finished_at_ < when;
}

}  // namespace paddock::mcp
