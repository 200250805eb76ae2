#include "runtime/native/seccomp/seccomp_profile.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <seccomp.h>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "embedded_policies.h"

namespace paddock::seccomp {
namespace {

using nlohmann::json;

core::Error at(std::string_view origin, const std::string& pointer, const std::string& what) {
  return core::invalid_input(std::string(origin) + ": " + (pointer.empty() ? "/" : pointer) + ": " +
                             what);
}

// `pointer` names the action field; `errno_pointer` the field that holds its errno.
core::Result<Action> parse_action(const json& name, const json* errno_ret, std::string_view origin,
                                  const std::string& pointer, const std::string& errno_pointer) {
  static const std::map<std::string, Action::Kind> kActions = {
      {"SCMP_ACT_ALLOW", Action::Kind::kAllow},
      {"SCMP_ACT_ERRNO", Action::Kind::kErrno},
      {"SCMP_ACT_KILL", Action::Kind::kKillThread},
      {"SCMP_ACT_KILL_THREAD", Action::Kind::kKillThread},
      {"SCMP_ACT_KILL_PROCESS", Action::Kind::kKillProcess},
      {"SCMP_ACT_TRAP", Action::Kind::kTrap},
      {"SCMP_ACT_LOG", Action::Kind::kLog},
  };
  if (!name.is_string()) return at(origin, pointer, "must be a string such as \"SCMP_ACT_ALLOW\"");
  auto found = kActions.find(name.get<std::string>());
  if (found == kActions.end()) {
    return at(origin, pointer,
              "unknown action \"" + name.get<std::string>() +
                  "\" (expected SCMP_ACT_ALLOW, SCMP_ACT_ERRNO, SCMP_ACT_KILL_PROCESS, "
                  "SCMP_ACT_KILL_THREAD, SCMP_ACT_TRAP or SCMP_ACT_LOG)");
  }
  Action action{found->second, 1};
  if (errno_ret != nullptr) {
    if (!errno_ret->is_number_unsigned() || errno_ret->get<std::uint64_t>() > 4095) {
      return at(origin, errno_pointer, "must be an errno number from 0 to 4095");
    }
    action.errno_value = errno_ret->get<int>();
  }
  return action;
}

core::Result<CompareOp> parse_op(const json& op, std::string_view origin,
                                 const std::string& pointer) {
  static const std::map<std::string, CompareOp> kOps = {
      {"SCMP_CMP_NE", CompareOp::kNotEqual},           {"SCMP_CMP_LT", CompareOp::kLess},
      {"SCMP_CMP_LE", CompareOp::kLessOrEqual},        {"SCMP_CMP_EQ", CompareOp::kEqual},
      {"SCMP_CMP_GE", CompareOp::kGreaterOrEqual},     {"SCMP_CMP_GT", CompareOp::kGreater},
      {"SCMP_CMP_MASKED_EQ", CompareOp::kMaskedEqual},
  };
  if (op.is_string()) {
    auto found = kOps.find(op.get<std::string>());
    if (found != kOps.end()) return found->second;
  }
  return at(origin, pointer, "unknown comparison " + op.dump() + " (expected SCMP_CMP_EQ, ...)");
}

core::Result<ArgCondition> parse_arg(const json& arg, std::string_view origin,
                                     const std::string& pointer) {
  if (!arg.is_object()) return at(origin, pointer, "must be an object");
  auto index = arg.find("index");
  if (index == arg.end() || !index->is_number_unsigned() || index->get<std::uint64_t>() > 5) {
    return at(origin, pointer + "/index", "must be an argument number from 0 to 5");
  }
  auto value = arg.find("value");
  if (value == arg.end() || !value->is_number_unsigned()) {
    return at(origin, pointer + "/value", "must be a non-negative integer");
  }
  ArgCondition condition{index->get<unsigned>(), CompareOp::kEqual, value->get<std::uint64_t>(), 0};
  if (auto two = arg.find("valueTwo"); two != arg.end()) {
    if (!two->is_number_unsigned()) {
      return at(origin, pointer + "/valueTwo", "must be a non-negative integer");
    }
    condition.value_two = two->get<std::uint64_t>();
  }
  auto op = arg.find("op");
  if (op == arg.end()) return at(origin, pointer + "/op", "is missing");
  auto parsed = parse_op(*op, origin, pointer + "/op");
  if (!parsed) return parsed.error();
  condition.op = *parsed;
  return condition;
}

bool kernel_at_least(const Platform& platform, const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) < 1) return false;
  return platform.kernel_major > major ||
         (platform.kernel_major == major && platform.kernel_minor >= minor);
}

