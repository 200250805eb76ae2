#include "language/language_run.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <nlohmann/json.hpp>

#include "language/builtin_policies.h"
#include "net/egress/proxy.h"

namespace paddock::language {
namespace {

std::string substitute(std::string text, const std::string& file, const std::string& class_name) {
  for (const auto& [placeholder, value] :
       {std::pair<std::string, std::string>{"{file}", file}, {"{class}", class_name}}) {
    for (auto at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size())) {
      text.replace(at, placeholder.size(), value);
    }
  }
  return text;
}

std::vector<std::string> substitute_all(const std::vector<std::string>& argv,
                                        const std::string& file, const std::string& class_name) {
  std::vector<std::string> out;
  for (const auto& arg : argv) out.push_back(substitute(arg, file, class_name));
  return out;
}

// A name as the caller wrote it, on one line: control bytes shown as \xNN.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (unsigned char c : text.substr(0, 200)) {
    if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + (text.size() > 200 ? "...'" : "'");
}

// Only names from the language's registry, with a version at most: never a path, a URL, a VCS
// spec or an option, which would make the installer fetch or run what the caller chose. The
// policy's pattern knows the language; the generic part (no leading '-', no blanks or control
// bytes) holds whatever a policy says.
core::Status check_library(const LanguagePolicy& policy, const std::string& name) {
  bool plain =
      !name.empty() && name.size() <= 200 && name[0] != '-' &&
      std::all_of(name.begin(), name.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f; });
  if (plain && policy.library_regex && policy.library_regex->matches_whole(name) &&
      !(policy.library_refused && policy.library_refused->matches_whole(name))) {
    return {};
  }
  return core::invalid_input("library " + quoted(name) + " refused: " + policy.name + " takes " +
                             policy.library_hint + " (no paths, URLs or options)");
}

// The installer runs under `env -i` with the policy's install_env: the program's environment
// (PYTHONPATH, HOME=/work, R_PROFILE_USER...) and the server's passed-through secrets never reach
// it, and no backend needs to know that a step has an environment of its own.
core::Result<std::vector<std::string>> install_command(
    const LanguagePolicy& policy, const std::vector<std::string>& libraries,
    const std::vector<std::string>& installer_env) {
  if (policy.install.empty()) {
    return core::invalid_input("language '" + policy.name +
                               "' has no library installer in its policy");
  }
  for (const auto& library : libraries) {
    if (auto checked = check_library(policy, library); !checked) return checked.error();
  }
  std::vector<std::string> env;
  // Its only way out is the sandbox's egress proxy (RunPlan::installer_allowed_hosts).
  if (policy.install_network == "allowlist") env = net::egress::proxy_env(false);
  env.push_back("HOME=/nonexistent");
  for (const auto& [name, value] : policy.install_env) env.push_back(name + "=" + value);
  env.insert(env.end(), installer_env.begin(), installer_env.end());
  std::vector<std::string> argv = {"/usr/bin/env", "-i"};
  for (auto& entry : runtime::merge_env(runtime::default_sandbox_env(), env))
    argv.push_back(std::move(entry));
  for (const auto& arg : policy.install) {
    if (arg == "{libraries}") {
      argv.insert(argv.end(), libraries.begin(), libraries.end());
    } else {
      argv.push_back(arg);
    }
  }
  return argv;
}

}  // namespace

std::string class_name_of(const LanguagePolicy& policy, const std::string& source) {
  if (!policy.class_regex) return policy.class_default;
  // So that a class named in a comment is not mistaken for the real one.
  std::string code = without_comments(source, policy.source_syntax);
  auto match = policy.class_regex->find(code, 0, 1);
  if (match.size() > 1 && match[1].matched) {
    std::string name = code.substr(match[1].begin, match[1].end - match[1].begin);
    // The name becomes a file name and a command's argument: a pattern that lets a '/', "..",
    // or a leading '-' (an option) through is the policy's mistake, and the code must not be
    // able to exploit it.
    bool plain = !name.empty() && name.size() <= 200 && name.find('/') == std::string::npos &&
                 name != "." && name != ".." && name[0] != '-' &&
                 name.find('\0') == std::string::npos;
    if (plain) return name;
  }
  return policy.class_default;
}

std::vector<std::string> language_work_files(const LanguagePolicy& policy) {
  std::vector<std::string> files{substitute(policy.source_file, "", policy.class_default)};
  for (const auto& [path, name] : policy.support_files) files.push_back(path);
  return files;
}

std::vector<std::string> language_own_folders(const LanguagePolicy& policy,
                                              const std::string& workdir) {
  std::vector<std::string> folders{workdir + "/.paddock"};
  for (const auto* env : {&policy.env, &policy.install_env}) {
    for (const auto& [name, value] : *env) {
      // A search path (PYTHONPATH) names several.
      for (std::size_t start = 0; start <= value.size();) {
        std::size_t end = std::min(value.find(':', start), value.size());
        std::string path = value.substr(start, end - start);
        while (path.size() > 1 && path.back() == '/') path.pop_back();
        if (path.starts_with(workdir + "/") &&
            std::find(folders.begin(), folders.end(), path) == folders.end()) {
          folders.push_back(std::move(path));
        }
        start = end + 1;
      }
    }
  }
  return folders;
}

