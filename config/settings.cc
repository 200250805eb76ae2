#include "config/settings.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>

namespace paddock::config {

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

core::Error Given::invalid(const std::string& what, const std::string& example) const {
  std::string shown =
      source.starts_with("--") ? source + " '" + written + "'" : source + "='" + written + "'";
  return core::invalid_input(shown + " is not " + what + "; use e.g. " + example);
}

std::vector<std::string> split_list(const std::string& text, char separator) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = std::min(text.find(separator, start), text.size());
    if (end > start) items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

std::vector<std::string> Setting::variables_of(Command command) const {
  if ((variable_commands & command) == 0) return {};
  return variables;
}

std::string Setting::default_for(Command command) const {
  std::string text = describe_default != nullptr ? describe_default() : default_value;
  if (command != kWrap) return text;
  if (!wrap_default.empty()) return wrap_default;
  const std::string policy = "the policy's";
  if (auto at = text.find(policy); at != std::string::npos) {
    text.replace(at, policy.size(), "the profile's");
  }
  return text;
}

std::string help_line(const Setting& row, Command command) {
  std::string line = row.help;
  std::string default_value = row.default_for(command);
  if (!default_value.empty()) line += " (default " + default_value + ")";
  std::vector<std::string> variables = row.variables_of(command);
  std::string named = variables.empty() ? "" : row.variables_help;
  if (named.empty()) {
    for (const auto& variable : variables) named += (named.empty() ? "" : ", or ") + variable;
  }
  bool repeatable = row.arity == Arity::kRepeated || row.arity == Arity::kRepeatedLists;
  if (named.empty()) return line + (repeatable ? " (repeatable)" : "");
  // A switch's flag takes no value; its variable says which way.
  if (row.arity == Arity::kSwitch) named += ": on or off";
  return line + " (" + (repeatable ? "repeatable; " : "") + "env " + named + ")";
}

void add_setting_options(CLI::App& app, const std::vector<Setting>& table, Command command,
                         FlagValues& storage) {
  for (const auto& row : table) {
    if (row.flag.empty() || !row.takes(command)) continue;
    std::vector<std::string>& values = storage[row.flag];
    std::string help = help_line(row, command);
    if (row.arity == Arity::kRepeated || row.arity == Arity::kRepeatedLists) {
      app.add_option(row.flag, values, help)->allow_extra_args(false)->type_name(row.type);
    } else if (row.arity == Arity::kSwitch) {
      values.resize(1);
      app.add_flag_callback(
          row.flag, [&values] { values.front() = "on"; }, help);
    } else {
      // One value, as a string option takes it; kept in the row's vector.
      values.resize(1);
      app.add_option(row.flag, values.front(), help)->type_name(row.type);
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

std::vector<Given> given_values(const Setting& row, Command command, const FlagValues& flags,
                                const Environment& env) {
  std::vector<Given> given;
  auto typed = row.flag.empty() ? flags.end() : flags.find(row.flag);
  if (row.arity == Arity::kOne || row.arity == Arity::kSwitch) {
    if (typed != flags.end() && !typed->second.empty()) {
      given.emplace_back(typed->second.back(), row.flag);
      return given;
    }
    for (const auto& variable : row.variables_of(command)) {
      if (auto value = env(variable)) {
        given.emplace_back(*value, variable);
        break;
      }
    }
    return given;
  }
  char separator = row.arity == Arity::kRepeatedLists ? ';' : ',';
  for (const auto& variable : row.variables_of(command)) {
    if (auto list = env(variable)) {
      for (auto& item : split_list(*list, separator)) {
        given.emplace_back(std::move(item), variable, *list);
      }
    }
  }
  if (typed != flags.end()) {
    for (const auto& value : typed->second) given.emplace_back(value, row.flag);
  }
  return given;
}

}  // namespace paddock::config
