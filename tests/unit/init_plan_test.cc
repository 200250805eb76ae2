// The plan paddock hands to paddock-init survives the trip through bytes whole, and anything
// that is not a plan of this build is refused rather than half-read.

#include "runtime/native/init/init_plan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "support/harness.h"

namespace paddock::init_plan_test {
namespace {

struct PlanSource {
  init::MountPlan mounts;
  std::vector<const char*> binds = {"/srv/data", "/home/u/project"};
  std::vector<const char*> layers = {"/store/layers/a"};
  std::vector<std::uint8_t> fence = {1, 2, 3, 0, 255};
  std::vector<runtime::RlimitSetting> rlimits = {{RLIMIT_NOFILE, 1024, 1024, "RLIMIT_NOFILE"},
                                                 {RLIMIT_CPU, 10, 11, "RLIMIT_CPU"}};
  std::vector<char*> install = {const_cast<char*>("pip"), const_cast<char*>("install"), nullptr};
  std::vector<char*> run = {const_cast<char*>("python3"), const_cast<char*>("-c"),
                            const_cast<char*>("print(1)"), nullptr};
  std::vector<char* const*> steps = {install.data(), run.data()};
  std::vector<char*> env = {const_cast<char*>("HOME=/work"), const_cast<char*>("A=b=c"), nullptr};
  std::vector<const char*> path = {"/usr/bin", "/bin"};
  std::string binary_file = std::string("\0\x01\xff tail", 8);
  std::vector<init::LateFile> late = {
      {"main.py", "print(1)\n", 9, 0644},
      {"data/blob.bin", binary_file.data(), binary_file.size(), 0600}};
  std::vector<sock_filter> program = {{0x20, 0, 0, 4}, {0x06, 0, 0, 0x7fff0000}};
  std::vector<sock_filter> init_program = {{0x06, 0, 0, 0x7fff0000}};
  init::ChildPlan plan;

