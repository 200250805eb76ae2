#include "app/session_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <thread>

namespace paddock::app::app_session_registry_test {
namespace {

using namespace std::chrono_literals;

// Records close(); does nothing else. The registry's bookkeeping is under test, not isolation.
class FakeSession : public runtime::Session {
 public:
  explicit FakeSession(std::shared_ptr<std::atomic<int>> closes) : closes_(std::move(closes)) {}

  core::Result<runtime::RunResult> exec(const runtime::ExecRequest& /*request*/,
                                        runtime::RunObserver& /*observer*/) override {
    return core::Error{ENOSYS, "fake session"};
  }
  core::Status write_file(const std::string& /*path*/, std::string_view /*content*/) override {
    return core::Error{ENOSYS, "fake session"};
  }
  core::Result<runtime::FileContent> read_file(const std::string& /*path*/, std::uint64_t /*max*/,
                                               std::uint64_t /*offset*/) override {
    return core::Error{ENOSYS, "fake session"};
  }
  core::Result<std::vector<runtime::FileEntry>> list_files(const std::string& /*path*/,
                                                           std::size_t /*max_entries*/) override {
    return core::Error{ENOSYS, "fake session"};
  }
  core::Result<runtime::SessionUsage> usage() override {
    return core::Error{ENOSYS, "fake session"};
  }
  void close() override { ++*closes_; }

 private:
  std::shared_ptr<std::atomic<int>> closes_;
};

// A session that can be frozen, as the native one can: counts freezes and thaws.
class FreezableSession final : public FakeSession, public runtime::IdleFreezing {
 public:
  using FakeSession::FakeSession;
  runtime::IdleFreezing* freezing() override { return this; }
  core::Status freeze() override {
    ++freezes;
    frozen_ = true;
    return {};
  }
  core::Status thaw() override {
    ++thaws;
    frozen_ = false;
    return {};
  }
  bool frozen() const override { return frozen_; }
  std::atomic<int> freezes{0}, thaws{0};

 private:
  std::atomic<bool> frozen_{false};
};

SessionSettings idle_for(double ttl_seconds) {
  SessionSettings settings;
  settings.ttl_seconds = ttl_seconds;
  return settings;
}

class AppSessionRegistry : public ::testing::Test {
 protected:
  // A session whose close() calls are counted in the returned counter.
  std::shared_ptr<SessionEntry> open(SessionRegistry& registry, double ttl_seconds,
                                     std::shared_ptr<std::atomic<int>>* closes = nullptr) {
    auto counter = std::make_shared<std::atomic<int>>(0);
    if (closes != nullptr) *closes = counter;
    EXPECT_TRUE(registry.reserve().ok());
    return registry.add(std::make_unique<FakeSession>(counter), policy_, idle_for(ttl_seconds));
  }

