#include "language/policy.h"

#include <cctype>
#include <cstdlib>
#include <set>

#include "core/units.h"
#include "egress/host_pattern.h"
#include "language/builtin_policies.h"

namespace paddock {
namespace {

using nlohmann::json;

// Whether `text` is a plain name: a first character from `first` and the rest from `rest`, each
// a list of single ASCII characters and ranges ("a-z0-9_"). Checked by hand: a std::regex per
// name cost every policy load about 0.1 ms to compile, and a CLI run loads one.
bool is_plain_name(std::string_view text, std::string_view first, std::string_view rest) {
  auto in = [](char c, std::string_view set) {
    for (std::size_t i = 0; i < set.size(); ++i) {
      if (i + 2 < set.size() && set[i + 1] == '-') {
        if (c >= set[i] && c <= set[i + 2]) return true;
        i += 2;
      } else if (c == set[i]) {
        return true;
      }
    }
    return false;
  };
  if (text.empty() || !in(text[0], first)) return false;
  for (char c : text.substr(1)) {
    if (!in(c, rest)) return false;
  }
  return true;
}

// Walks a policy document, remembering the first problem with its JSON pointer.
class Reader {
 public:
  Reader(const json& document, std::string_view origin) : document_(document), origin_(origin) {}

  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] Error error() const { return *error_; }

  void fail(const std::string& pointer, const std::string& what) {
    if (!error_) error_ = invalid_input(std::string(origin_) + ": " + pointer + ": " + what);
  }

