#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "app/log.h"

namespace paddock::app::app_log_test {
namespace {

TEST(AppLog, LinesAtTheForwardedLevelAndAboveReachTheSinkWhateverStderrsLevel) {
  set_log_level(LogLevel::kEmergency);  // keeps the test's stderr quiet
  std::vector<std::pair<LogLevel, std::string>> forwarded;
  forward_log(LogLevel::kWarning, [&](LogLevel level, const std::string& text) {
    forwarded.emplace_back(level, text);
  });
  log(LogLevel::kInfo, "below");
  log(LogLevel::kWarning, "at");
  log(LogLevel::kError, "above");
  stop_forwarding_log();
  log(LogLevel::kError, "after");
  set_log_level(LogLevel::kInfo);
  ASSERT_EQ(forwarded.size(), 2u);
  EXPECT_EQ(forwarded[0], std::make_pair(LogLevel::kWarning, std::string("at")));
  EXPECT_EQ(forwarded[1], std::make_pair(LogLevel::kError, std::string("above")));
}

TEST(AppLog, ForwardedLinesAreMasked) {
  set_log_level(LogLevel::kEmergency);
  mask_log_with(SecretMask({"TOKEN=hunter2hunter2"}));
  std::string got;
  forward_log(LogLevel::kDebug, [&](LogLevel, const std::string& text) { got = text; });
  log(LogLevel::kDebug, "token hunter2hunter2 seen");
  stop_forwarding_log();
  mask_log_with(SecretMask({}));
  set_log_level(LogLevel::kInfo);
  EXPECT_EQ(got.find("hunter2hunter2"), std::string::npos) << got;
  EXPECT_NE(got.find("token"), std::string::npos) << got;
}

// What log_wanted says is what log() does: a line at a level neither stderr nor the sink takes
// is wanted by no one (the warm pool builds its debug lines only when one is).
TEST(AppLog, ALevelIsWantedWhenStderrOrTheSinkTakesIt) {
  set_log_level(LogLevel::kInfo);
  EXPECT_FALSE(log_wanted(LogLevel::kDebug));
  EXPECT_TRUE(log_wanted(LogLevel::kInfo));
  forward_log(LogLevel::kDebug, [](LogLevel, const std::string&) {});
  EXPECT_TRUE(log_wanted(LogLevel::kDebug));
  stop_forwarding_log();
  EXPECT_FALSE(log_wanted(LogLevel::kDebug));
  set_log_level(LogLevel::kDebug);
  EXPECT_TRUE(log_wanted(LogLevel::kDebug));
  set_log_level(LogLevel::kInfo);
}

}  // namespace
}  // namespace paddock::app::app_log_test
