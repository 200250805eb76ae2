#include "language/policy.h"

#include <cctype>
#include <cstdlib>

#include "core/units.h"
#include "language/builtin_policies.h"
#include "language/policy_schema.h"
#include "net/egress/host_pattern.h"

namespace paddock::language {
namespace {

using nlohmann::json;

// Reads a policy that passed policies/schema.json (policy_schema.h): every field has its
// declared type, so this only fills the LanguagePolicy in and checks what a schema cannot say
// (that a regex compiles, that a path stays in the work directory), remembering the first
// problem with its JSON pointer.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] core::Error error() const { return *error_; }

  void fail(const std::string& pointer, const std::string& what) {
    if (!error_) error_ = core::invalid_input(std::string(origin_) + ": " + pointer + ": " + what);
  }

  static const json* find(const json& object, const std::string& key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  static std::string string(const json& object, const std::string& key, std::string fallback = "") {
    const json* value = find(object, key);
    return value == nullptr ? fallback : value->get<std::string>();
  }

  static std::vector<std::string> strings(const json& object, const std::string& key) {
    const json* value = find(object, key);
    return value == nullptr ? std::vector<std::string>{} : value->get<std::vector<std::string>>();
  }

  // A limit as a number, or from its text form ("512m", "30s") through `parse`.
  template <typename T, typename Parse>
  std::optional<T> limit(const json& limits, const std::string& key, const char* example,
                         Parse parse) {
    const json* value = find(limits, key);
    if (value == nullptr) return std::nullopt;
    std::optional<double> parsed;
    if (value->is_number()) {
      parsed = value->get<double>();
    } else if (value->is_string()) {
      auto from_text = parse(value->get<std::string>());
      if (from_text) parsed = static_cast<double>(*from_text);
    }
    if (!parsed || *parsed < 0) {
      fail("/limits/" + key, value->dump() + " is not valid; use e.g. " + example);
      return std::nullopt;
    }
    return static_cast<T>(*parsed);
  }

 private:
  std::string_view origin_;
  std::optional<core::Error> error_;
};

std::optional<std::uint64_t> count(std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

void read_limits(Reader& reader, const json& document, runtime::LimitOverrides& limits) {
  const json* object = Reader::find(document, "limits");
  if (object == nullptr) return;
  limits.wall_seconds = reader.limit<double>(*object, "timeout", "\"30s\"", core::parse_seconds);
  limits.cpu_seconds = reader.limit<double>(*object, "cpu_time", "\"60\"", core::parse_seconds);
  limits.cpus = reader.limit<double>(*object, "cpus", "1 or 0.5", core::parse_decimal);
  limits.memory_bytes =
      reader.limit<std::uint64_t>(*object, "memory", "\"512m\"", core::parse_size);
  limits.pids = reader.limit<std::uint32_t>(*object, "pids", "128", count);
  limits.output_bytes = reader.limit<std::uint64_t>(*object, "output", "\"1m\"", core::parse_size);
  limits.file_size_bytes =
      reader.limit<std::uint64_t>(*object, "file_size", "\"256m\"", core::parse_size);
  limits.tmp_bytes = reader.limit<std::uint64_t>(*object, "tmp", "\"64m\"", core::parse_size);
  limits.work_bytes = reader.limit<std::uint64_t>(*object, "work", "\"256m\"", core::parse_size);
  // "0s" has the form of a time: the schema cannot see that it is none.
  if (limits.wall_seconds && *limits.wall_seconds <= 0)
    reader.fail("/limits/timeout", "must be above 0");
}

void read_network(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "network");
  if (object == nullptr) return;
  policy.run_network = Reader::string(*object, "run", "none") == "host"
                           ? runtime::NetworkMode::kHost
                           : runtime::NetworkMode::kNone;
  policy.install_network = Reader::string(*object, "install", "none");
  auto patterns = [&](const char* key) {
    auto list = Reader::strings(*object, key);
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (auto parsed = net::egress::parse_host_pattern(list[i]); !parsed) {
        reader.fail("/network/" + std::string(key) + "/" + std::to_string(i),
                    parsed.error().message);
      }
    }
    return list;
  };
  policy.run_allow = patterns("allow");
  if (!policy.run_allow.empty() && policy.run_network != runtime::NetworkMode::kNone) {
    reader.fail("/network/allow", "an allowlist needs network.run none");
  }
  policy.install_allow = patterns("install_allow");
  if (policy.install_network == "allowlist" && policy.install_allow.empty()) {
    reader.fail("/network/install_allow", "must name the package index's hosts");
  }
  if (const json* mirror = Reader::find(*object, "install_mirror")) {
    policy.mirror_variable = Reader::string(*mirror, "variable");
    policy.mirror_env = Reader::string(*mirror, "env");
  }
}

// A mirror named in paddock's own environment (PADDOCK_PIP_INDEX_URL...): the installer is
// pointed at it, and its allowlist becomes the mirror's host alone.
core::Status apply_install_mirror(LanguagePolicy& policy, const VariableLookup& variables) {
  if (policy.mirror_variable.empty() || !variables) return {};
  auto url = variables(policy.mirror_variable);
  if (!url) return {};
  auto pattern = net::egress::url_host_pattern(*url);
  if (!pattern) return pattern.error().context(policy.mirror_variable);
  policy.install_env[policy.mirror_env] = *url;
  policy.install_allow = {*pattern};
  return {};
}

void read_env(const json& document, const std::string& field,
              std::map<std::string, std::string>& env) {
  if (const json* object = Reader::find(document, field)) {
    for (const auto& [key, value] : object->items()) env[key] = value.get<std::string>();
  }
}

// An installer takes registry names only: without a pattern for them it takes none.
void read_library_names(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "library_names");
  if (object == nullptr) {
    if (!policy.install.empty()) {
      reader.fail("/library_names",
                  "is missing: a policy with an installer must say which "
                  "library names it takes ({\"pattern\", \"hint\"})");
    }
    return;
  }
  policy.library_pattern = Reader::string(*object, "pattern");
  policy.library_hint = Reader::string(*object, "hint");
  std::string refuse = Reader::string(*object, "refuse");
  auto compiled = ScreeningRegex::compile(policy.library_pattern);
  if (!compiled) {
    bool lookaround = policy.library_pattern.find("(?!") != std::string::npos ||
                      policy.library_pattern.find("(?=") != std::string::npos;
    reader.fail("/library_names/pattern",
                compiled.error().message +
                    (lookaround ? ": RE2 has no lookahead; put the names it would exclude in "
                                  "library_names/refuse"
                                : ""));
  } else if (compiled->matches_whole("")) {
    reader.fail("/library_names/pattern", "must not match an empty name");
  } else {
    policy.library_regex = std::move(*compiled);
  }
  if (!refuse.empty()) {
    auto refused = ScreeningRegex::compile(refuse);
    if (!refused) {
      reader.fail("/library_names/refuse", refused.error().message);
    } else {
      policy.library_refused = std::move(*refused);
    }
  }
}

