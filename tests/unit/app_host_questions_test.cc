// What paddock mcp --ask network remembers of the person's answers (app/host_questions.h): a
// grant is the asker's that was named in the question, and a kept session's grants come back as
// they were saved. The channel below is the person: it records each question and answers as
// the case says, on the calling thread, as a client that answers at once would.

#include "app/host_questions.h"

#include <gtest/gtest.h>

#include "app/secret_mask.h"

namespace paddock::app::app_host_questions_test {
namespace {

class AnsweringChannel : public UserChannel {
 public:
  explicit AnsweringChannel(std::string choice) : choice_(std::move(choice)) {}
  [[nodiscard]] bool can_ask() const override { return true; }
  void ask(const UserQuestion& question, std::function<void(const UserReply&)> done) override {
    asked.push_back(question.message);
    done({UserReply::Kind::kChosen, choice_});
  }
  [[nodiscard]] double timeout_seconds() const override { return 60; }
  std::vector<std::string> asked;

 private:
  std::string choice_;
};

struct Asked {
  bool allowed = false;
  bool asked = false;
};

Asked ask(CallConsent& consent, const std::string& host, std::uint16_t port, bool installer) {
  Asked result;
  consent.ask({host, port, installer}, [&](const net::egress::ConsentAnswer& answer) {
    result = {answer.allowed, answer.asked};
  });
  return result;
}

TEST(HostGrants, TheInstallersGrantDoesNotOpenTheHostToTheProgram) {
  SecretMask secrets({});
  AuditTrail audit(nullptr, secrets);
  OpenQuestions open;
  auto channel = std::make_shared<AnsweringChannel>("session");
  auto grants = std::make_shared<HostGrants>();
  auto consent = std::make_shared<CallConsent>(channel, ConsentAsker{"A fresh sandbox", ""}, grants,
                                               open, audit);
  Asked first = ask(*consent, "pypi.org", 443, true);
  EXPECT_TRUE(first.allowed && first.asked);
  // The installer again: known, not asked.
  EXPECT_TRUE(
      consent->known({"pypi.org", 443, true}).value_or(net::egress::ConsentAnswer{}).allowed);
  // The program: a question of its own, which names it.
  EXPECT_FALSE(consent->known({"pypi.org", 443, false}).has_value());
  Asked program = ask(*consent, "pypi.org", 443, false);
  EXPECT_TRUE(program.allowed && program.asked);
  ASSERT_EQ(channel->asked.size(), 2u);
  EXPECT_NE(channel->asked[0].find("(its library installer)"), std::string::npos);
  EXPECT_NE(channel->asked[1].find("(its program)"), std::string::npos);
}

TEST(HostGrants, AKeptSessionsGrantsComeBackAsSavedAndOldOnesAreTheProgramsAlone) {
  HostGrants grants;
  grants.add({"pypi.org", 443, true});
  grants.add({"api.example.com", 8443, false});
  auto saved = grants.saved();
  EXPECT_EQ(saved, (std::vector<std::string>{"api.example.com:8443", "installer pypi.org:443"}));
  HostGrants again;
  auto restored = again.restore(saved);
  EXPECT_EQ(restored.size(), 2u);
  EXPECT_TRUE(again.allows({"pypi.org", 443, true}));
  EXPECT_FALSE(again.allows({"pypi.org", 443, false}));
  EXPECT_TRUE(again.allows({"api.example.com", 8443, false}));
  // What does not parse is skipped, whatever a meta.json says.
  HostGrants odd;
  EXPECT_TRUE(odd.restore({"nohost", ":443", "h:0", "h:70000", "h:44x", "installer :1"}).empty());
  EXPECT_TRUE(odd.saved().empty());
}

}  // namespace
}  // namespace paddock::app::app_host_questions_test
