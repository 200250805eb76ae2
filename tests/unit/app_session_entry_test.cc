#include "app/session_entry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace paddock::app::app_session_entry_test {
namespace {

// What run_mutex, freeze_mutex and exposed_mutex guard is out of reach without their guard: these
// would not compile if a guarded member or a way around the lock were public.
template <typename T>
concept ReachesKeptWithoutLock = requires(T& entry) {
  entry.kept_;
}
|| requires(T& entry) {
  entry.kept();
};
template <typename T>
concept ReachesKernelWithoutLock = requires(T& entry) {
  entry.kernel_;
}
|| requires(T& entry) {
  entry.kernel();
};
template <typename T>
concept ReachesStateLostWithoutLock = requires(T& entry) {
  entry.state_lost_;
}
|| requires(T& entry) {
  entry.take_state_lost();
};
template <typename T>
concept ReachesPreviewsWithoutLock = requires(T& entry) {
  entry.exposed_.push_back({});
};
template <typename T>
concept SetsFreezeRefusalWithoutLock = requires(T& entry) {
  entry.freeze_refused_ = T::FreezeRefused::kNo;
};
template <typename T>
concept TakesLockDirectly = requires(T& entry) {
  entry.run_mutex_.lock();
}
|| requires(T& entry) {
  entry.freeze_mutex_.lock();
}
|| requires(T& entry) {
  entry.exposed_mutex_.lock();
};
static_assert(!ReachesKeptWithoutLock<SessionEntry>);
static_assert(!ReachesKernelWithoutLock<SessionEntry>);
static_assert(!ReachesStateLostWithoutLock<SessionEntry>);
static_assert(!ReachesPreviewsWithoutLock<SessionEntry>);
static_assert(!SetsFreezeRefusalWithoutLock<SessionEntry>);
static_assert(!TakesLockDirectly<SessionEntry>);
// ... and in reach with it.
static_assert(ReachesKeptWithoutLock<SessionEntry::RunAccess>);
static_assert(ReachesKernelWithoutLock<SessionEntry::RunAccess>);
static_assert(ReachesStateLostWithoutLock<SessionEntry::RunAccess>);

class NoSession final : public runtime::Session {
 public:
  core::Result<runtime::RunResult> exec(const runtime::ExecRequest& /*request*/,
                                        runtime::RunObserver& /*observer*/) override {
    return core::Error{ENOSYS, "no session"};
  }
  core::Status write_file(const std::string& /*path*/, std::string_view /*content*/) override {
    return core::Error{ENOSYS, "no session"};
  }
  core::Result<runtime::FileContent> read_file(const std::string& /*path*/, std::uint64_t /*max*/,
                                               std::uint64_t /*offset*/) override {
    return core::Error{ENOSYS, "no session"};
  }
  core::Result<std::vector<runtime::FileEntry>> list_files(const std::string& /*path*/,
                                                           std::size_t /*max_entries*/) override {
    return core::Error{ENOSYS, "no session"};
  }
  core::Result<runtime::SessionUsage> usage() override { return core::Error{ENOSYS, "no session"}; }
  void close() override {}
};

TEST(AppSessionEntry, ReadersWithoutTheLockSeeTheInterpreterOnceItIsSet) {
  language::LanguagePolicy policy;
  SessionEntry entry(std::make_unique<NoSession>(), policy, {});
  EXPECT_EQ(entry.live_kernel(), nullptr);
  EXPECT_EQ(entry.not_live_reason(), "the interpreter is starting");
  {
    auto run = entry.lock_run();
    run.set_not_live("created with live: false");
  }
  EXPECT_EQ(entry.live_kernel(), nullptr);
  EXPECT_EQ(entry.not_live_reason(), "created with live: false");
  EXPECT_FALSE(entry.kept_on_disk()) << "nothing kept: nothing published";
}

TEST(AppSessionEntry, AStateLostIsSaidOnce) {
  language::LanguagePolicy policy;
  SessionEntry entry(std::make_unique<NoSession>(), policy, {});
  auto run = entry.lock_run();
  run.set_state_lost("the server restarted");
  EXPECT_EQ(run.take_state_lost(), "the server restarted");
  EXPECT_EQ(run.take_state_lost(), "");
}

}  // namespace
}  // namespace paddock::app::app_session_entry_test
