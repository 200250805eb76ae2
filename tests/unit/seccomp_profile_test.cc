// parse_profile: Docker's JSON format read into a Profile, with errors that name the file and the
// JSON pointer of the offending value, and Docker's includes/excludes resolved for a process that
// holds no capability.

#include "runtime/native/seccomp/seccomp_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace seccomp_profile_test {
namespace {

namespace seccomp = paddock::seccomp;
using seccomp::Action;
using seccomp::CompareOp;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const seccomp::Platform kAmd64{"amd64", 6, 8};

// A profile whose only rule is `entry`, so that a test states just what it is about.
std::string with_rule(const std::string& entry) {
  return R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [)" + entry + "]}";
}

// The names of every rule that applies, in order.
std::vector<std::string> rule_names(const seccomp::Profile& profile) {
  std::vector<std::string> names;
  for (const auto& rule : profile.rules)
    names.insert(names.end(), rule.names.begin(), rule.names.end());
  return names;
}

// Names of the rules that apply to `platform` when the profile has just `entry`.
std::vector<std::string> applying(const std::string& entry,
                                  const seccomp::Platform& platform = kAmd64) {
  auto profile = seccomp::parse_profile(with_rule(entry), "test.json", platform);
  EXPECT_TRUE(profile.ok()) << profile.error().message;
  return profile.ok() ? rule_names(*profile) : std::vector<std::string>{};
}

// The message of the error parse_profile must give for `json`; fails the test if it succeeds.
std::string parse_error(const std::string& json) {
  auto profile = seccomp::parse_profile(json, "my.json", kAmd64);
  EXPECT_FALSE(profile.ok()) << "accepted: " << json;
  if (profile.ok()) return "";
  EXPECT_EQ(profile.error().code, EINVAL) << profile.error().message;
  return profile.error().message;
}

TEST(SeccompProfileTest, ReadsDefaultActionRulesAndArguments) {
  auto profile = seccomp::parse_profile(R"({
    "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 13,
    "syscalls": [
      {"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
      {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
      {"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [
        {"index": 0, "value": 4294967295, "op": "SCMP_CMP_LE"},
        {"index": 2, "value": 2114060288, "valueTwo": 7, "op": "SCMP_CMP_MASKED_EQ"}]}
    ]})",
                                        "p.json", kAmd64);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->default_action, (Action{Action::Kind::kErrno, 13}));
  ASSERT_EQ(profile->rules.size(), 3u);
  EXPECT_EQ(profile->rules[0].names, (std::vector<std::string>{"read", "write"}));
  EXPECT_EQ(profile->rules[0].action.kind, Action::Kind::kAllow);
  EXPECT_TRUE(profile->rules[0].args.empty());
  EXPECT_EQ(profile->rules[1].action, (Action{Action::Kind::kErrno, 38}));
  const auto& args = profile->rules[2].args;
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].index, 0u);
  EXPECT_EQ(args[0].op, CompareOp::kLessOrEqual);
  EXPECT_EQ(args[0].value, 0xffffffffu);
  EXPECT_EQ(args[1].index, 2u);
  EXPECT_EQ(args[1].op, CompareOp::kMaskedEqual);
  EXPECT_EQ(args[1].value, 2114060288u);
  EXPECT_EQ(args[1].value_two, 7u);
}

TEST(SeccompProfileTest, ErrnoDefaultsToEperm) {
  auto profile = seccomp::parse_profile(
      with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ERRNO"})"), "p.json", kAmd64);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->default_action, (Action{Action::Kind::kErrno, EPERM}));
  ASSERT_EQ(profile->rules.size(), 1u);
  EXPECT_EQ(profile->rules[0].action, (Action{Action::Kind::kErrno, EPERM}));
}

TEST(SeccompProfileTest, ReadsEveryActionName) {
  const std::vector<std::pair<std::string, Action::Kind>> cases = {
      {"SCMP_ACT_ALLOW", Action::Kind::kAllow},
      {"SCMP_ACT_ERRNO", Action::Kind::kErrno},
      {"SCMP_ACT_KILL", Action::Kind::kKillThread},  // Docker's old name for KILL_THREAD
      {"SCMP_ACT_KILL_THREAD", Action::Kind::kKillThread},
      {"SCMP_ACT_KILL_PROCESS", Action::Kind::kKillProcess},
      {"SCMP_ACT_TRAP", Action::Kind::kTrap},
      {"SCMP_ACT_LOG", Action::Kind::kLog},
  };
  for (const auto& [name, kind] : cases) {
    auto profile =
        seccomp::parse_profile(R"({"defaultAction": ")" + name + R"("})", "p.json", kAmd64);
    ASSERT_TRUE(profile.ok()) << name << ": " << profile.error().message;
    EXPECT_EQ(profile->default_action.kind, kind) << name;
  }
}

