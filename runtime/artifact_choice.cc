#include "runtime/artifact_choice.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace paddock::runtime {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

std::string_view digits_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_digit(text[end])) ++end;
  return text.substr(at, end - at);
}

// Compares two runs of digits by value, without converting (they may be longer than any integer).
int compare_numbers(std::string_view a, std::string_view b) {
  auto strip = [](std::string_view digits) {
    std::size_t zeros = 0;
    while (zeros + 1 < digits.size() && digits[zeros] == '0') ++zeros;
    return digits.substr(zeros);
  };
  a = strip(a);
  b = strip(b);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::string_view x = digits_at(a, i), y = digits_at(b, j);
      if (int order = compare_numbers(x, y); order != 0) return order < 0;
      i += x.size();
      j += y.size();
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;  // equal by value ("01" and "1"): still a strict order
}

ArtifactChoice choose_artifacts(std::vector<ArtifactCandidate> candidates,
                                const OutputCollection& collection) {
  std::sort(candidates.begin(), candidates.end(),
            [](const ArtifactCandidate& a, const ArtifactCandidate& b) {
              if (a.directory != b.directory) return a.directory < b.directory;
              if (a.modified_ns != b.modified_ns) return a.modified_ns < b.modified_ns;
              return natural_less(a.path, b.path);
            });
  ArtifactChoice choice;
  std::uint64_t bytes = 0;
  for (auto& candidate : candidates) {
    if (choice.taken.size() >= collection.max_files) {
      choice.omitted.push_back(
          {candidate.path, candidate.size,
           "over the limit of " + std::to_string(collection.max_files) + " files per call"});
    } else if (candidate.size > collection.max_bytes - std::min(bytes, collection.max_bytes)) {
      choice.omitted.push_back(
          {candidate.path, candidate.size,
           "over the limit of " + std::to_string(collection.max_bytes) + " bytes per call"});
    } else {
      bytes += candidate.size;
      choice.taken.push_back(std::move(candidate));
    }
  }
  return choice;
}

}  // namespace paddock::runtime
