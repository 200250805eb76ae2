#include "language/syntax.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

namespace paddock::language {
namespace {

using nlohmann::json;

// One line naming the policy and the JSON pointer of what is wrong.
core::Error syntax_error(std::string_view origin, const std::string& pointer,
                         const std::string& what) {
  return core::invalid_input(std::string(origin) + ": /syntax" + pointer + ": " + what);
}

core::Result<std::vector<std::string>> strings_of(const json& syntax, const std::string& key,
                                                  std::string_view origin) {
  std::vector<std::string> result;
  auto it = syntax.find(key);
  if (it == syntax.end()) return result;
  if (!it->is_array()) return syntax_error(origin, "/" + key, "must be a list of strings");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    if (!item.is_string() || item.get<std::string>().empty()) {
      return syntax_error(origin, "/" + key + "/" + std::to_string(i),
                          "must be a non-empty string");
    }
    result.push_back(item.get<std::string>());
  }
  return result;
}

core::Result<std::vector<std::pair<std::string, std::string>>> block_comments_of(
    const json& syntax, std::string_view origin) {
  std::vector<std::pair<std::string, std::string>> result;
  auto it = syntax.find("block_comments");
  if (it == syntax.end()) return result;
  if (!it->is_array()) return syntax_error(origin, "/block_comments", "must be a list of pairs");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& pair = (*it)[i];
    bool valid = pair.is_array() && pair.size() == 2 && pair[0].is_string() &&
                 pair[1].is_string() && !pair[0].get<std::string>().empty() &&
                 !pair[1].get<std::string>().empty();
    if (!valid) {
      return syntax_error(origin, "/block_comments/" + std::to_string(i),
                          "must be [\"opening\", \"closing\"], e.g. [\"/*\", \"*/\"]");
    }
    result.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  return result;
}

core::Result<std::vector<StringSyntax>> strings_syntax_of(const json& syntax,
                                                          std::string_view origin) {
  std::vector<StringSyntax> result;
  auto it = syntax.find("strings");
  if (it == syntax.end()) return result;
  if (!it->is_array()) return syntax_error(origin, "/strings", "must be a list of objects");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& item = (*it)[i];
    std::string pointer = "/strings/" + std::to_string(i);
    if (!item.is_object() || !item.contains("delimiter") || !item["delimiter"].is_string() ||
        item["delimiter"].get<std::string>().empty()) {
      return syntax_error(origin, pointer, "must be {\"delimiter\": \"...\", ...}");
    }
    StringSyntax quote;
    quote.delimiter = item["delimiter"].get<std::string>();
    for (const auto& [key, value] : item.items()) {
      if (key == "delimiter") continue;
      if (key != "multiline" && key != "escapes") {
        return syntax_error(origin, pointer + "/" + key,
                            "is not a known field (delimiter, multiline, escapes)");
      }
      if (!value.is_boolean())
        return syntax_error(origin, pointer + "/" + key, "must be true or false");
      (key == "multiline" ? quote.multiline : quote.escapes) = value.get<bool>();
    }
    result.push_back(std::move(quote));
  }
  // The longest delimiter first, so that ''' is not read as '' and '.
  std::stable_sort(result.begin(), result.end(), [](const StringSyntax& a, const StringSyntax& b) {
    return a.delimiter.size() > b.delimiter.size();
  });
  return result;
}

core::Status compile_imports(LanguageSyntax& syntax, std::string_view origin) {
  for (std::size_t i = 0; i < syntax.import_texts.size(); ++i) {
    std::string pointer = "/imports/" + std::to_string(i);
    auto regex = ScreeningRegex::compile(syntax.import_texts[i]);
    if (!regex) return syntax_error(origin, pointer, regex.error().message);
    if (regex->group_count() < 1) {
      return syntax_error(origin, pointer, "needs a group, (...), around the module's name");
    }
    syntax.imports.push_back(std::move(*regex));
  }
  return {};
}

}  // namespace

const LanguageSyntax& generic_syntax() {
  static const LanguageSyntax kGeneric = [] {
    LanguageSyntax syntax;
    syntax.import_texts = {
        R"(\b(?:import|require|include|use|library|load)\b\s*\(?\s*['"<]?([\w./:-]+))"};
    syntax.imports.push_back(*ScreeningRegex::compile(syntax.import_texts[0]));
    return syntax;
  }();
  return kGeneric;
}