bool inside_work_directory(const std::string& path) {
  return !path.empty() && path[0] != '/' && path.find("..") == std::string::npos;
}

void read_support_files(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "support_files");
  if (object == nullptr) return;
  for (const auto& [path, name] : object->items()) {
    std::string pointer = "/support_files/" + path;
    if (!inside_work_directory(path))
      reader.fail(pointer, "must be a path inside the work directory");
    if (builtin_support_file(name.get<std::string>()) == nullptr) {
      reader.fail(pointer,
                  name.dump() + " is not a support file paddock ships (see policies/support)");
      continue;
    }
    policy.support_files[path] = name.get<std::string>();
  }
}

void read_collect(Reader& reader, const json& document, LanguagePolicy& policy) {
  policy.collect = Reader::strings(document, "collect");
  for (std::size_t i = 0; i < policy.collect.size(); ++i) {
    if (!inside_work_directory(policy.collect[i])) {
      reader.fail("/collect/" + std::to_string(i), "must be a directory inside the work directory");
    }
  }
}

void read_class_name(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "class_name");
  if (object == nullptr) return;
  std::string pattern = Reader::string(*object, "pattern");
  policy.class_default = Reader::string(*object, "default", "Main");
  if (pattern.empty()) return;  // names nothing: the default it is
  auto compiled = ScreeningRegex::compile(pattern);
  if (!compiled) {
    reader.fail("/class_name/pattern", compiled.error().message);
  } else if (compiled->group_count() < 1) {
    reader.fail("/class_name/pattern", "needs a group, (...), around the name");
  } else {
    policy.class_regex = std::move(*compiled);
  }
}

// "kernel": {"name", "env", "unset_env", "startup", "after_install", "grace"}.
void read_kernel(const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "kernel");
  if (object == nullptr) return;
  runtime::KernelConfig& kernel = policy.kernel;
  kernel.name = Reader::string(*object, "name");
  std::map<std::string, std::string> env;
  read_env(*object, "env", env);
  for (const auto& [key, value] : env) kernel.env.push_back(key + "=" + value);
  kernel.unset_env = Reader::strings(*object, "unset_env");
  kernel.startup = Reader::string(*object, "startup");
  kernel.after_install = Reader::string(*object, "after_install");
  if (const json* grace = Reader::find(*object, "grace"))
    kernel.grace_seconds = grace->get<double>();
}

// "requires": {"run", "install", "libraries", "kernel"}, each [{"program" or "file", "package"}].
void read_requirements(const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "requires");
  if (object == nullptr) return;
  auto group = [&](const char* key, std::vector<Requirement>& into) {
    const json* list = Reader::find(*object, key);
    if (list == nullptr) return;
    for (const auto& item : *list) {
      bool program = item.contains("program");
      into.push_back({Reader::string(item, program ? "program" : "file"), program,
                      Reader::string(item, "package")});
    }
  };
  group("run", policy.requires_files.run);
  group("install", policy.requires_files.install);
  group("libraries", policy.requires_files.libraries);
  group("kernel", policy.requires_files.kernel);
}

