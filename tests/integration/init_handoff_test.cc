// paddock hands the plan to paddock-init in a memfd that it writes while paddock-init starts, and
// seals before it says go (sandbox_launch.cc). A plan that is not sealed could still change under
// paddock-init, which refuses it instead of reading it.

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/native/init/channel.h"
#include "runtime/native/init/init_plan.h"
#include "runtime/native/init_program.h"

namespace paddock::init_handoff_test {
namespace {

// The first message of a paddock-init given a whole plan of this build, sealed or not, and told
// to go. Whatever it does next happens in a user and mount namespace of its own, and stops at the
// first step that needs the id maps this test never writes.
init::ChildMessage first_message_of_init(bool sealed) {
  int pair[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
  core::UniqueFd ours(pair[0]), theirs(pair[1]);
  init::MountPlan mounts;
  std::vector<const char*> none;
  std::vector<runtime::RlimitSetting> rlimits;
  std::vector<char*> argv = {const_cast<char*>("true"), nullptr};
  std::vector<char* const*> steps = {argv.data()};
  std::vector<char*> envp = {nullptr};
  init::ChildPlan plan;
  plan.mounts = &mounts;
  plan.bind_sources = &none;
  plan.layer_sources = &none;
  plan.search_path = &none;
  plan.rlimits = &rlimits;
  plan.steps = &steps;
  plan.envp = envp.data();
  plan.hostname = "sandbox";
  plan.cwd = "/";
  plan.workdir = "/";
  plan.fds = init::ChildFds{theirs.get(), -1, -1, -1};
  std::string bytes = init::encode_child_plan(plan);
  EXPECT_NE(init::decode_child_plan(bytes), nullptr);  // only the seal can be missing
  auto memfd = native::plan_memfd();
  EXPECT_TRUE(memfd.ok());
  EXPECT_EQ(write(memfd->get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  if (sealed) {
    EXPECT_EQ(fcntl(memfd->get(), F_ADD_SEALS, init::kPlanSeals), 0);
  }
  auto program = native::open_init_program();
  EXPECT_TRUE(program.ok()) << program.error().message;

  std::string plan_variable = "PADDOCK_INIT_PLAN_FD=" + std::to_string(memfd->get());
  std::string channel_variable = "PADDOCK_INIT_CHANNEL_FD=" + std::to_string(theirs.get());
  char* init_argv[] = {const_cast<char*>("paddock-init"), nullptr};
  char* init_envp[] = {plan_variable.data(), channel_variable.data(), nullptr};
  pid_t child = fork();
  if (child == 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) _exit(90);
    fcntl(memfd->get(), F_SETFD, 0);
    fcntl(theirs.get(), F_SETFD, 0);
    syscall(SYS_execveat, program->get(), "", init_argv, init_envp, AT_EMPTY_PATH);
    _exit(91);
  }
  theirs.reset();
  init::ChildMessage go{init::ChildMessageKind::kGo};
  EXPECT_EQ(write(ours.get(), &go, sizeof go), static_cast<ssize_t>(sizeof go));
  init::ChildMessage reply{};
  reply.kind = init::ChildMessageKind::kGo;  // stays so if nothing comes
  pollfd ready{ours.get(), POLLIN, 0};
  if (poll(&ready, 1, 10000) == 1) {
    EXPECT_EQ(read(ours.get(), &reply, sizeof reply), static_cast<ssize_t>(sizeof reply));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  return reply;
}

TEST(InitHandoff, APlanThatIsNotSealedIsRefused) {
  init::ChildMessage refused = first_message_of_init(false);
  EXPECT_EQ(refused.kind, init::ChildMessageKind::kSetupFailed);
  EXPECT_EQ(refused.phase, init::SetupPhase::kInitPlan);
  EXPECT_EQ(refused.error, EPROTO);

  // The same plan sealed is read: paddock-init goes on, and fails later for want of id maps.
  init::ChildMessage read = first_message_of_init(true);
  EXPECT_EQ(read.kind, init::ChildMessageKind::kSetupFailed);
  EXPECT_NE(read.phase, init::SetupPhase::kInitPlan);
}

}  // namespace
}  // namespace paddock::init_handoff_test
