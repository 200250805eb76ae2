#pragma once

// Settings as rows of one table (config/table.h) for every command: a flag, the environment
// variables that stand in for it, a type name, its default and help for --help, the commands
// that take it, and the parser that sets one typed field. The command line takes its flags from
// the rows, `--help` its text, and docs/ its tables (a unit test checks that every row is
// there, with its default). A flag wins over its variables, the first variable set over the
// later ones, and both over what the target held (a policy's default). Resolving is pure: the
// environment is passed in, so the precedence is unit-tested. Only the top floor reads the
// process's environment; the floors below take the typed options.

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

namespace paddock::config {

// The commands a row belongs to, as bits.
enum Command : unsigned {
  kRun = 1u << 0,
  kMcp = 1u << 1,
  kBoth = kRun | kMcp,
  kWrap = 1u << 2,
};

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
  [[nodiscard]] core::Error invalid(const std::string& what, const std::string& example) const;
};

// A value given below the flags and variables (a server profile's, config/server_profile.h): set
// first, so a flag or variable replaces a single value and adds to a list. `where` names the
// file and key for errors.
struct Preset {
  std::string flag;  // the row's
  std::string value;
  std::string where;  // "~/.config/paddock/servers/notes.json: limits.memory"
};

// "A,B,,C" -> A, B, C: the lists flags and variables take.
std::vector<std::string> split_list(const std::string& text, char separator = ',');

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

struct Options;

struct Setting {
  std::string flag;                    // "--memory"; empty for a setting with variables only
  std::vector<std::string> variables;  // first set wins
  unsigned commands = kBoth;           // the commands that take the flag
  unsigned variable_commands = kMcp;   // the commands that read the variables
  std::string type;                    // SIZE, N, DURATION... for --help
  // What holds when the setting is not given, as the docs' tables and --help show it; empty
  // where nothing is set. Written from the typed default where there is one (table.cc).
  std::string default_value;
  std::string help;
  Arity arity = Arity::kOne;
  // Parses one given value into its field of the options; the environment is there for the
  // settings that name other variables (--pass-through-env).
  std::function<core::Status(const Given& given, const Environment& env, Options& options)> set;
  // How --help names the variables, when not just their names ("PADDOCK_IMAGES=LANG=REF,...").
  std::string variables_help = {};
  // `paddock wrap`'s default where it is not default_value's words (a server has no timeout).
  std::string wrap_default = {};
  // Writes default_value's words when they are shown, for a default that costs work to describe:
  // every `paddock run` builds the whole table, and shows none of it.
  std::string (*describe_default)() = nullptr;

  [[nodiscard]] bool takes(Command command) const { return (commands & command) != 0; }
  // The variables `command` reads for this row (none where it reads only the flag).
  [[nodiscard]] std::vector<std::string> variables_of(Command command) const;
  // What holds for `command` when the setting is not given: for `paddock wrap`, whose settings
  // come from a server profile rather than a language policy, the profile's.
  [[nodiscard]] std::string default_for(Command command) const;
};

// How --help shows one row for `command`: its help, its default, then "(env VAR)", "(env A, or
// B)" or "(repeatable; env ...)".
std::string help_line(const Setting& row, Command command);

// Adds one CLI11 option per row of `command` that has a flag; after parsing, `collect_flags`
// gives what was typed. `storage` must outlive the parse (CLI11 writes into it).
void add_setting_options(CLI::App& app, const std::vector<Setting>& table, Command command,
                         FlagValues& storage);
FlagValues collect_flags(const CLI::App& app, const FlagValues& storage);

// The values one row takes for `command`, flag over variable, each with its source.
std::vector<Given> given_values(const Setting& row, Command command, const FlagValues& flags,
                                const Environment& env);

// Every row of `command` in order; the first error stops.
core::Status resolve_settings(const std::vector<Setting>& table, Command command,
                              const FlagValues& flags, const Environment& env, Options& options);

}  // namespace paddock::config
