#include "app/secret_mask.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <nlohmann/json.hpp>

namespace paddock::app {
namespace {

char fold(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

std::string folded(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), fold);
  return lower;
}

// Fields a client matches on, whose values the server alone chooses: masking one would break the
// protocol and could hide nothing. The envelope's only at the top of a message.
constexpr std::array<std::string_view, 3> kEnvelope = {"jsonrpc", "id", "method"};
constexpr std::array<std::string_view, 3> kServerChosen = {"type", "mimeType", "progressToken"};

bool is_one_of(std::string_view key, const auto& names) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

// A base64 payload: an image or audio block's data, a resource's blob.
bool is_payload(std::string_view type, std::string_view key) {
  return key == "blob" || (key == "data" && (type == "image" || type == "audio"));
}

}  // namespace

SecretMask::SecretMask(const std::vector<std::string>& assignments) {
  for (const auto& assignment : assignments) {
    auto equals = assignment.find('=');
    std::string value = assignment.substr(equals + 1);
    if (value.size() < kShortest) {
      unmasked_.push_back(assignment.substr(0, equals));
      continue;
    }
    // Each line of a value with several (a PEM key) too: progress goes out a line at a time.
    if (value.find('\n') != std::string::npos) {
      std::size_t start = 0;
      for (std::size_t end; (end = value.find('\n', start)) != std::string::npos; start = end + 1) {
        add(value.substr(start, end - start));
      }
      add(value.substr(start));
    }
    add(std::move(value));
  }
  std::sort(values_.begin(), values_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void SecretMask::add(std::string value) {
  if (value.size() >= kShortest) values_.push_back(folded(value));
}

std::string SecretMask::apply(std::string text, bool cut) const {
  if (values_.empty()) return text;
  // Found in a folded copy, replaced in both: ASCII folding keeps every offset.
  std::string lower = folded(text);
  for (const auto& value : values_) {
    for (auto at = lower.find(value); at != std::string::npos; at = lower.find(value, at + 3)) {
      text.replace(at, value.size(), "***");
      lower.replace(at, value.size(), "***");
    }
  }
  if (!cut) return text;
  // The longest beginning of any value that the text ends with.
  std::size_t tail = 0;
  for (const auto& value : values_) {
    for (std::size_t length = std::min(value.size() - 1, lower.size()); length > tail; --length) {
      if (lower.compare(lower.size() - length, length, value, 0, length) == 0) {
        tail = length;
        break;
      }
    }
  }
  if (tail > 0) text.replace(text.size() - tail, tail, "***");
  return text;
}

void SecretMask::apply_to(nlohmann::json& message) const {
  if (!values_.empty()) apply_to(message, 0);
}

void SecretMask::apply_to(nlohmann::json& value, int depth) const {
  if (value.is_string()) {
    value = apply(value.get<std::string>());
  } else if (value.is_array()) {
    for (auto& item : value) apply_to(item, depth + 1);
  } else if (value.is_object()) {
    auto type_field = value.find("type");
    std::string type =
        type_field != value.end() && type_field->is_string() ? type_field->get<std::string>() : "";
    nlohmann::json masked = nlohmann::json::object();
    for (auto& [key, item] : value.items()) {
      bool kept = (depth == 0 && is_one_of(key, kEnvelope)) || is_one_of(key, kServerChosen) ||
                  is_payload(type, key);
      if (!kept) apply_to(item, depth + 1);
      masked[apply(key)] = std::move(item);
    }
    value = std::move(masked);
  }
}

bool SecretMask::found_in(std::string_view data) const {
  return std::any_of(values_.begin(), values_.end(), [data](const std::string& value) {
    return std::search(data.begin(), data.end(), value.begin(), value.end(),
                       [](char a, char b) { return fold(a) == b; }) != data.end();
  });
}

}  // namespace paddock::app
