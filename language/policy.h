#pragma once

// A language policy: how code in one language is written to disk, compiled and run, with which
// environment, limits and network, and how its libraries are installed. Data from
// policies/<language>.json (schema: policies/schema.json); this is its parsed, checked form.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "language/screening.h"
#include "language/screening_regex.h"
#include "runtime/limit_overrides.h"
#include "runtime/live_kernel.h"
#include "runtime/sandbox_parts.h"

namespace paddock::language {

// A file of the host's /usr a language needs, and the Debian package that brings it
// (language/toolchain_check.h). A program must be an executable file; any other file must exist.
struct Requirement {
  std::string path;  // absolute, as the sandbox sees it (the host's own with rootfs host)
  bool program = false;
  std::string package;
};

// What a language needs, by what for: running at all, library installs, its preinstalled
// libraries, live sessions (its kernel).
struct Requirements {
  std::vector<Requirement> run;
  std::vector<Requirement> install;
  std::vector<Requirement> libraries;
  std::vector<Requirement> kernel;
};

struct LanguagePolicy {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::string source_file;           // relative to the work directory; may hold {class}
  std::vector<std::string> compile;  // empty: nothing to compile
  std::vector<std::string> run;      // placeholders {file} and {class}
  std::map<std::string, std::string> env;
  runtime::LimitOverrides limits;
  runtime::NetworkMode run_network = runtime::NetworkMode::kNone;
  std::string install_network = "none";  // "none", "allowlist", "user" or "host"
  // Egress allowlists (net/egress/host_pattern.h): the program's (network.allow), and the
  // installer's package index (network.install_allow, with install "allowlist").
  std::vector<std::string> run_allow;
  std::vector<std::string> install_allow;
  // A mirror the operator names in paddock's environment (`mirror_variable`, a URL): it becomes
  // the installer's `mirror_env`, and install_allow the mirror's host alone.
  std::string mirror_variable;
  std::string mirror_env;
  std::vector<std::string> install;  // placeholder {libraries}
  // The installer's whole environment, over paddock's defaults with HOME=/nonexistent: nothing
  // of `env` (the program's), nor of the caller's, reaches it.
  std::map<std::string, std::string> install_env;
  // What a library name must match, whole, and what it must not (an archive's name, which a
  // registry name may look like): RE2, in time linear in the name. `library_hint` says so to
  // the caller.
  std::string library_pattern;
  std::optional<ScreeningRegex> library_regex;
  std::optional<ScreeningRegex> library_refused;
  std::string library_hint;
  std::string package_manager;  // what `install` uses, for people: "pip", "npm"
  // Libraries there already, as the package manager names them (scikit-learn, ggplot2): a
  // request to install one as it is named here installs nothing.
  std::vector<std::string> preinstalled;
  std::vector<std::string> version_command;  // prints the toolchain's version
  std::string example;                       // a short program that shows the language works
  std::string seccomp_profile = "default";
  std::vector<std::string> seccomp_allow;  // added to the profile: loosens it, so reviewed
  std::vector<std::string> seccomp_deny;   // removed from it
  std::string rootfs = "host";             // or "image:REF"
  // Files paddock adds to the work directory (path there -> a built-in support file, e.g. the
  // plot-capture hook), and work-directory subdirectories returned as artifacts.
  std::map<std::string, std::string> support_files;
  std::vector<std::string> collect;
  nlohmann::json screening;  // as written; screening_rules is its checked form
  Screening screening_rules;
  nlohmann::json syntax;  // as written; source_syntax is its checked form (syntax.h)
  LanguageSyntax source_syntax;
  // Host /etc entries the language's programs need (SandboxShape::host_etc).
  std::vector<std::string> host_etc;
  // Where `source_file` or the commands hold {class}: the name the code gives itself, as group 1
  // of `class_regex` finds it in the code without comments (Java's public class), else
  // `class_default`. An RE2 pattern, like the screening rules': it searches the caller's code.
  std::optional<ScreeningRegex> class_regex;
  std::string class_default = "Main";
  // The Jupyter kernel that keeps a session's state between calls (runtime/live_kernel.h); no
  // name: sessions of the language run each call as a new process.
  runtime::KernelConfig kernel;
  // The files of the root it needs, each with the package that brings it (policies' "requires").
  Requirements requires_files;
  // Warm interpreters for fresh calls (runtime/warm_interpreter.h); no loader: the language's
  // warm sandboxes hold none, and its calls start their program when they come.
  struct Warm {
    std::string loader;                // a support file, e.g. python/warm_start.py
    std::vector<std::string> preload;  // modules imported before the call comes
    // Top-level modules whose import sends a call to an interpreter that preloaded; other calls
    // take one that preloaded nothing (cheaper to end, and imports nothing they did not ask
    // for). Empty: the top-level names of `preload`.
    std::vector<std::string> preload_when;
    std::vector<std::string> startup_env;  // NAME or PREFIX*: a call that sets one runs cold
    // The call's streams are the interpreter's from its start (a language that cannot take
    // descriptors, runtime/warm_interpreter.h), not handed over with the call.
    bool streams_from_start = false;
    bool call_on_pipes = false;          // "channel": "pipes" (runtime/warm_interpreter.h)
    std::vector<std::string> start_env;  // "K=V" only the waiting interpreter starts with
  } warm;
  std::string origin;  // the file(s) it was read from, for messages
};

// Whether `library`, as a caller names it, is one of the policy's preinstalled ones: compared as
// package indexes compare names (case, and runs of - _ . alike: scikit_learn is scikit-learn).
// A version or extras ("numpy==2.0") is a request to install, not this.
bool is_preinstalled(const LanguagePolicy& policy, const std::string& library);

// A variable of paddock's own environment by name, as the command line reads it (nullopt when
// unset): where a policy's install mirror is looked up. Empty: no mirrors.
using VariableLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Checks and converts one (already merged) policy document. Errors name `origin` and the JSON
// pointer of what is wrong: "python.json: /limits/memory: '12 parsecs' is not a size".
core::Result<LanguagePolicy> parse_policy(const nlohmann::json& document, std::string_view origin,
                                          const VariableLookup& variables = {});

}  // namespace paddock::language
