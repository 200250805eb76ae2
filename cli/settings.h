#pragma once

// Settings as rows of a table: a flag, the environment variables that stand in for it, a type
// name and help for --help, and the parser that sets one typed field. The command line takes
// its flags from the rows, `--help` its text, and docs/ its table (a unit test checks that
// every row is there). A flag wins over its variables, the first variable set over the later
// ones, and both over what the target held (a policy's default). Resolving is pure: the
// environment is passed in, so the precedence is unit-tested. This floor is the only one that
// reads the process's environment.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace CLI {
class App;
}

namespace paddock::cli {

// Reads one environment variable; nullopt when unset (an empty value counts as unset).
using Environment = std::function<std::optional<std::string>(const std::string& name)>;

// The process's own environment.
Environment process_environment();

// One setting's text and where it came from, so an error names what the user wrote.
struct Given {
  std::string text;     // this value (one item of a repeated setting's variable)
  std::string source;   // "--memory" or "PADDOCK_MEMORY"
  std::string written;  // what the source held: `text`, or the variable's whole list

  Given(std::string value, std::string from);
  Given(std::string value, std::string from, std::string whole);

  // "--memory 'lots' is not a size; use e.g. 512m" (a variable: PADDOCK_MEMORY='lots').
  [[nodiscard]] Error invalid(const std::string& what, const std::string& example) const;
};

// "A,B,,C" -> A, B, C: the lists flags and variables take.
std::vector<std::string> split_list(const std::string& text);

// The values each flag was given on the command line, in order; flags not given are absent.
using FlagValues = std::map<std::string, std::vector<std::string>>;

enum class Arity {
  kOne,       // the flag once, else the first variable set
  kRepeated,  // the variable's comma-separated items first, then each flag's value
  kSwitch,    // as kOne, but the flag takes no value: given, it reads "on"
  // As kRepeated, but the variable's items are separated by ';', for values that hold commas
  // (--secret NAME=ENVVAR@host1,host2).
  kRepeatedLists,
};

template <typename Target>
struct Setting {
  std::string flag;                    // "--memory"; empty for a setting with variables only
  std::vector<std::string> variables;  // first set wins
  std::string type;                    // SIZE, N, DURATION... for --help
  std::string help;
  Arity arity = Arity::kOne;
  // Parses one given value into its field of the target; the environment is there for the
  // settings that name other variables (--pass-through-env).
  std::function<Status(const Given& given, const Environment& env, Target& target)> set;
  // How --help names the variables, when not just their names ("PADDOCK_IMAGES=LANG=REF,...").
  std::string variables_help = {};
};

// How --help shows one row: its help, then "(env VAR)", "(env A, or B)" or "(repeatable; env
// ...)".
std::string help_line(const std::string& help, const std::vector<std::string>& variables,
                      Arity arity, const std::string& variables_help);

// Adds one CLI11 option per row that has a flag; after parsing, `collect_flags` gives what was
// typed. `storage` must outlive the parse (CLI11 writes into it).
void add_flag_options(CLI::App& app, const std::vector<std::string>& flags,
                      const std::vector<std::string>& types, const std::vector<std::string>& helps,
                      const std::vector<Arity>& arities, FlagValues& storage);
FlagValues collect_flags(const CLI::App& app, const FlagValues& storage);

// The values one row takes, flag over variable, each with its source.
std::vector<Given> given_values(const std::string& flag, const std::vector<std::string>& variables,
                                Arity arity, const FlagValues& flags, const Environment& env);

template <typename Target>
void add_setting_options(CLI::App& app, const std::vector<Setting<Target>>& table,
                         FlagValues& storage) {
  std::vector<std::string> flags, types, helps;
  std::vector<Arity> arities;
  for (const auto& row : table) {
    if (row.flag.empty()) continue;
    flags.push_back(row.flag);
    types.push_back(row.type);
    helps.push_back(help_line(row.help, row.variables, row.arity, row.variables_help));
    arities.push_back(row.arity);
  }
  add_flag_options(app, flags, types, helps, arities, storage);
}

// Every row in order; the first error stops.
template <typename Target>
Status resolve_settings(const std::vector<Setting<Target>>& table, const FlagValues& flags,
                        const Environment& env, Target& target) {
  for (const auto& row : table) {
    for (const auto& given : given_values(row.flag, row.variables, row.arity, flags, env)) {
      if (auto set = row.set(given, env, target); !set) return set;
    }
  }
  return {};
}

}  // namespace paddock::cli
