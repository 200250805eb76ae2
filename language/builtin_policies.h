#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paddock::language {

// policies/*.json (but schema.json) as they were when paddock was built: file name and text.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_policy_texts();

// policies/schema.json as it was when paddock was built: the one description of the format,
// which parse_policy checks every policy against (language/policy_schema.h).
std::string_view builtin_policy_schema();

// What each of builtin_policy_texts() answers to, in the same order: its name, then its aliases in
// lower case.
const std::vector<std::vector<std::string_view>>& builtin_policy_names();

// The host /etc entries of every built-in policy (host_etc), sorted: what a command run without
// a language sees, so that `paddock run -- java -version` finds its configuration as a java run
// does.
const std::vector<std::string>& builtin_host_etc();

// policies/support/<language>/<file> by "<language>/<file>", or null: hooks policies add to the
// work directory (plot capture).
const std::string_view* builtin_support_file(std::string_view name);

// A python support file as the bytecode of the python paddock was built beside (/usr/bin/python3),
// which only an interpreter of the same cache tag loads (others compile the source).
struct CompiledSupportFile {
  std::string_view name;       // "python/sitecustomize.py"
  std::string_view cache_tag;  // "cpython-311"
  std::string_view bytecode;   // an unchecked-hash .pyc: used without looking at the source
};

// The bytecode of support file `name`, or null (not python, or no python at build time).
const CompiledSupportFile* builtin_support_bytecode(std::string_view name);

}  // namespace paddock::language