  PlanSource() {
    init::MountStep bind;
    bind.kind = init::MountStep::Kind::kBind;
    bind.target = "/data";
    bind.source = "/srv/data";
    bind.mode = 0700;
    bind.protect = init::MountStep::Protect::kReadOnly;
    bind.bind_slot = 0;
    bind.optional = true;
    init::MountStep tmpfs;
    tmpfs.kind = init::MountStep::Kind::kTmpfs;
    tmpfs.target = "/tmp";
    tmpfs.options = "size=64m,mode=1777";
    tmpfs.layer_slot = 3;
    mounts.steps = {bind, tmpfs};
    plan.mounts = &mounts;
    plan.bind_sources = &binds;
    plan.layer_sources = &layers;
    plan.uid = 1000;
    plan.gid = 1001;
    plan.setgroups_allowed = true;
    plan.private_loopback = true;
    plan.late_network = true;
    plan.hostname = "sandbox";
    plan.network_fence = &fence;
    plan.rlimits = &rlimits;
    plan.cwd = "/work/sub";
    plan.workdir = "/work";
    plan.steps = &steps;
    plan.pause_before_step = 1;
    plan.late_files = &late;
    plan.late_files_step = 1;
    plan.session = false;
    plan.envp = env.data();
    plan.search_path = &path;
    plan.seccomp = sock_fprog{static_cast<unsigned short>(program.size()), program.data()};
    plan.init_seccomp =
        sock_fprog{static_cast<unsigned short>(init_program.size()), init_program.data()};
    plan.fds = init::ChildFds{7, 8, 9, 10};
  }
};

std::vector<std::string> strings(char* const* argv) {
  std::vector<std::string> result;
  for (; *argv != nullptr; ++argv) result.emplace_back(*argv);
  return result;
}

TEST(InitPlan, EveryFieldSurvivesTheTrip) {
  PlanSource source;
  auto decoded = init::decode_child_plan(encode_child_plan(source.plan));
  ASSERT_NE(decoded, nullptr);
  const init::ChildPlan& plan = decoded->plan;
  ASSERT_EQ(plan.mounts->steps.size(), 2u);
  const init::MountStep& bind = plan.mounts->steps[0];
  EXPECT_EQ(bind.kind, init::MountStep::Kind::kBind);
  EXPECT_EQ(bind.target, "/data");
  EXPECT_EQ(bind.source, "/srv/data");
  EXPECT_EQ(bind.mode, 0700u);
  EXPECT_EQ(bind.protect, init::MountStep::Protect::kReadOnly);
  EXPECT_EQ(bind.bind_slot, 0);
  EXPECT_EQ(bind.layer_slot, -1);
  EXPECT_TRUE(bind.optional);
  EXPECT_EQ(plan.mounts->steps[1].options, "size=64m,mode=1777");
  EXPECT_EQ(plan.mounts->steps[1].layer_slot, 3);
  ASSERT_EQ(plan.bind_sources->size(), 2u);
  EXPECT_STREQ((*plan.bind_sources)[1], "/home/u/project");
  EXPECT_STREQ((*plan.layer_sources)[0], "/store/layers/a");
  EXPECT_EQ(plan.uid, 1000u);
  EXPECT_EQ(plan.gid, 1001u);
  EXPECT_TRUE(plan.setgroups_allowed);
  EXPECT_TRUE(plan.private_loopback);
  EXPECT_TRUE(plan.late_network);
  EXPECT_STREQ(plan.hostname, "sandbox");
  EXPECT_EQ(*plan.network_fence, source.fence);
  ASSERT_EQ(plan.rlimits->size(), 2u);
  EXPECT_EQ((*plan.rlimits)[1].resource, RLIMIT_CPU);
  EXPECT_EQ((*plan.rlimits)[1].value, 10u);
  EXPECT_EQ((*plan.rlimits)[1].hard, 11u);
  EXPECT_STREQ((*plan.rlimits)[1].name, "RLIMIT_CPU");
  EXPECT_STREQ(plan.cwd, "/work/sub");
  EXPECT_STREQ(plan.workdir, "/work");
  ASSERT_EQ(plan.steps->size(), 2u);
  EXPECT_EQ(strings((*plan.steps)[0]), (std::vector<std::string>{"pip", "install"}));
  EXPECT_EQ(strings((*plan.steps)[1]), (std::vector<std::string>{"python3", "-c", "print(1)"}));
  EXPECT_EQ(plan.pause_before_step, 1u);
  ASSERT_EQ(plan.late_files->size(), 2u);
  const init::LateFile& blob = (*plan.late_files)[1];
  EXPECT_STREQ(blob.path, "data/blob.bin");
  EXPECT_EQ(std::string(blob.content, blob.size), source.binary_file);
  EXPECT_EQ(blob.mode, 0600u);
  EXPECT_EQ(plan.late_files_step, 1u);
  EXPECT_FALSE(plan.session);
  EXPECT_EQ(strings(plan.envp), (std::vector<std::string>{"HOME=/work", "A=b=c"}));
  ASSERT_EQ(plan.search_path->size(), 2u);
  EXPECT_STREQ((*plan.search_path)[1], "/bin");
  ASSERT_EQ(plan.seccomp.len, 2);
  EXPECT_EQ(plan.seccomp.filter[1].k, 0x7fff0000u);
  EXPECT_EQ(plan.init_seccomp.len, 1);
  EXPECT_EQ(plan.fds.channel, 7);
  EXPECT_EQ(plan.fds.stdin_fd, 8);
  EXPECT_EQ(plan.fds.stdout_fd, 9);
  EXPECT_EQ(plan.fds.stderr_fd, 10);
}

TEST(InitPlan, AnEmptyInitFilterStaysEmpty) {
  PlanSource source;
  source.plan.init_seccomp = {};
  auto decoded = init::decode_child_plan(encode_child_plan(source.plan));
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(decoded->plan.init_seccomp.len, 0);
}

TEST(InitPlan, WhatIsNotAWholePlanOfThisBuildIsRefused) {
  PlanSource source;
  std::string bytes = init::encode_child_plan(source.plan);
  for (std::size_t cut : {std::size_t{0}, std::size_t{7}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_EQ(init::decode_child_plan(bytes.substr(0, cut)), nullptr) << "cut at " << cut;
  }
  EXPECT_EQ(init::decode_child_plan(bytes + "x"), nullptr);
  std::string other_version = bytes;
  other_version[0] = static_cast<char>(other_version[0] + 1);
  EXPECT_EQ(init::decode_child_plan(other_version), nullptr);
}

// Found by tests/fuzz/init_plan_fuzz.cc: the version and nothing else. Decoding went on past the
// end with empty fields and copied an empty filter from a null pointer (UBSan: memcpy's nonnull);
// the sanitized build fails here without the fix, every build refuses the bytes.
TEST(InitPlan, AVersionAloneIsRefused) {
  PlanSource source;
  std::string version_alone = init::encode_child_plan(source.plan).substr(0, 8);
  EXPECT_EQ(init::decode_child_plan(version_alone), nullptr);
}

// Also found by the fuzzer: a count of mount steps (just under the cap) with nothing after it.
// Decoding looped over all of them past the end of the bytes (a million empty steps, 300 MB);
// now it stops at the end. Refused either way: the cost is what the fix removes, and it is not
// asserted here (no timing in tests); the input is in the fuzzer's corpus.
TEST(InitPlan, ACountPastTheEndIsRefused) {
  PlanSource source;
  // The version, then the mount steps' count: the first field (visit_child_plan).
  std::string bytes = init::encode_child_plan(source.plan).substr(0, 8);
  std::uint64_t many = (1u << 20) - 1;
  bytes.append(reinterpret_cast<const char*>(&many), sizeof many);
  EXPECT_EQ(init::decode_child_plan(bytes), nullptr);
}

// Every field goes through the one list: a plan whose optional lists are missing decodes with
// empty ones, never a null pointer init would follow.
TEST(InitPlan, MissingListsComeBackEmpty) {
  PlanSource source;
  source.plan.network_fence = nullptr;
  source.plan.late_files = nullptr;
  auto decoded = init::decode_child_plan(encode_child_plan(source.plan));
  ASSERT_NE(decoded, nullptr);
  ASSERT_NE(decoded->plan.network_fence, nullptr);
  EXPECT_TRUE(decoded->plan.network_fence->empty());
  ASSERT_NE(decoded->plan.late_files, nullptr);
  EXPECT_TRUE(decoded->plan.late_files->empty());
}

// A count no rest of the bytes could hold is refused as it is read, wherever it stands.
TEST(InitPlan, EveryCountIsCheckedAgainstWhatIsLeft) {
  PlanSource source;
  std::string bytes = init::encode_child_plan(source.plan);
  std::string search_path_count(8, '\0');
  search_path_count[0] = 2;  // the search path's two entries, then their first size
  std::string first = std::string("\x08", 1) + std::string(7, '\0') + "/usr/bin";
  auto at = bytes.find(search_path_count + first);
  ASSERT_NE(at, std::string::npos);
  std::uint64_t many = 1u << 30;
  bytes.replace(at, 8, std::string(reinterpret_cast<const char*>(&many), sizeof many));
  EXPECT_EQ(init::decode_child_plan(bytes), nullptr);
}

// The fuzzer's seeds (tests/fuzz/corpus/init_plan/) are this build's plans, so that it starts
// from whole plans and mutates fields, not from bytes the decoder refuses at the version. They
// are encoded here from the plans above; when the layout changes (kPlanVersion, a field of
// visit_child_plan), this test fails, and regenerates them with
//   PADDOCK_WRITE_FUZZ_SEEDS=1 build/tests/paddock_unit_tests --gtest_filter='InitPlan.TheFuzz*'
std::map<std::string, std::string> fuzz_seeds() {
  PlanSource whole;
  PlanSource session;
  session.plan.session = true;
  session.plan.steps = nullptr;
  session.plan.late_files = nullptr;
  session.plan.pause_before_step = 0;
  PlanSource bare;
  bare.plan.network_fence = nullptr;
  bare.plan.rlimits = nullptr;
  bare.plan.init_seccomp = sock_fprog{0, nullptr};
  bare.plan.bind_sources = nullptr;
  bare.mounts.steps.resize(1);
  std::string version_alone = init::encode_child_plan(whole.plan).substr(0, 8);
  // The version, then the mount steps' count (the first field) just under the cap, and no more.
  std::string many_mounts = version_alone;
  std::uint64_t many = (1u << 20) - 1;
  many_mounts.append(reinterpret_cast<const char*>(&many), sizeof many);
  return {{"plan-0", init::encode_child_plan(whole.plan)},
          {"plan-1", init::encode_child_plan(session.plan)},
          {"plan-2", init::encode_child_plan(bare.plan)},
          {"version-alone", version_alone},
          {"many-mounts-no-bytes", many_mounts}};
}

TEST(InitPlan, TheFuzzSeedsAreThisBuildsPlans) {
  std::filesystem::path corpus =
      std::filesystem::path(testing::source_dir()) / "tests/fuzz/corpus/init_plan";
  bool write = std::getenv("PADDOCK_WRITE_FUZZ_SEEDS") != nullptr;
  for (const auto& [name, bytes] : fuzz_seeds()) {
    if (name.starts_with("plan-")) {
      EXPECT_NE(init::decode_child_plan(bytes), nullptr) << name;
    }
    if (write) {
      std::ofstream(corpus / name, std::ios::binary | std::ios::trunc) << bytes;
    }
    std::ifstream in(corpus / name, std::ios::binary);
    std::stringstream stored;
    stored << in.rdbuf();
    EXPECT_EQ(stored.str(), bytes) << name << " is not this build's encoding; regenerate the "
                                   << "seeds as the comment above says";
  }
}

}  // namespace
}  // namespace paddock::init_plan_test