TEST(SeccompProfileTest, ReadsEveryComparison) {
  const std::vector<std::pair<std::string, CompareOp>> cases = {
      {"SCMP_CMP_NE", CompareOp::kNotEqual},           {"SCMP_CMP_LT", CompareOp::kLess},
      {"SCMP_CMP_LE", CompareOp::kLessOrEqual},        {"SCMP_CMP_EQ", CompareOp::kEqual},
      {"SCMP_CMP_GE", CompareOp::kGreaterOrEqual},     {"SCMP_CMP_GT", CompareOp::kGreater},
      {"SCMP_CMP_MASKED_EQ", CompareOp::kMaskedEqual},
  };
  for (const auto& [name, op] : cases) {
    auto profile =
        seccomp::parse_profile(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
                      "args": [{"index": 5, "value": 9, "op": ")" +
                                         name + R"("}]})"),
                               "p.json", kAmd64);
    ASSERT_TRUE(profile.ok()) << name << ": " << profile.error().message;
    ASSERT_EQ(profile->rules.size(), 1u);
    ASSERT_EQ(profile->rules[0].args.size(), 1u);
    EXPECT_EQ(profile->rules[0].args[0].op, op) << name;
    EXPECT_EQ(profile->rules[0].args[0].index, 5u) << name;
  }
}

TEST(SeccompProfileTest, AcceptsTheOlderSingleNameForm) {
  EXPECT_EQ(applying(R"({"name": "getpid", "action": "SCMP_ACT_ALLOW"})"),
            (std::vector<std::string>{"getpid"}));
}

TEST(SeccompProfileTest, NoSyscallsListMeansOnlyTheDefault) {
  for (const char* json : {R"({"defaultAction": "SCMP_ACT_LOG"})",
                           R"({"defaultAction": "SCMP_ACT_LOG", "syscalls": null})"}) {
    auto profile = seccomp::parse_profile(json, "p.json", kAmd64);
    ASSERT_TRUE(profile.ok()) << json << ": " << profile.error().message;
    EXPECT_EQ(profile->default_action.kind, Action::Kind::kLog);
    EXPECT_TRUE(profile->rules.empty());
  }
}

// --- Errors: each names the origin and the JSON pointer of what is wrong. ---

// Not JSON at all has no pointer to give; the parser's line and column stand in for it.
// paddock's own key: calls refused as a library's probe, not said after each run.
TEST(SeccompProfileTest, ReadsTheQuietRefusals) {
  auto profile = seccomp::parse_profile(
      R"({"defaultAction": "SCMP_ACT_ERRNO", "quietRefusals": ["mbind", "get_mempolicy"]})",
      "p.json", kAmd64);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->quiet_refusals, (std::vector<std::string>{"mbind", "get_mempolicy"}));
  auto built_in = seccomp::default_profile();
  ASSERT_TRUE(built_in.ok()) << built_in.error().message;
  EXPECT_NE(std::find(built_in->quiet_refusals.begin(), built_in->quiet_refusals.end(), "mbind"),
            built_in->quiet_refusals.end());
  EXPECT_EQ(parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "quietRefusals": "mbind"})"),
            "my.json: /quietRefusals: must be a list of names");
  EXPECT_EQ(parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "quietRefusals": [1]})"),
            "my.json: /quietRefusals: must be a list of names");
  EXPECT_EQ(
      parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "quietRefusals": ["mbind", "mbnd"]})"),
      "my.json: /quietRefusals/1: 'mbnd' is not a system call libseccomp knows");
}

TEST(SeccompProfileErrorTest, InvalidJson) {
  std::string message = parse_error("{\"defaultAction\": \"SCMP_ACT_ERRNO\",\n  oops}");
  EXPECT_THAT(message, StartsWith("my.json: is not valid JSON: "));
  EXPECT_THAT(message, HasSubstr("line 2, column 3"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("[json.exception")));
}

