#include "mcp/repeat_fold.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace paddock::mcp {
namespace {

constexpr std::size_t kLongestBlock = 16;

// 1412 -> "1,412": counts of repeats are read at a glance.
std::string grouped(std::size_t count) {
  std::string digits = std::to_string(count);
  std::string text;
  // Built forward rather than with insert(), which GCC 12 warns about in a unity build
  // (a false -Wrestrict once inlined).
  for (std::size_t at = 0; at < digits.size(); ++at) {
    if (at > 0 && (digits.size() - at) % 3 == 0) text += ',';
    text += digits[at];
  }
  return text;
}

// Lines with their line break, the last one maybe without.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(at, end - at));
    at = end;
  }
  return lines;
}

// Below this many lines nothing scattered is folded: a short output is read whole.
constexpr std::size_t kScatteredMinLines = 30;

}  // namespace

std::string fold_scattered_repeats(std::string_view text) {
  std::vector<std::string_view> lines = lines_of(text);
  if (lines.size() < kScatteredMinLines) return std::string(text);
  auto key_of = [](std::string_view line) {
    // A last line without its break is the same line as one with it.
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    return line;
  };
  std::unordered_map<std::string_view, std::size_t> seen;
  for (auto line : lines) ++seen[key_of(line)];
  // The words of the lines that come three times or more: processes that write a line in
  // several pieces (python writes an error's name, ": " and its message apart) leave lines
  // made only of such pieces, run together ("BlockingIOErroros.fork()"), which are copies too.
  std::vector<std::string> pieces;
  for (const auto& [line, count] : seen) {
    if (count < 3) continue;
    std::size_t at = 0;
    while (at < line.size()) {
      std::size_t begin = line.find_first_not_of(' ', at);
      if (begin == std::string_view::npos) break;
      std::size_t end = std::min(line.find(' ', begin), line.size());
      std::string_view word = line.substr(begin, end - begin);
      pieces.emplace_back(word);
      // "BlockingIOError:" is written as "BlockingIOError" and ": ".
      while (!word.empty() && (word.back() == ':' || word.back() == ',')) word.remove_suffix(1);
      pieces.emplace_back(word);
      at = end;
    }
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  auto made_of_pieces = [&](std::string_view line) {
    std::string rest(line);
    for (const auto& piece : pieces) {
      if (piece.size() < 3) continue;  // ":" and "3," inside any word: matched whole below
      for (auto at = rest.find(piece); at != std::string::npos; at = rest.find(piece, at)) {
        rest.replace(at, piece.size(), " ");
      }
    }
    // What is left: short pieces, whole ("in", "3,"), and punctuation.
    std::istringstream words(rest);
    for (std::string word; words >> word;) {
      bool piece = std::find(pieces.begin(), pieces.end(), word) != pieces.end();
      if (!piece && word.find_first_not_of(":,.()[]") != std::string::npos) return false;
    }
    return true;
  };
  std::size_t copies = 0;
  std::vector<bool> drop(lines.size(), false);
  std::unordered_map<std::string_view, bool> shown;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view key = key_of(lines[i]);
    if (seen[key] >= 3) {
      drop[i] = shown[key];
      shown[key] = true;
    } else {
      drop[i] = !pieces.empty() && !key.empty() && made_of_pieces(key);
    }
    if (drop[i]) ++copies;
  }
  // Mostly copies, or it is not what this is for.
  if (copies * 2 < lines.size()) return std::string(text);
  std::string folded;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!drop[i]) folded.append(lines[i]);
  }
  if (!folded.empty() && folded.back() != '\n') folded += '\n';
  folded += "… and " + grouped(copies) +
            " more lines, each a copy of a line above or pieces of them run together (shown "
            "once, where it first came: several processes printed the same)\n";
  return folded;
}

std::string fold_output(std::string_view text) {
  std::string runs = fold_repeats(text);
  std::string scattered = fold_scattered_repeats(text);
  return scattered.size() < runs.size() ? scattered : runs;
}

std::string fold_repeats(std::string_view text) {
  std::vector<std::string_view> lines = lines_of(text);
  std::vector<std::size_t> hashes;
  hashes.reserve(lines.size());
  for (auto line : lines) hashes.push_back(std::hash<std::string_view>{}(line));
  auto same = [&](std::size_t a, std::size_t b) {
    return hashes[a] == hashes[b] && lines[a] == lines[b];
  };
  // Whether the `size` lines from `a` are those from `b`.
  auto same_block = [&](std::size_t a, std::size_t b, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      if (!same(a + i, b + i)) return false;
    }
    return true;
  };

  std::string folded;
  folded.reserve(text.size());
  std::size_t n = lines.size();
  for (std::size_t at = 0; at < n;) {
    std::size_t best_size = 0, best_repeats = 0, best_saved = 0;
    for (std::size_t size = 1; size <= kLongestBlock && at + 2 * size <= n; ++size) {
      std::size_t repeats = 0;
      while (at + (repeats + 2) * size <= n && same_block(at, at + (repeats + 1) * size, size)) {
        ++repeats;
      }
      // Folding costs one line of its own: it pays from the third copy on.
      if (repeats >= 2 && repeats * size > best_saved) {
        best_size = size;
        best_repeats = repeats;
        best_saved = repeats * size;
      }
    }
    if (best_size == 0) {
      folded.append(lines[at]);
      ++at;
      continue;
    }
    for (std::size_t i = 0; i < best_size; ++i) folded.append(lines[at + i]);
    if (folded.back() != '\n') folded += '\n';
    folded += "… the same " + (best_size == 1 ? "line" : grouped(best_size) + " lines") + " " +
              grouped(best_repeats) + (best_repeats == 1 ? " more time\n" : " more times\n");
    at += (best_repeats + 1) * best_size;
  }
  return folded;
}

}  // namespace paddock::mcp