core::Result<LanguageSyntax> parse_syntax(const json& syntax, std::string_view origin) {
  if (syntax.is_null()) return generic_syntax();
  if (!syntax.is_object()) return syntax_error(origin, "", "must be an object");
  static const std::vector<std::string> kKnown = {"line_comments", "block_comments",
                                                  "comments_at_word_start", "strings", "imports"};
  for (const auto& [key, value] : syntax.items()) {
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end()) {
      return syntax_error(origin, "/" + key,
                          "is not a known field (line_comments, block_comments, "
                          "comments_at_word_start, strings, imports)");
    }
  }
  LanguageSyntax result;
  auto line = strings_of(syntax, "line_comments", origin);
  if (!line) return line.error();
  result.line_comments = std::move(*line);
  auto blocks = block_comments_of(syntax, origin);
  if (!blocks) return blocks.error();
  result.block_comments = std::move(*blocks);
  if (auto it = syntax.find("comments_at_word_start"); it != syntax.end()) {
    if (!it->is_boolean())
      return syntax_error(origin, "/comments_at_word_start", "must be true or false");
    result.comments_at_word_start = it->get<bool>();
  }
  auto strings = strings_syntax_of(syntax, origin);
  if (!strings) return strings.error();
  result.strings = std::move(*strings);
  auto imports = strings_of(syntax, "imports", origin);
  if (!imports) return imports.error();
  result.import_texts = std::move(*imports);
  if (result.import_texts.empty()) result.import_texts = generic_syntax().import_texts;
  if (auto compiled = compile_imports(result, origin); !compiled) return compiled.error();
  return result;
}

namespace {
std::size_t byte_of(char c) {
  return static_cast<unsigned char>(c);
}
}  // namespace

std::string without_comments(std::string_view code, const LanguageSyntax& syntax) {
  std::string out(code);
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
  };
  auto starts_with = [&](std::size_t at, std::string_view what) {
    return code.compare(at, what.size(), what) == 0;
  };
  // The bytes that can start something (a string, a comment, an escape): the rest are passed
  // over at once, which keeps 20 MB of code to a fraction of a second.
  std::array<bool, 256> starts_something{};
  starts_something['\\'] = true;
  for (const auto& quote : syntax.strings) starts_something[byte_of(quote.delimiter[0])] = true;
  for (const auto& [start, end] : syntax.block_comments) starts_something[byte_of(start[0])] = true;
  for (const auto& marker : syntax.line_comments) starts_something[byte_of(marker[0])] = true;
  const StringSyntax* open = nullptr;
  std::size_t i = 0;
  while (i < code.size()) {
    if (open != nullptr) {
      char c = code[i];
      if (c != '\\' && c != open->delimiter[0] && c != '\n') {
        ++i;
        continue;
      }
      if (open->escapes && code[i] == '\\') {
        i += 2;
      } else if (starts_with(i, open->delimiter)) {
        i += open->delimiter.size();
        open = nullptr;
      } else {
        if (code[i] == '\n' && !open->multiline) open = nullptr;
        ++i;
      }
      continue;
    }
    if (!starts_something[byte_of(code[i])]) {
      ++i;
      continue;
    }
    if (code[i] == '\\') {  // an escaped quote or '#' outside a string (shell), a continuation
      i += 2;
      continue;
    }
    auto quote = std::find_if(syntax.strings.begin(), syntax.strings.end(),
                              [&](const StringSyntax& q) { return starts_with(i, q.delimiter); });
    if (quote != syntax.strings.end()) {
      open = &*quote;
      i += quote->delimiter.size();
      continue;
    }
    auto block = std::find_if(syntax.block_comments.begin(), syntax.block_comments.end(),
                              [&](const auto& pair) { return starts_with(i, pair.first); });
    if (block != syntax.block_comments.end()) {
      std::size_t end = code.find(block->second, i + block->first.size());
      end = end == std::string_view::npos ? code.size() : end + block->second.size();
      blank(i, end);
      i = end;
      continue;
    }
    bool word_start =
        i == 0 || std::string_view(" \t\n;&|(").find(code[i - 1]) != std::string_view::npos;
    bool line_comment =
        std::any_of(syntax.line_comments.begin(), syntax.line_comments.end(),
                    [&](const std::string& marker) { return starts_with(i, marker); });
    if (line_comment && (!syntax.comments_at_word_start || word_start)) {
      std::size_t end = std::min(code.find('\n', i), code.size());
      blank(i, end);
      i = end;
      continue;
    }
    ++i;
  }
  return out;
}

}  // namespace paddock::language