TEST(SeccompProfileErrorTest, NotAnObject) {
  EXPECT_THAT(parse_error(R"(["SCMP_ACT_ERRNO"])"),
              StartsWith("my.json: /: must be a JSON object"));
}

TEST(SeccompProfileErrorTest, MissingDefaultAction) {
  EXPECT_THAT(parse_error(R"({"syscalls": []})"),
              StartsWith("my.json: /defaultAction: is missing"));
}

TEST(SeccompProfileErrorTest, UnknownDefaultAction) {
  std::string message = parse_error(R"({"defaultAction": "SCMP_ACT_NOTIFY"})");
  EXPECT_THAT(message, StartsWith("my.json: /defaultAction: unknown action \"SCMP_ACT_NOTIFY\""));
}

TEST(SeccompProfileErrorTest, ActionThatIsNotAString) {
  EXPECT_THAT(parse_error(R"({"defaultAction": 1})"), StartsWith("my.json: /defaultAction: "));
}

TEST(SeccompProfileErrorTest, UnknownRuleActionNamesItsIndex) {
  std::string message = parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
      {"names": ["read"], "action": "SCMP_ACT_ALLOW"},
      {"names": ["write"], "action": "SCMP_ACT_PERMIT"}]})");
  EXPECT_THAT(message, StartsWith("my.json: /syscalls/1/action: unknown action"));
  EXPECT_THAT(message, HasSubstr("SCMP_ACT_PERMIT"));
}

TEST(SeccompProfileErrorTest, MissingRuleAction) {
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["read"]})")),
              StartsWith("my.json: /syscalls/0/action: is missing"));
}

TEST(SeccompProfileErrorTest, ErrnoRetOutOfRange) {
  for (const char* errno_ret : {"4096", "-1", "\"1\""}) {
    std::string message = parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
        {"names": ["read"], "action": "SCMP_ACT_ALLOW"},
        {"names": ["write"], "action": "SCMP_ACT_ERRNO", "errnoRet": )" +
                                      std::string(errno_ret) + "}]}");
    // The pointer leads to the rule (today its action); the text names the field.
    EXPECT_THAT(message, StartsWith("my.json: /syscalls/1/")) << errno_ret;
    EXPECT_THAT(message, HasSubstr("errnoRet")) << errno_ret;
  }
}

TEST(SeccompProfileErrorTest, ArgumentIndexSeven) {
  std::string message = parse_error(with_rule(R"({"names": ["ioctl"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 1, "value": 5, "op": "SCMP_CMP_EQ"},
               {"index": 7, "value": 5, "op": "SCMP_CMP_EQ"}]})"));
  EXPECT_THAT(message, StartsWith("my.json: /syscalls/0/args/1/index: "));
  EXPECT_THAT(message, HasSubstr("0 to 5"));
}

TEST(SeccompProfileErrorTest, ArgumentIndexSixAndNegative) {
  for (const char* index : {"6", "-1", "1.5", "\"0\""}) {
    std::string message = parse_error(
        with_rule(R"({"names": ["ioctl"], "action": "SCMP_ACT_ALLOW", "args": [{"index": )" +
                  std::string(index) + R"(, "value": 5, "op": "SCMP_CMP_EQ"}]})"));
    EXPECT_THAT(message, StartsWith("my.json: /syscalls/0/args/0/index: ")) << index;
  }
}

// 2^32 + 1 must not be read as argument 1 by truncation to 32 bits.
TEST(SeccompProfileErrorTest, ArgumentIndexBeyond32Bits) {
  std::string message = parse_error(with_rule(
      R"({"names": ["ioctl"], "action": "SCMP_ACT_ALLOW",
          "args": [{"index": 4294967297, "value": 5, "op": "SCMP_CMP_EQ"}]})"));
  EXPECT_THAT(message, StartsWith("my.json: /syscalls/0/args/0/index: "));
}

TEST(SeccompProfileErrorTest, NegativeOrMissingValue) {
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 0, "value": -9, "op": "SCMP_CMP_EQ"}]})")),
              StartsWith("my.json: /syscalls/0/args/0/value: "));
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 0, "op": "SCMP_CMP_EQ"}]})")),
              StartsWith("my.json: /syscalls/0/args/0/value: "));
}

