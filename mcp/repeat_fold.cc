#include "mcp/repeat_fold.h"

#include <functional>
#include <unordered_map>
#include <vector>

namespace paddock::mcp {
namespace {

constexpr std::size_t kLongestBlock = 16;

// 1412 -> "1,412": counts of repeats are read at a glance.
std::string grouped(std::size_t count) {
  std::string digits = std::to_string(count);
  for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return digits;
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
  std::unordered_map<std::string_view, std::size_t> seen;
  for (auto line : lines) {
    // A last line without its break is the same line as one with it.
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    ++seen[line];
  }
  std::size_t copies = 0;
  for (const auto& [line, count] : seen) {
    if (count >= 3) copies += count - 1;
  }
  // Mostly copies, or it is not what this is for.
  if (copies * 2 < lines.size()) return std::string(text);
  std::string folded;
  std::unordered_map<std::string_view, bool> shown;
  for (auto line : lines) {
    std::string_view key = line;
    if (!key.empty() && key.back() == '\n') key.remove_suffix(1);
    if (seen[key] >= 3) {
      if (shown[key]) continue;
      shown[key] = true;
    }
    folded.append(line);
  }
  if (!folded.empty() && folded.back() != '\n') folded += '\n';
  folded += "… and " + grouped(copies) +
            " more lines, each a copy of a line above, in another order (shown once: several "
            "processes printed the same)\n";
  return folded;
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