  language::LanguagePolicy policy_;
};

TEST_F(AppSessionRegistry, ReserveIsCapped) {
  SessionRegistry registry(2, 3600);
  ASSERT_TRUE(registry.reserve().ok());
  ASSERT_TRUE(registry.reserve().ok());
  core::Status third = registry.reserve();
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.error().message.find("already 2 sessions"), std::string::npos)
      << third.error().message;
  // A reservation given back, or turned into a session, frees or keeps the slot.
  registry.unreserve();
  ASSERT_TRUE(registry.reserve().ok());
  registry.add(std::make_unique<FakeSession>(std::make_shared<std::atomic<int>>(0)), policy_,
               idle_for(60));
  EXPECT_FALSE(registry.reserve().ok()) << "one session and one reservation fill a cap of 2";
  registry.unreserve();
  EXPECT_TRUE(registry.reserve().ok());
  EXPECT_FALSE(registry.reserve().ok());
  registry.unreserve();
  registry.close_all();
}

TEST_F(AppSessionRegistry, ClosingASessionFreesItsSlot) {
  SessionRegistry registry(1, 3600);
  auto entry = open(registry, 60);
  EXPECT_FALSE(registry.reserve().ok());
  ASSERT_TRUE(registry.close(entry->id()));
  EXPECT_TRUE(registry.reserve().ok());
  registry.unreserve();
}

TEST_F(AppSessionRegistry, AddAcquireClose) {
  SessionRegistry registry(4, 3600);
  std::shared_ptr<std::atomic<int>> closes;
  auto entry = open(registry, 60, &closes);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(&entry->policy(), &policy_);
  EXPECT_EQ(entry->ttl_seconds(), 60);
  ASSERT_EQ(registry.list().size(), 1u);
  EXPECT_EQ(registry.list()[0], entry);
  {
    auto lease = registry.acquire(entry->id());
    ASSERT_TRUE(lease.ok());
    EXPECT_EQ((*lease)->id(), entry->id());
    EXPECT_EQ(entry->users(), 1);
  }
  EXPECT_EQ(entry->users(), 0) << "the lease ended";
  EXPECT_EQ(closes->load(), 0);
  EXPECT_TRUE(registry.close(entry->id()));
  EXPECT_EQ(closes->load(), 1);
  EXPECT_TRUE(registry.list().empty());
  EXPECT_FALSE(registry.acquire(entry->id()).ok());
  EXPECT_FALSE(registry.close(entry->id())) << "closed once";
  EXPECT_EQ(closes->load(), 1);
}

TEST_F(AppSessionRegistry, TtlIsCappedAtTheMaximum) {
  SessionRegistry registry(4, 100);
  EXPECT_EQ(open(registry, 5000)->ttl_seconds(), 100);
  EXPECT_EQ(open(registry, 7)->ttl_seconds(), 7);
  EXPECT_EQ(registry.max_ttl_seconds(), 100);
  registry.close_all();
}

TEST_F(AppSessionRegistry, AcquiringAnUnknownIdSaysWhatToDo) {
  SessionRegistry registry(4, 3600);
  auto lease = registry.acquire("s-nope");
  ASSERT_FALSE(lease.ok());
  EXPECT_EQ(lease.error().code, ENOENT);
  EXPECT_EQ(lease.error().message,
            "no session 's-nope' (it was closed, expired after idle time, or never existed); "
            "create_session makes a new one");
}

TEST_F(AppSessionRegistry, ExpireIdleTakesOnlyIdleUnleasedSessions) {
  SessionRegistry registry(8, 3600);
  std::shared_ptr<std::atomic<int>> idle_closes, leased_closes, fresh_closes;
  auto idle = open(registry, 0.05, &idle_closes);
  auto leased = open(registry, 0.05, &leased_closes);
  auto fresh = open(registry, 60, &fresh_closes);
  auto lease = registry.acquire(leased->id());
  ASSERT_TRUE(lease.ok());
  std::this_thread::sleep_for(100ms);

  EXPECT_GT(idle->idle_seconds(), 0.05);
  auto expired = registry.expire_idle();
  EXPECT_EQ(expired, (std::vector<std::string>{idle->id()}));
  EXPECT_EQ(idle_closes->load(), 1);
  EXPECT_EQ(leased_closes->load(), 0) << "a session in use never expires under its caller";
  EXPECT_EQ(fresh_closes->load(), 0);
  EXPECT_FALSE(registry.acquire(idle->id()).ok());
  EXPECT_EQ(registry.list().size(), 2u);
  EXPECT_TRUE(registry.expire_idle().empty()) << "nothing more is idle";
}

TEST_F(AppSessionRegistry, ALeaseEndingRestartsTheIdleClock) {
  SessionRegistry registry(8, 3600);
  std::shared_ptr<std::atomic<int>> closes;
  auto entry = open(registry, 0.3, &closes);
  {
    auto lease = registry.acquire(entry->id());
    ASSERT_TRUE(lease.ok());
    std::this_thread::sleep_for(400ms);
    EXPECT_TRUE(registry.expire_idle().empty());
  }
  // Just released: idle for less than its ttl, though acquired longer ago than that.
  EXPECT_LT(entry->idle_seconds(), 0.3);
  EXPECT_TRUE(registry.expire_idle().empty());
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(registry.expire_idle(), (std::vector<std::string>{entry->id()}));
  EXPECT_EQ(closes->load(), 1);
}

TEST_F(AppSessionRegistry, FreezeIdleFreezesIdleUnleasedSessionsAndAcquireThawsThem) {
  SessionRegistry registry(8, 3600);
  auto add = [&] {
    EXPECT_TRUE(registry.reserve().ok());
    auto session = std::make_unique<FreezableSession>(std::make_shared<std::atomic<int>>(0));
    auto* raw = session.get();
    auto entry = registry.add(std::move(session), policy_, idle_for(3600));
    return std::make_pair(entry, raw);
  };
  auto [idle, idle_session] = add();
  auto [leased, leased_session] = add();
  auto lease = registry.acquire(leased->id());
  ASSERT_TRUE(lease.ok());
  std::this_thread::sleep_for(100ms);

  EXPECT_TRUE(registry.freeze_idle(0).empty()) << "0 turns freezing off";
  EXPECT_TRUE(registry.freeze_idle(60).empty()) << "not idle for long enough";
  EXPECT_EQ(registry.freeze_idle(0.05), (std::vector<std::string>{idle->id()}));
  EXPECT_TRUE(idle_session->frozen());
  EXPECT_EQ(leased_session->freezes.load(), 0) << "a session in use is never frozen";
  EXPECT_TRUE(registry.freeze_idle(0.05).empty()) << "frozen once";
  EXPECT_EQ(idle_session->freezes.load(), 1);

  {
    auto used = registry.acquire(idle->id());
    ASSERT_TRUE(used.ok());
    EXPECT_FALSE(idle_session->frozen()) << "a lease thaws first";
    EXPECT_EQ(idle_session->thaws.load(), 1);
  }
  auto again = registry.acquire(idle->id());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(idle_session->thaws.load(), 1) << "nothing to thaw the second time";
  registry.close_all();
}

TEST_F(AppSessionRegistry, ASessionItsBackendCannotFreezeIsAskedOnce) {
  SessionRegistry registry(8, 3600);
  auto entry = open(registry, 3600);  // FakeSession: no IdleFreezing
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(registry.freeze_idle(0.05).empty());
  EXPECT_EQ(entry->freeze_refused(), SessionEntry::FreezeRefused::kAlways);
  EXPECT_FALSE(runtime::is_frozen(entry->session()));
  EXPECT_TRUE(registry.acquire(entry->id()).ok());
  EXPECT_EQ(entry->freeze_refused(), SessionEntry::FreezeRefused::kAlways);
  registry.close_all();
}

TEST_F(AppSessionRegistry, CloseAllClosesEverything) {
  SessionRegistry registry(8, 3600);
  std::shared_ptr<std::atomic<int>> a, b, c;
  open(registry, 60, &a);
  open(registry, 60, &b);
  auto leased = open(registry, 60, &c);
  auto lease = registry.acquire(leased->id());
  ASSERT_TRUE(lease.ok());
  registry.close_all();
  EXPECT_EQ(a->load(), 1);
  EXPECT_EQ(b->load(), 1);
  EXPECT_EQ(c->load(), 1) << "exit closes sessions in use too";
  EXPECT_TRUE(registry.list().empty());
  EXPECT_TRUE(registry.reserve().ok());
  registry.unreserve();
}

TEST_F(AppSessionRegistry, IdsAreRandomAndWellFormed) {
  SessionRegistry registry(64, 3600);
  const std::regex shape("s-[0-9a-f]{32}");
  std::set<std::string> ids;
  for (int i = 0; i < 32; ++i) {
    auto entry = open(registry, 60);
    EXPECT_TRUE(std::regex_match(entry->id(), shape)) << entry->id();
    ids.insert(entry->id());
  }
  EXPECT_EQ(ids.size(), 32u);
  registry.close_all();
}

}  // namespace
}  // namespace paddock::app::app_session_registry_test
