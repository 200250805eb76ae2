#include "cli/settings.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>

namespace paddock::cli {

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

Given::Given(std::string value, std::string from)
    : text(value), source(std::move(from)), written(std::move(value)) {}

Given::Given(std::string value, std::string from, std::string whole)
    : text(std::move(value)), source(std::move(from)), written(std::move(whole)) {}

Error Given::invalid(const std::string& what, const std::string& example) const {
  std::string shown =
      source.starts_with("--") ? source + " '" + written + "'" : source + "='" + written + "'";
  return invalid_input(shown + " is not " + what + "; use e.g. " + example);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::string help_line(const std::string& help, const std::vector<std::string>& variables,
                      Arity arity, const std::string& variables_help) {
  std::string named = variables_help;
  if (named.empty()) {
    for (const auto& variable : variables) named += (named.empty() ? "" : ", or ") + variable;
  }
  if (named.empty()) return help;
  bool repeatable = arity == Arity::kRepeated || arity == Arity::kRepeatedLists;
  return help + " (" + (repeatable ? "repeatable; " : "") + "env " + named + ")";
}

void add_flag_options(CLI::App& app, const std::vector<std::string>& flags,
                      const std::vector<std::string>& types, const std::vector<std::string>& helps,
                      const std::vector<Arity>& arities, FlagValues& storage) {
  for (std::size_t i = 0; i < flags.size(); ++i) {
    std::vector<std::string>& values = storage[flags[i]];
    if (arities[i] == Arity::kRepeated || arities[i] == Arity::kRepeatedLists) {
      app.add_option(flags[i], values, helps[i])->allow_extra_args(false)->type_name(types[i]);
    } else if (arities[i] == Arity::kSwitch) {
      values.resize(1);
      app.add_flag_callback(
          flags[i], [&values] { values.front() = "on"; }, helps[i]);
    } else {
      // One value, as a string option takes it; kept in the row's vector.
      values.resize(1);
      app.add_option(flags[i], values.front(), helps[i])->type_name(types[i]);
    }
  }
}

FlagValues collect_flags(const CLI::App& app, const FlagValues& storage) {
  FlagValues given;
  for (const auto& [flag, values] : storage) {
    if (app.count(flag) > 0) given[flag] = values;
  }
  return given;
}

std::vector<Given> given_values(const std::string& flag, const std::vector<std::string>& variables,
                                Arity arity, const FlagValues& flags, const Environment& env) {
  std::vector<Given> given;
  auto typed = flag.empty() ? flags.end() : flags.find(flag);
  if (arity == Arity::kOne || arity == Arity::kSwitch) {
    if (typed != flags.end() && !typed->second.empty()) {
      given.emplace_back(typed->second.back(), flag);
      return given;
    }
    for (const auto& variable : variables) {
      if (auto value = env(variable)) {
        given.emplace_back(*value, variable);
        break;
      }
    }
    return given;
  }
  for (const auto& variable : variables) {
    if (auto list = env(variable)) {
      std::vector<std::string> items;
      if (arity == Arity::kRepeatedLists) {
        for (std::size_t start = 0; start <= list->size();) {
          std::size_t end = std::min(list->find(';', start), list->size());
          if (end > start) items.push_back(list->substr(start, end - start));
          start = end + 1;
        }
      } else {
        items = split_list(*list);
      }
      for (auto& item : items) given.emplace_back(std::move(item), variable, *list);
    }
  }
  if (typed != flags.end()) {
    for (const auto& value : typed->second) given.emplace_back(value, flag);
  }
  return given;
}

}  // namespace paddock::cli