TEST(SeccompProfileErrorTest, NegativeValueTwo) {
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 0, "value": 3, "valueTwo": -1, "op": "SCMP_CMP_MASKED_EQ"}]})")),
              StartsWith("my.json: /syscalls/0/args/0/valueTwo: "));
}

TEST(SeccompProfileErrorTest, UnknownOrMissingComparison) {
  std::string message = parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 0, "value": 3, "op": "SCMP_CMP_APPROX"}]})"));
  EXPECT_THAT(message, StartsWith("my.json: /syscalls/0/args/0/op: "));
  EXPECT_THAT(message, HasSubstr("SCMP_CMP_APPROX"));
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 0, "value": 3}]})")),
              StartsWith("my.json: /syscalls/0/args/0/op: is missing"));
}

TEST(SeccompProfileErrorTest, ArgsThatAreNotAList) {
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": {"index": 0}})")),
              StartsWith("my.json: /syscalls/0/args: "));
  EXPECT_THAT(parse_error(with_rule(R"({"names": ["kill"], "action": "SCMP_ACT_ALLOW",
      "args": [3]})")),
              StartsWith("my.json: /syscalls/0/args/0: "));
}

TEST(SeccompProfileErrorTest, BadNames) {
  EXPECT_THAT(parse_error(with_rule(R"({"names": [], "action": "SCMP_ACT_ALLOW"})")),
              StartsWith("my.json: /syscalls/0/names: "));
  EXPECT_THAT(parse_error(with_rule(R"({"action": "SCMP_ACT_ALLOW"})")),
              StartsWith("my.json: /syscalls/0/names: "));
  EXPECT_THAT(
      parse_error(with_rule(R"({"names": ["read", "write", 3], "action": "SCMP_ACT_ALLOW"})")),
      StartsWith("my.json: /syscalls/0/names/2: "));
}

TEST(SeccompProfileErrorTest, BadSyscallsList) {
  EXPECT_THAT(parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": {}})"),
              StartsWith("my.json: /syscalls: must be a list"));
  EXPECT_THAT(parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
      {"names": ["read"], "action": "SCMP_ACT_ALLOW"}, "write"]})"),
              StartsWith("my.json: /syscalls/1: must be an object"));
}

// A typo must not hide in a rule that happens not to apply on this machine.
TEST(SeccompProfileErrorTest, RulesThatDoNotApplyAreStillChecked) {
  std::string message = parse_error(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
      {"names": ["read"], "action": "SCMP_ACT_ALLOW"},
      {"names": ["swapcontext"], "action": "SCMP_ACT_ALOW", "includes": {"arches": ["ppc64le"]}}]})");
  EXPECT_THAT(message, StartsWith("my.json: /syscalls/1/action: "));
}

TEST(SeccompProfileErrorTest, LoadProfileFileNamesThePath) {
  std::string dir = ::testing::TempDir();
  std::string path = dir + "/paddock-seccomp-profile-test-" + std::to_string(getpid()) + ".json";
  {
    std::ofstream out(path);
    out << R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": 7}]})";
  }
  auto profile = seccomp::load_profile_file(path);
  std::remove(path.c_str());
  ASSERT_FALSE(profile.ok());
  EXPECT_THAT(profile.error().message, StartsWith(path + ": /syscalls/0/action: "));

  auto missing = seccomp::load_profile_file(path);  // removed just above
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr(path));
}

// --- Docker's includes/excludes, for a process without capabilities. ---

TEST(SeccompProfileIncludesTest, RulesThatNeedACapabilityAreDropped) {
  EXPECT_TRUE(applying(R"({"names": ["mount"], "action": "SCMP_ACT_ALLOW",
                           "includes": {"caps": ["CAP_SYS_ADMIN"]}})")
                  .empty());
  EXPECT_TRUE(applying(R"({"names": ["bpf"], "action": "SCMP_ACT_ALLOW",
                           "includes": {"caps": ["CAP_BPF", "CAP_SYS_ADMIN"]}})")
                  .empty());
}

TEST(SeccompProfileIncludesTest, EmptyCapsListDoesNotDrop) {
  EXPECT_EQ(
      applying(R"({"names": ["read"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": []}})"),
      (std::vector<std::string>{"read"}));
}