bool contains(const json& list, const std::string& value) {
  if (!list.is_array()) return false;
  for (const auto& item : list) {
    if (item.is_string() && item.get<std::string>() == value) return true;
  }
  return false;
}

// Docker's includes/excludes, for a sandboxed process that holds no capability at all.
bool applies_here(const json& rule, const Platform& platform) {
  if (auto includes = rule.find("includes"); includes != rule.end() && includes->is_object()) {
    if (auto caps = includes->find("caps"); caps != includes->end() && !caps->empty()) {
      return false;  // granted only with a capability paddock never grants
    }
    if (auto arches = includes->find("arches");
        arches != includes->end() && !contains(*arches, platform.docker_arch)) {
      return false;
    }
    if (auto min = includes->find("minKernel");
        min != includes->end() && min->is_string() && !kernel_at_least(platform, *min)) {
      return false;
    }
  }
  if (auto excludes = rule.find("excludes"); excludes != rule.end() && excludes->is_object()) {
    if (auto arches = excludes->find("arches");
        arches != excludes->end() && contains(*arches, platform.docker_arch)) {
      return false;
    }
    // excludes.caps: the rule is for processes without those capabilities, which is us.
  }
  return true;
}

core::Result<Rule> parse_rule(const json& entry, std::string_view origin,
                              const std::string& pointer) {
  Rule rule;
  auto names = entry.find("names");
  if (names == entry.end() || !names->is_array() || names->empty()) {
    auto name = entry.find("name");  // the older single-name form
    if (name == entry.end() || !name->is_string()) {
      return at(origin, pointer + "/names", "must be a non-empty list of system call names");
    }
    rule.names.push_back(name->get<std::string>());
  } else {
    for (std::size_t i = 0; i < names->size(); ++i) {
      if (!(*names)[i].is_string()) {
        return at(origin, pointer + "/names/" + std::to_string(i), "must be a string");
      }
      rule.names.push_back((*names)[i].get<std::string>());
    }
  }
  auto action = entry.find("action");
  if (action == entry.end()) return at(origin, pointer + "/action", "is missing");
  auto errno_ret = entry.find("errnoRet");
  auto parsed = parse_action(*action, errno_ret == entry.end() ? nullptr : &*errno_ret, origin,
                             pointer + "/action", pointer + "/errnoRet");
  if (!parsed) return parsed.error();
  rule.action = *parsed;
  if (auto args = entry.find("args"); args != entry.end() && !args->is_null()) {
    if (!args->is_array()) return at(origin, pointer + "/args", "must be a list");
    for (std::size_t i = 0; i < args->size(); ++i) {
      auto arg = parse_arg((*args)[i], origin, pointer + "/args/" + std::to_string(i));
      if (!arg) return arg.error();
      rule.args.push_back(*arg);
    }
  }
  return rule;
}

}  // namespace

void apply_changes(Profile& profile, const std::vector<std::string>& allow,
                   const std::vector<std::string>& deny) {
  for (auto& rule : profile.rules) {
    std::erase_if(rule.names, [&](const std::string& name) {
      return std::find(deny.begin(), deny.end(), name) != deny.end();
    });
  }
  std::erase_if(profile.rules, [](const Rule& rule) { return rule.names.empty(); });
  std::vector<std::string> allowed;
  for (const auto& name : allow) {
    if (std::find(deny.begin(), deny.end(), name) == deny.end()) allowed.push_back(name);
  }
  if (!allowed.empty()) profile.rules.push_back(Rule{allowed, Action{Action::Kind::kAllow, 0}, {}});
}

