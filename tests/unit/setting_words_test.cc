// An error below config/ names the setting that fixes it by a neutral name
// (runtime/setting_names.h), never by a flag; `paddock run` and `paddock mcp` each add how their
// user sets it, from the setting's row of the table: its flag, and the variables the command
// reads.

#include "config/setting_words.h"

#include <gtest/gtest.h>

#include "config/table.h"
#include "runtime/setting_names.h"

namespace paddock::config::setting_words_test {
namespace {

TEST(SettingWords, EachCommandSaysItsOwnFlagAndVariables) {
  core::Error error = runtime::naming_setting(core::Error{ENOTSUP, "cgroup v2 limits are required"},
                                              setting_names::kRequireCgroups);
  // `paddock run` reads only the flag; the server reads the variable too.
  EXPECT_EQ(worded(error, kRun), "cgroup v2 limits are required (set by --require-cgroups)");
  EXPECT_EQ(worded(error, kMcp),
            "cgroup v2 limits are required (set by --require-cgroups or PADDOCK_REQUIRE_CGROUPS)");
  // The setting survives the context a caller adds.
  EXPECT_EQ(worded(error.context("starting"), kRun),
            "starting: cgroup v2 limits are required (set by --require-cgroups)");
}

TEST(SettingWords, ASettingACommandDoesNotTakeAddsNothing) {
  core::Error full = runtime::naming_setting(
      core::Error{ENOSPC, "the session's work directory is full"}, setting_names::kSessionDisk);
  EXPECT_EQ(worded(full, kRun), full.message) << "`paddock run` has no sessions";
  EXPECT_EQ(worded(full, kMcp), full.message + " (set by --session-disk or PADDOCK_SESSION_DISK)");
  EXPECT_EQ(worded(core::Error{EIO, "plain"}, kMcp), "plain");
  EXPECT_EQ(how_to_set("no_such_setting", kMcp), "");
}

// Every name a floor below may use is a row of the command that can meet it.
TEST(SettingWords, EveryNeutralNameHasARow) {
  namespace names = setting_names;
  for (const char* setting :
       {names::kRequireCgroups, names::kImage, names::kPodStartTimeout, names::kAllowedHosts,
        names::kInstallNetwork, names::kSecrets, names::kBackend}) {
    EXPECT_NE(how_to_set(setting, kRun), "") << setting;
    EXPECT_NE(how_to_set(setting, kMcp), "") << setting;
  }
  EXPECT_NE(how_to_set(names::kSessionDisk, kMcp), "");
}

}  // namespace
}  // namespace paddock::config::setting_words_test