// excludes.caps means "unless the process has these", and it has none.
TEST(SeccompProfileIncludesTest, RulesExcludedForACapabilityStay) {
  EXPECT_EQ(applying(R"({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38,
                         "excludes": {"caps": ["CAP_SYS_ADMIN"]}})"),
            (std::vector<std::string>{"clone3"}));
}

TEST(SeccompProfileIncludesTest, IncludedArches) {
  const std::string entry = R"({"names": ["set_tls"], "action": "SCMP_ACT_ALLOW",
                                "includes": {"arches": ["arm", "arm64"]}})";
  EXPECT_TRUE(applying(entry, kAmd64).empty());
  EXPECT_EQ(applying(entry, {"arm64", 6, 8}), (std::vector<std::string>{"set_tls"}));
}

TEST(SeccompProfileIncludesTest, ExcludedArches) {
  const std::string entry = R"({"names": ["clone"], "action": "SCMP_ACT_ALLOW",
                                "excludes": {"arches": ["s390", "s390x"]}})";
  EXPECT_EQ(applying(entry, kAmd64), (std::vector<std::string>{"clone"}));
  EXPECT_TRUE(applying(entry, {"s390x", 6, 8}).empty());
}

TEST(SeccompProfileIncludesTest, MinKernelComparesVersionsNumerically) {
  const std::string entry = R"({"names": ["ptrace"], "action": "SCMP_ACT_ALLOW",
                                "includes": {"minKernel": "4.8"}})";
  struct Case {
    int major, minor;
    bool applies;
  };
  for (const Case& c : {Case{3, 19, false}, Case{4, 7, false}, Case{4, 8, true}, Case{4, 10, true},
                        Case{5, 0, true}, Case{6, 8, true}}) {
    seccomp::Platform platform{"amd64", c.major, c.minor};
    EXPECT_EQ(applying(entry, platform).size(), c.applies ? 1u : 0u)
        << "kernel " << c.major << "." << c.minor;
  }
  const std::string two_digit_minor = R"({"names": ["x"], "action": "SCMP_ACT_ALLOW",
                                          "includes": {"minKernel": "5.10"}})";
  EXPECT_TRUE(applying(two_digit_minor, {"amd64", 5, 9}).empty());
  EXPECT_EQ(applying(two_digit_minor, {"amd64", 5, 10}).size(), 1u);
}

TEST(SeccompProfileIncludesTest, AllIncludesMustHold) {
  const std::string entry = R"({"names": ["x"], "action": "SCMP_ACT_ALLOW",
                                "includes": {"arches": ["amd64"], "minKernel": "5.4"}})";
  EXPECT_EQ(applying(entry, {"amd64", 5, 4}).size(), 1u);
  EXPECT_TRUE(applying(entry, {"amd64", 5, 3}).empty());
  EXPECT_TRUE(applying(entry, {"arm64", 5, 4}).empty());
}

TEST(SeccompProfileIncludesTest, KeepsProfileOrderOfApplyingRules) {
  auto profile = seccomp::parse_profile(R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
      {"names": ["a"], "action": "SCMP_ACT_ALLOW"},
      {"names": ["b"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_BOOT"]}},
      {"names": ["c"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["amd64"]}},
      {"names": ["d"], "action": "SCMP_ACT_ALLOW", "excludes": {"arches": ["amd64"]}},
      {"names": ["e"], "action": "SCMP_ACT_ALLOW"}]})",
                                        "p.json", kAmd64);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(rule_names(*profile), (std::vector<std::string>{"a", "c", "e"}));
}

// --- The built-in profile. ---

TEST(SeccompProfileTest, ThisPlatformDescribesTheRunningMachine) {
  seccomp::Platform platform = seccomp::this_platform();
#if defined(__x86_64__)
  EXPECT_EQ(platform.docker_arch, "amd64");
#elif defined(__aarch64__)
  EXPECT_EQ(platform.docker_arch, "arm64");
#endif
  EXPECT_GE(platform.kernel_major, 3);  // the sandbox needs far newer kernels than 3.x anyway
}

TEST(SeccompProfileTest, DefaultProfileDeniesByDefaultWithEperm) {
  auto profile = seccomp::default_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->default_action, (Action{Action::Kind::kErrno, EPERM}));
  std::vector<std::string> names = rule_names(*profile);
  EXPECT_THAT(names, ::testing::Contains("read"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("ptrace")));
}

}  // namespace
}  // namespace seccomp_profile_test
