#pragma once

// What paddock knows of a language's source text, as its policy says (the `syntax` object of
// policies/<language>.json): its comments and strings, so that screening skips comments, and
// how it imports a module, so that restricted modules are found. A language added by a policy
// file gets all of it without C++.
//
//   "syntax": {
//     "line_comments": ["#"],                  markers that comment out the rest of the line
//     "block_comments": [["/*", "*/"]],
//     "comments_at_word_start": true,          shell: '#' comments only at a word's start
//     "strings": [{"delimiter": "'''", "multiline": true, "escapes": true}, ...],
//     "imports": ["regex whose group 1 is a module name, or a comma-separated list of them"]
//   }

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "language/screening_regex.h"

namespace paddock::language {

struct StringSyntax {
  std::string delimiter;
  bool multiline = false;  // else a newline ends it, which also resynchronises after a misreading
  bool escapes = true;     // a backslash escapes the next character
};

struct LanguageSyntax {
  std::vector<std::string> line_comments;
  std::vector<std::pair<std::string, std::string>> block_comments;
  bool comments_at_word_start = false;
  std::vector<StringSyntax> strings;  // longest delimiters first (a policy may list any order)
  std::vector<std::string> import_texts;
  std::vector<ScreeningRegex> imports;
};

// A policy without a `syntax` object: no comment handling (a wrong guess could hide code) and
// the usual words for imports (import, require, include, use, library, load).
const LanguageSyntax& generic_syntax();

// Parses a policy's `syntax` object (null: generic_syntax()). Errors name `origin` and the JSON
// pointer: "lua.json: /syntax/imports/0: invalid regex (...)".
core::Result<LanguageSyntax> parse_syntax(const nlohmann::json& syntax, std::string_view origin);

// `code` with its comments blanked out (strings kept): same length, same lines, so positions and
// line numbers still hold.
std::string without_comments(std::string_view code, const LanguageSyntax& syntax);

}  // namespace paddock::language