// "warm": {"loader", "preload", "preload_when", "startup_env", "streams", "channel", "env"}.
void read_warm(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = Reader::find(document, "warm");
  if (object == nullptr) return;
  policy.warm.loader = Reader::string(*object, "loader");
  if (!builtin_support_file(policy.warm.loader)) {
    reader.fail("/warm/loader", "is not one of paddock's support files");
  }
  policy.warm.preload = Reader::strings(*object, "preload");
  policy.warm.preload_when = Reader::strings(*object, "preload_when");
  policy.warm.startup_env = Reader::strings(*object, "startup_env");
  policy.warm.streams_from_start = Reader::string(*object, "streams") == "from_start";
  policy.warm.call_on_pipes = Reader::string(*object, "channel") == "pipes";
  if (policy.warm.call_on_pipes && !policy.warm.streams_from_start) {
    reader.fail("/warm/channel", "pipes needs \"streams\": \"from_start\"");
  }
  std::map<std::string, std::string> env;
  read_env(*object, "env", env);
  for (const auto& [key, value] : env) policy.warm.start_env.push_back(key + "=" + value);
}

}  // namespace

namespace {

std::string normalized_library_name(const std::string& name) {
  std::string normal;
  for (char c : name) {
    bool separator = c == '-' || c == '_' || c == '.';
    if (separator && !normal.empty() && normal.back() == '-') continue;
    normal += separator ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return normal;
}

}  // namespace

bool is_preinstalled(const LanguagePolicy& policy, const std::string& library) {
  std::string wanted = normalized_library_name(library);
  for (const auto& there : policy.preinstalled) {
    if (normalized_library_name(there) == wanted) return true;
  }
  return false;
}

core::Result<LanguagePolicy> parse_policy(const json& document, std::string_view origin,
                                          const VariableLookup& variables) {
  if (!document.is_object())
    return core::invalid_input(std::string(origin) + ": must be a JSON object");
  if (auto problem = policy_schema_problem(document)) {
    return core::invalid_input(std::string(origin) + ": " + *problem);
  }
  Reader reader(origin);
  LanguagePolicy policy;
  policy.origin = std::string(origin);
  policy.name = Reader::string(document, "name");
  policy.aliases = Reader::strings(document, "aliases");
  policy.description = Reader::string(document, "description");
  policy.source_file = Reader::string(document, "source_file");
  if (policy.source_file.find("..") != std::string::npos) {
    reader.fail("/source_file", "must be a file name inside the work directory");
  }
  policy.compile = Reader::strings(document, "compile");
  policy.run = Reader::strings(document, "run");
  policy.install = Reader::strings(document, "install");
  policy.version_command = Reader::strings(document, "version");
  policy.example = Reader::string(document, "example");
  policy.package_manager = Reader::string(document, "package_manager");
  read_env(document, "env", policy.env);
  read_env(document, "install_env", policy.install_env);
  read_library_names(reader, document, policy);
  policy.preinstalled = Reader::strings(document, "preinstalled");
  read_limits(reader, document, policy.limits);
  read_network(reader, document, policy);
  read_support_files(reader, document, policy);
  read_collect(reader, document, policy);
  read_kernel(document, policy);
  read_requirements(document, policy);
  read_warm(reader, document, policy);
  if (const json* seccomp = Reader::find(document, "seccomp")) {
    policy.seccomp_profile = Reader::string(*seccomp, "profile", "default");
    policy.seccomp_allow = Reader::strings(*seccomp, "allow");
    policy.seccomp_deny = Reader::strings(*seccomp, "deny");
  }
  policy.rootfs = Reader::string(document, "rootfs", "host");
  if (const json* screening = Reader::find(document, "screening")) policy.screening = *screening;
  policy.host_etc = Reader::strings(document, "host_etc");
  for (std::size_t i = 0; i < policy.host_etc.size(); ++i) {
    if (!runtime::is_host_etc_name(policy.host_etc[i])) {
      reader.fail("/host_etc/" + std::to_string(i),
                  "'" + policy.host_etc[i] +
                      "' must name one entry of /etc: not a path, a secret or a file paddock "
                      "writes itself");
    }
  }
  read_class_name(reader, document, policy);
  if (const json* syntax = Reader::find(document, "syntax")) policy.syntax = *syntax;
  if (reader.failed()) return reader.error();
  auto syntax = parse_syntax(policy.syntax, origin);
  if (!syntax) return syntax.error();
  policy.source_syntax = std::move(*syntax);
  auto screening_rules = parse_screening(policy.screening, origin);
  if (!screening_rules) return screening_rules.error();
  policy.screening_rules = std::move(*screening_rules);
  if (auto mirrored = apply_install_mirror(policy, variables); !mirrored) return mirrored.error();
  return policy;
}

}  // namespace paddock::language