  const json* find(const json& object, const std::string& key) {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  std::string string(const json& object, const std::string& pointer, const std::string& key,
                     bool required, std::string fallback = "") {
    const json* value = find(object, key);
    if (value == nullptr) {
      if (required) fail(pointer + "/" + key, "is missing");
      return fallback;
    }
    if (!value->is_string()) {
      fail(pointer + "/" + key, "must be a string");
      return fallback;
    }
    return value->get<std::string>();
  }

  std::vector<std::string> strings(const json& object, const std::string& pointer,
                                   const std::string& key, bool required, bool non_empty) {
    std::vector<std::string> result;
    const json* value = find(object, key);
    if (value == nullptr) {
      if (required) fail(pointer + "/" + key, "is missing");
      return result;
    }
    if (!value->is_array()) {
      fail(pointer + "/" + key, "must be a list of strings");
      return result;
    }
    for (std::size_t i = 0; i < value->size(); ++i) {
      if (!(*value)[i].is_string()) {
        fail(pointer + "/" + key + "/" + std::to_string(i), "must be a string");
        return result;
      }
      result.push_back((*value)[i].get<std::string>());
    }
    if (non_empty && (result.empty() || result[0].empty())) {
      fail(pointer + "/" + key, "must name a command");
    }
    return result;
  }

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
  const json& document_;
  std::string_view origin_;
  std::optional<Error> error_;
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

void read_limits(Reader& reader, const json& document, LimitOverrides& limits) {
  const json* object = reader.find(document, "limits");
  if (object == nullptr) return;
  if (!object->is_object()) return reader.fail("/limits", "must be an object");
  static const std::set<std::string> kKnown = {"timeout", "cpu_time",  "cpus", "memory", "pids",
                                               "output",  "file_size", "tmp",  "work"};
  for (const auto& [key, value] : object->items()) {
    if (kKnown.count(key) == 0) reader.fail("/limits/" + key, "is not a known limit");
  }
  limits.wall_seconds = reader.limit<double>(*object, "timeout", "\"30s\"", parse_seconds);
  limits.cpu_seconds = reader.limit<double>(*object, "cpu_time", "\"60\"", parse_seconds);
  limits.cpus = reader.limit<double>(*object, "cpus", "1 or 0.5", parse_decimal);
  limits.memory_bytes = reader.limit<std::uint64_t>(*object, "memory", "\"512m\"", parse_size);
  limits.pids = reader.limit<std::uint32_t>(*object, "pids", "128", count);
  limits.output_bytes = reader.limit<std::uint64_t>(*object, "output", "\"1m\"", parse_size);
  limits.file_size_bytes =
      reader.limit<std::uint64_t>(*object, "file_size", "\"256m\"", parse_size);
  limits.tmp_bytes = reader.limit<std::uint64_t>(*object, "tmp", "\"64m\"", parse_size);
  limits.work_bytes = reader.limit<std::uint64_t>(*object, "work", "\"256m\"", parse_size);
  if (limits.wall_seconds && *limits.wall_seconds <= 0)
    reader.fail("/limits/timeout", "must be above 0");
  if (limits.pids && *limits.pids < 2) reader.fail("/limits/pids", "must be at least 2");
}

void read_network(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = reader.find(document, "network");
  if (object == nullptr) return;
  if (!object->is_object()) return reader.fail("/network", "must be an object");
  std::string run = reader.string(*object, "/network", "run", false, "none");
  if (run == "none") {
    policy.run_network = NetworkMode::kNone;
  } else if (run == "host") {
    policy.run_network = NetworkMode::kHost;
  } else {
    reader.fail("/network/run", "'" + run + "' is not valid; use none or host");
  }
  policy.install_network = reader.string(*object, "/network", "install", false, "none");
  if (policy.install_network != "none" && policy.install_network != "user" &&
      policy.install_network != "host" && policy.install_network != "allowlist") {
    reader.fail("/network/install",
                "'" + policy.install_network + "' is not valid; use none, allowlist, user or host");
  }
  auto patterns = [&](const char* key) {
    auto list = reader.strings(*object, "/network", key, false, false);
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (auto parsed = egress::parse_host_pattern(list[i]); !parsed) {
        reader.fail("/network/" + std::string(key) + "/" + std::to_string(i),
                    parsed.error().message);
      }
    }
    return list;
  };
  policy.run_allow = patterns("allow");
  if (!policy.run_allow.empty() && policy.run_network != NetworkMode::kNone) {
    reader.fail("/network/allow", "an allowlist needs network.run none");
  }
  policy.install_allow = patterns("install_allow");
  if (policy.install_network == "allowlist" && policy.install_allow.empty()) {
    reader.fail("/network/install_allow", "must name the package index's hosts");
  }
  const json* mirror = reader.find(*object, "install_mirror");
  if (mirror != nullptr) {
    if (!mirror->is_object()) return reader.fail("/network/install_mirror", "must be an object");
    policy.mirror_variable = reader.string(*mirror, "/network/install_mirror", "variable", true);
    policy.mirror_env = reader.string(*mirror, "/network/install_mirror", "env", true);
  }
}

// A mirror named in paddock's own environment (PADDOCK_PIP_INDEX_URL...): the installer is
// pointed at it, and its allowlist becomes the mirror's host alone.
Status apply_install_mirror(LanguagePolicy& policy, const VariableLookup& variables) {
  if (policy.mirror_variable.empty() || !variables) return {};
  auto url = variables(policy.mirror_variable);
  if (!url) return {};
  auto pattern = egress::url_host_pattern(*url);
  if (!pattern) return pattern.error().context(policy.mirror_variable);
  policy.install_env[policy.mirror_env] = *url;
  policy.install_allow = {*pattern};
  return {};
}

// `prefix` is the pointer of `document` within the policy ("" at its top).
void read_env(Reader& reader, const json& document, const std::string& prefix,
              const std::string& field, std::map<std::string, std::string>& env) {
  const json* object = reader.find(document, field);
  if (object == nullptr) return;
  std::string pointer = prefix + "/" + field;
  if (!object->is_object()) return reader.fail(pointer, "must be an object of NAME: value");
  for (const auto& [key, value] : object->items()) {
    if (!is_plain_name(key, "A-Za-z_", "A-Za-z0-9_"))
      reader.fail(pointer + "/" + key, "is not a variable name");
    if (!value.is_string()) reader.fail(pointer + "/" + key, "must be a string");
    if (value.is_string()) env[key] = value.get<std::string>();
  }
}

// An installer takes registry names only: without a pattern for them it takes none.
void read_library_names(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = reader.find(document, "library_names");
  if (object == nullptr) {
    if (!policy.install.empty()) {
      reader.fail("/library_names",
                  "is missing: a policy with an installer must say which "
                  "library names it takes ({\"pattern\", \"hint\"})");
    }
    return;
  }
  if (!object->is_object()) return reader.fail("/library_names", "must be an object");
  for (const auto& [key, value] : object->items()) {
    if (key != "pattern" && key != "refuse" && key != "hint") {
      reader.fail("/library_names/" + key, "is not a known field (pattern, refuse, hint)");
    }
  }
  policy.library_pattern = reader.string(*object, "/library_names", "pattern", true);
  policy.library_hint = reader.string(*object, "/library_names", "hint", true);
  std::string refuse = reader.string(*object, "/library_names", "refuse", false);
  if (!policy.library_pattern.empty()) {
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
  }
  if (!refuse.empty()) {
    auto compiled = ScreeningRegex::compile(refuse);
    if (!compiled) {
      reader.fail("/library_names/refuse", compiled.error().message);
    } else {
      policy.library_refused = std::move(*compiled);
    }
  }
}

bool inside_work_directory(const std::string& path) {
  return !path.empty() && path[0] != '/' && path.find("..") == std::string::npos;
}

void read_support_files(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = reader.find(document, "support_files");
  if (object == nullptr) return;
  if (!object->is_object()) return reader.fail("/support_files", "must be an object");
  for (const auto& [path, name] : object->items()) {
    std::string pointer = "/support_files/" + path;
    if (!inside_work_directory(path))
      reader.fail(pointer, "must be a path inside the work directory");
    if (!name.is_string() || builtin_support_file(name.get<std::string>()) == nullptr) {
      reader.fail(pointer,
                  name.dump() + " is not a support file paddock ships (see policies/support)");
      continue;
    }
    policy.support_files[path] = name.get<std::string>();
  }
}

void read_collect(Reader& reader, const json& document, LanguagePolicy& policy) {
  policy.collect = reader.strings(document, "", "collect", false, false);
  for (std::size_t i = 0; i < policy.collect.size(); ++i) {
    if (!inside_work_directory(policy.collect[i])) {
      reader.fail("/collect/" + std::to_string(i), "must be a directory inside the work directory");
    }
  }
}

void read_class_name(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = reader.find(document, "class_name");
  if (object == nullptr) return;
  if (!object->is_object()) return reader.fail("/class_name", "must be an object");
  std::string pattern = reader.string(*object, "/class_name", "pattern", true);
  policy.class_default = reader.string(*object, "/class_name", "default", false, "Main");
  for (const auto& [key, value] : object->items()) {
    if (key != "pattern" && key != "default") {
      reader.fail("/class_name/" + key, "is not a known field (pattern, default)");
    }
  }
  if (!is_plain_name(policy.class_default, "A-Za-z0-9_$.+-", "A-Za-z0-9_$.+-")) {
    reader.fail("/class_name/default", "'" + policy.class_default + "' must be a plain name");
  }
  if (pattern.empty()) return;  // reported as missing above
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
void read_kernel(Reader& reader, const json& document, LanguagePolicy& policy) {
  const json* object = reader.find(document, "kernel");
  if (object == nullptr) return;
  if (!object->is_object()) return reader.fail("/kernel", "must be an object");
  static const std::set<std::string> kKnown = {"name",    "env",           "unset_env",
                                               "startup", "after_install", "grace"};
  for (const auto& [key, value] : object->items()) {
    if (kKnown.count(key) == 0) {
      reader.fail("/kernel/" + key,
                  "is not a known kernel field (name, env, unset_env, startup, after_install, "
                  "grace)");
    }
  }
  KernelConfig& kernel = policy.kernel;
  kernel.name = reader.string(*object, "/kernel", "name", true);
  if (!kernel.name.empty() && !is_plain_name(kernel.name, "A-Za-z0-9._-", "A-Za-z0-9._-")) {
    reader.fail("/kernel/name", "'" + kernel.name + "' is not a kernelspec name");
  }
  std::map<std::string, std::string> env;
  read_env(reader, *object, "/kernel", "env", env);
  for (const auto& [key, value] : env) kernel.env.push_back(key + "=" + value);
  kernel.unset_env = reader.strings(*object, "/kernel", "unset_env", false, false);
  kernel.startup = reader.string(*object, "/kernel", "startup", false);
  kernel.after_install = reader.string(*object, "/kernel", "after_install", false);
  if (const json* grace = reader.find(*object, "grace")) {
    if (!grace->is_number() || grace->get<double>() <= 0 || grace->get<double>() > 60) {
      reader.fail("/kernel/grace", "must be a number of seconds above 0, at most 60");
    } else {
      kernel.grace_seconds = grace->get<double>();
    }
  }
}

void check_known_keys(Reader& reader, const json& document) {
  static const std::set<std::string> kKnown = {
      "$schema",       "name",    "aliases",  "description",     "source_file",
      "compile",       "run",     "env",      "limits",          "network",
      "install",       "seccomp", "rootfs",   "screening",       "support_files",
      "collect",       "version", "example",  "package_manager", "install_env",
      "library_names", "syntax",  "host_etc", "class_name",      "preinstalled",
      "kernel"};
  for (const auto& [key, value] : document.items()) {
    if (kKnown.count(key) == 0) reader.fail("/" + key, "is not a known policy field");
  }
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

Result<LanguagePolicy> parse_policy(const json& document, std::string_view origin,
                                    const VariableLookup& variables) {
  Reader reader(document, origin);
  if (!document.is_object()) return invalid_input(std::string(origin) + ": must be a JSON object");
  LanguagePolicy policy;
  policy.origin = std::string(origin);
  check_known_keys(reader, document);
  policy.name = reader.string(document, "", "name", true);
  if (!policy.name.empty() && !is_plain_name(policy.name, "a-z0-9", "a-z0-9+#._-")) {
    reader.fail("/name", "'" + policy.name + "' must be lower case letters, digits, + # . _ -");
  }
  policy.aliases = reader.strings(document, "", "aliases", false, false);
  policy.description = reader.string(document, "", "description", false);
  policy.source_file = reader.string(document, "", "source_file", true);
  if (!policy.source_file.empty() &&
      (policy.source_file[0] == '/' || policy.source_file.find("..") != std::string::npos)) {
    reader.fail("/source_file", "must be a file name inside the work directory");
  }
  policy.compile = reader.strings(document, "", "compile", false, true);
  policy.run = reader.strings(document, "", "run", true, true);
  policy.install = reader.strings(document, "", "install", false, true);
  policy.version_command = reader.strings(document, "", "version", false, true);
  policy.example = reader.string(document, "", "example", false);
  policy.package_manager = reader.string(document, "", "package_manager", false);
  read_env(reader, document, "", "env", policy.env);
  read_env(reader, document, "", "install_env", policy.install_env);
  read_library_names(reader, document, policy);
  policy.preinstalled = reader.strings(document, "", "preinstalled", false, false);
  read_limits(reader, document, policy.limits);
  read_network(reader, document, policy);
  read_support_files(reader, document, policy);
  read_collect(reader, document, policy);
  read_kernel(reader, document, policy);
  if (const json* seccomp = reader.find(document, "seccomp")) {
    if (!seccomp->is_object()) {
      reader.fail("/seccomp", "must be an object");
    } else {
      policy.seccomp_profile = reader.string(*seccomp, "/seccomp", "profile", false, "default");
      policy.seccomp_allow = reader.strings(*seccomp, "/seccomp", "allow", false, false);
      policy.seccomp_deny = reader.strings(*seccomp, "/seccomp", "deny", false, false);
      for (const auto* list : {&policy.seccomp_allow, &policy.seccomp_deny}) {
        for (const auto& name : *list) {
          if (!is_plain_name(name, "a-z_", "a-z0-9_")) {
            reader.fail("/seccomp", "'" + name + "' is not a system call name");
          }
        }
      }
      for (const auto& [key, value] : seccomp->items()) {
        if (key != "profile" && key != "allow" && key != "deny") {
          reader.fail("/seccomp/" + key, "is not a known seccomp field (profile, allow, deny)");
        }
      }
    }
  }
  policy.rootfs = reader.string(document, "", "rootfs", false, "host");
  if (policy.rootfs != "host" &&
      !(policy.rootfs.starts_with("image:") && policy.rootfs.size() > 6)) {
    reader.fail("/rootfs", "'" + policy.rootfs + "' must be host or image:REF");
  }
  if (const json* screening = reader.find(document, "screening")) {
    if (!screening->is_object()) reader.fail("/screening", "must be an object");
    policy.screening = *screening;
  }
  policy.host_etc = reader.strings(document, "", "host_etc", false, false);
  for (std::size_t i = 0; i < policy.host_etc.size(); ++i) {
    if (!is_host_etc_name(policy.host_etc[i])) {
      reader.fail("/host_etc/" + std::to_string(i),
                  "'" + policy.host_etc[i] +
                      "' must name one entry of /etc: not a path, a secret or a file paddock "
                      "writes itself");
    }
  }
  read_class_name(reader, document, policy);
  if (const json* syntax = reader.find(document, "syntax")) {
    if (!syntax->is_object()) reader.fail("/syntax", "must be an object");
    policy.syntax = *syntax;
  }
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

}  // namespace paddock