core::Result<LanguageRun> language_spec(const LanguagePolicy& policy, const std::string& code,
                                        const std::vector<std::string>& program_args,
                                        const std::vector<std::string>& libraries,
                                        const std::vector<std::string>& installer_env) {
  LanguageRun run;
  runtime::SandboxShape& shape = run.shape;
  runtime::RunPlan& plan = run.plan;
  std::string class_name =
      policy.source_file.find("{class}") != std::string::npos ||
              policy.run.end() != std::find_if(policy.run.begin(), policy.run.end(),
                                               [](const std::string& arg) {
                                                 return arg.find("{class}") != std::string::npos;
                                               })
          ? class_name_of(policy, code)
          : policy.class_default;
  std::string file = substitute(policy.source_file, "", class_name);
  plan.files.push_back({file, code, 0644});
  if (!libraries.empty()) {
    // Never the open network instead of a list that is missing (an override's doing).
    if (policy.install_network == "allowlist" && policy.install_allow.empty()) {
      return core::invalid_input("language '" + policy.name +
                                 "' limits its installer to an allowlist, but its policy names no "
                                 "package index hosts (network.install_allow)");
    }
    auto install = install_command(policy, libraries, installer_env);
    if (!install) return install.error();
    plan.steps.push_back(std::move(*install));
    if (policy.install_network == "user" || policy.install_network == "allowlist") {
      plan.networked_steps = 1;
    }
  }
  // Set without libraries too: a session's later installs go through the same proxy.
  if (policy.install_network == "allowlist") plan.installer_allowed_hosts = policy.install_allow;
  shape.allowed_hosts = policy.run_allow;
  if (!policy.compile.empty()) {
    plan.steps.push_back(substitute_all(policy.compile, file, class_name));
  }
  std::vector<std::string> argv = substitute_all(policy.run, file, class_name);
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  plan.steps.push_back(std::move(argv));
  for (const auto& [name, value] : policy.env) plan.env.push_back(name + "=" + value);
  policy.limits.apply_to(run.limits);
  for (const auto& [path, name] : policy.support_files) {
    shape.support_files.push_back({path, std::string(*builtin_support_file(name)), 0644, true});
    // Its bytecode where python looks for it first (dir/__pycache__/stem.TAG.pyc): a python of
    // that tag imports it without compiling the source.
    const CompiledSupportFile* compiled = builtin_support_bytecode(name);
    if (compiled != nullptr && path.ends_with(".py")) {
      auto slash = path.rfind('/');
      std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
      std::string stem = path.substr(directory.size(), path.size() - directory.size() - 3);
      shape.support_files.push_back(
          {directory + "__pycache__/" + stem + "." + std::string(compiled->cache_tag) + ".pyc",
           std::string(compiled->bytecode), 0644, true});
    }
  }
  plan.collect.directories = policy.collect;
  shape.network = policy.run_network;
  // A host-network installer cannot be cut off before the run: the whole run gets it.
  if (!libraries.empty() && policy.install_network == "host")
    shape.network = runtime::NetworkMode::kHost;
  if (policy.seccomp_profile != "default") shape.seccomp_profile_path = policy.seccomp_profile;
  shape.seccomp_allow = policy.seccomp_allow;
  shape.seccomp_deny = policy.seccomp_deny;
  shape.host_etc = policy.host_etc;
  return run;
}

LanguageRunResult label_result(const LanguagePolicy& policy, runtime::RunResult run,
                               std::optional<ScreeningVerdict> screening, bool installed) {
  LanguageRunResult result;
  result.language = policy.name;
  // The steps are [install] [compile] run.
  int compile_step = installed ? 1 : 0;
  if (installed && run.step == 0) {
    result.phase = "install";
  } else if (!policy.compile.empty() && run.step == compile_step) {
    result.phase = "compile";
  } else {
    result.phase = "run";
  }
  result.run = std::move(run);
  if (screening && screening->mode != ScreeningMode::kOff) result.screening = std::move(screening);
  return result;
}

nlohmann::json to_json(const LanguageRunResult& result) {
  nlohmann::json json = runtime::to_json(result.run);
  json["language"] = result.language;
  json["phase"] = result.phase;
  if (result.screening) json["screening"] = to_json(*result.screening);
  return json;
}

nlohmann::json blocked_result(const LanguagePolicy& policy, const ScreeningVerdict& verdict) {
  return {{"outcome", "blocked"},
          {"exit_code", kScreeningBlockedExitCode},
          {"language", policy.name},
          {"screening", to_json(verdict)}};
}

}  // namespace paddock::language