void refuse_set_id_bits(Profile& profile) {
  constexpr std::uint64_t kSetIdBits = S_ISUID | S_ISGID;
  // O_CREAT, or O_TMPFILE (without the O_DIRECTORY bit it shares with plain directory opens).
  constexpr std::uint64_t kCreates = O_CREAT | (O_TMPFILE & ~O_DIRECTORY);
  auto without = [](unsigned index, std::uint64_t bits) {
    return ArgCondition{index, CompareOp::kMaskedEqual, bits, 0};
  };
  // name -> the argument that holds the mode; for the open calls, the one before holds flags.
  static const std::pair<const char*, unsigned> kModeSetters[] = {
      {"chmod", 1}, {"fchmod", 1},  {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1},
      {"mknod", 1}, {"mknodat", 2}, {"open", 2},     {"openat", 3}};
  std::vector<std::string> names;
  for (const auto& [name, mode] : kModeSetters) names.emplace_back(name);
  names.emplace_back("openat2");
  apply_changes(profile, {}, names);
  const Action allow{Action::Kind::kAllow, 0};
  for (const auto& [name, mode] : kModeSetters) {
    profile.rules.push_back(Rule{{name}, allow, {without(mode, kSetIdBits)}});
    bool opens = std::string_view(name) == "open" || std::string_view(name) == "openat";
    if (opens) profile.rules.push_back(Rule{{name}, allow, {without(mode - 1, kCreates)}});
  }
  profile.rules.push_back(Rule{{"openat2"}, Action{Action::Kind::kErrno, ENOSYS}, {}});
}

Platform this_platform() {
  Platform platform;
#if defined(__x86_64__)
  platform.docker_arch = "amd64";
#elif defined(__aarch64__)
  platform.docker_arch = "arm64";
#else
  platform.docker_arch = "unknown";
#endif
  utsname name{};
  if (uname(&name) == 0) {
    std::sscanf(name.release, "%d.%d", &platform.kernel_major, &platform.kernel_minor);
  }
  return platform;
}

core::Result<Profile> parse_profile(std::string_view json_text, std::string_view origin,
                                    const Platform& platform) {
  auto parsed = core::parse_json_text(json_text, origin);
  if (!parsed) return parsed.error();
  json document = std::move(*parsed);
  if (!document.is_object()) return at(origin, "", "must be a JSON object");
  Profile profile;
  auto default_action = document.find("defaultAction");
  if (default_action == document.end()) return at(origin, "/defaultAction", "is missing");
  auto errno_ret = document.find("defaultErrnoRet");
  auto parsed_default =
      parse_action(*default_action, errno_ret == document.end() ? nullptr : &*errno_ret, origin,
                   "/defaultAction", "/defaultErrnoRet");
  if (!parsed_default) return parsed_default.error();
  profile.default_action = *parsed_default;
  if (auto quiet = document.find("quietRefusals"); quiet != document.end()) {
    if (!quiet->is_array()) return at(origin, "/quietRefusals", "must be a list of names");
    for (std::size_t i = 0; i < quiet->size(); ++i) {
      const json& name = (*quiet)[i];
      if (!name.is_string()) return at(origin, "/quietRefusals", "must be a list of names");
      // A misspelt name would quiet nothing, and say nothing of it.
      int number = seccomp_syscall_resolve_name(name.get<std::string>().c_str());
      if (number == __NR_SCMP_ERROR || number < 0) {
        return at(origin, "/quietRefusals/" + std::to_string(i),
                  "'" + name.get<std::string>() + "' is not a system call libseccomp knows");
      }
      profile.quiet_refusals.push_back(name.get<std::string>());
    }
  }

  auto syscalls = document.find("syscalls");
  if (syscalls == document.end() || syscalls->is_null()) return profile;
  if (!syscalls->is_array()) return at(origin, "/syscalls", "must be a list");
  for (std::size_t i = 0; i < syscalls->size(); ++i) {
    const json& entry = (*syscalls)[i];
    std::string pointer = "/syscalls/" + std::to_string(i);
    if (!entry.is_object()) return at(origin, pointer, "must be an object");
    auto rule = parse_rule(entry, origin, pointer);
    if (!rule) return rule.error();  // every entry is checked, even those that do not apply
    if (applies_here(entry, platform)) profile.rules.push_back(std::move(*rule));
  }
  return profile;
}

core::Result<Profile> default_profile() {
  return parse_profile(policies::default_seccomp_profile_json(), "built-in seccomp profile",
                       this_platform());
}

core::Result<Profile> load_profile_file(const std::string& path) {
  auto text = core::read_text_file(path, "seccomp profile");
  if (!text) return text.error();
  return parse_profile(*text, path, this_platform());
}

}  // namespace paddock::seccomp
