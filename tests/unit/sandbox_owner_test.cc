// Which leftovers of another paddock are provably dead, and so deleted when a backend connects.
// An engine or a cluster may be shared by paddocks on other machines, in other containers of
// this machine, or on a machine with the same hostname: only a process of this machine, boot and
// PID namespace that is gone (or whose pid now names another process) counts.

#include "runtime/container/sandbox_owner.h"

#include <unistd.h>

#include <map>

#include <gtest/gtest.h>

namespace paddock::engine::sandbox_owner_test {
namespace {

container::SandboxOwner self() {
  return {"self-instance", "machine-a", "boot-1", "4026531836", "100", "5000"};
}

container::SandboxOwner other() {
  container::SandboxOwner owner = self();
  owner.instance = "other-instance";
  owner.pid = "200";
  owner.started = "7000";
  return owner;
}

// The process table as a map of pid -> start time.
auto processes(std::map<pid_t, std::string> table) {
  return [table](pid_t pid) -> std::optional<std::string> {
    auto found = table.find(pid);
    if (found == table.end()) return std::nullopt;
    return found->second;
  };
}

TEST(SandboxOwner, AGoneProcessOfThisMachineBootAndPidNamespaceIsDead) {
  EXPECT_TRUE(
      container::owner_provably_dead(container::owner_labels(other()), self(), processes({})));
}

TEST(SandboxOwner, APidNowNamingAnotherProcessIsDead) {
  EXPECT_TRUE(container::owner_provably_dead(container::owner_labels(other()), self(),
                                             processes({{200, "9999"}})));
}

TEST(SandboxOwner, ALiveOwnerIsKept) {
  EXPECT_FALSE(container::owner_provably_dead(container::owner_labels(other()), self(),
                                              processes({{200, "7000"}})));
}

TEST(SandboxOwner, OurOwnSandboxesAreKept) {
  EXPECT_FALSE(
      container::owner_provably_dead(container::owner_labels(self()), self(), processes({})));
}

TEST(SandboxOwner, AnotherMachinesSandboxesAreKeptWhateverItsHostname) {
  container::SandboxOwner remote = other();
  remote.machine = "machine-b";
  remote.boot = "boot-9";
  EXPECT_FALSE(
      container::owner_provably_dead(container::owner_labels(remote), self(), processes({})));
}

TEST(SandboxOwner, AnotherPidNamespacesSandboxesAreKept) {
  // A server in another container of this machine: its pid means nothing in ours.
  container::SandboxOwner contained = other();
  contained.pid_namespace = "4026532999";
  EXPECT_FALSE(
      container::owner_provably_dead(container::owner_labels(contained), self(), processes({})));
}

TEST(SandboxOwner, ThisMachinesEarlierBootIsDead) {
  container::SandboxOwner before_reboot = other();
  before_reboot.boot = "boot-0";
  EXPECT_TRUE(container::owner_provably_dead(container::owner_labels(before_reboot), self(),
                                             processes({{200, "7000"}})));
}

TEST(SandboxOwner, LabelsThatNameNoOwnerAreKept) {
  for (const nlohmann::json& labels :
       {nlohmann::json::object(), nlohmann::json{{"io.paddock.sandbox", "1"}},
        nlohmann::json{{"io.paddock.pid", "200"}, {"io.paddock.boot", "boot-1"}},
        nlohmann::json::array()}) {
    EXPECT_FALSE(container::owner_provably_dead(labels, self(), processes({}))) << labels.dump();
  }
  nlohmann::json bad_pid = container::owner_labels(other());
  bad_pid["io.paddock.pid"] = "12; rm -rf /";
  EXPECT_FALSE(container::owner_provably_dead(bad_pid, self(), processes({})));
}

TEST(SandboxOwner, ThisProcessIsDescribedAndAlive) {
  const container::SandboxOwner& me = container::this_paddock();
  EXPECT_FALSE(me.instance.empty());
  EXPECT_FALSE(me.boot.empty());
  EXPECT_FALSE(me.pid_namespace.empty());
  EXPECT_EQ(container::process_start_time(getpid()), me.started);
  container::SandboxOwner twin = me;
  twin.instance = "a twin";
  EXPECT_FALSE(container::owner_provably_dead(container::owner_labels(twin), me,
                                              container::process_start_time));
}

}  // namespace
}  // namespace paddock::engine::sandbox_owner_test
