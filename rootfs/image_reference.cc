#include "rootfs/image_reference.h"

#include "core/ip_prefix.h"

#include <algorithm>
#include <regex>

namespace paddock::rootfs {
namespace {

constexpr std::string_view kDockerHub = "docker.io";

// The distribution spec's grammar: path components of lower-case alphanumerics joined by
// '.', '_', '__' or runs of '-'; tags of up to 128 word characters, '.' and '-'.
const std::regex& component_pattern() {
  static const std::regex pattern("[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*");
  return pattern;
}
const std::regex& tag_pattern() {
  static const std::regex pattern("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  return pattern;
}

bool looks_like_registry(std::string_view first) {
  return first == "localhost" || first.find('.') != std::string_view::npos ||
         first.find(':') != std::string_view::npos;
}

}  // namespace

bool is_sha256_digest(std::string_view digest) {
  if (digest.size() != 71 || !digest.starts_with("sha256:")) return false;
  return std::all_of(digest.begin() + 7, digest.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

core::Result<ImageReference> parse_image_reference(std::string_view text) {
  auto refuse = [&](const std::string& why) -> core::Error {
    return core::invalid_input("image reference '" + std::string(text) + "' " + why +
                               " (e.g. python:3.12-slim, ghcr.io/org/image:tag, name@sha256:...)");
  };
  if (text.empty() || text.size() > 512) return refuse("is empty or too long");
  ImageReference reference;
  std::string_view rest = text;
  if (auto at = rest.find('@'); at != std::string_view::npos) {
    reference.digest = std::string(rest.substr(at + 1));
    rest = rest.substr(0, at);
    if (!is_sha256_digest(reference.digest))
      return refuse("has a digest that is not sha256:<64 hex>");
  }
  // A tag follows the last ':' after the last '/' (a ':' before it belongs to a registry port).
  auto slash = rest.rfind('/');
  auto colon = rest.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    reference.tag = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
    if (!std::regex_match(reference.tag, tag_pattern())) return refuse("has an invalid tag");
  }
  auto first_slash = rest.find('/');
  if (first_slash != std::string_view::npos && looks_like_registry(rest.substr(0, first_slash))) {
    reference.registry = std::string(rest.substr(0, first_slash));
    rest = rest.substr(first_slash + 1);
  } else {
    reference.registry = std::string(kDockerHub);
  }
  if (reference.registry == "index.docker.io" || reference.registry == "registry-1.docker.io") {
    reference.registry = std::string(kDockerHub);
  }
  reference.repository = std::string(rest);
  if (reference.registry == kDockerHub && reference.repository.find('/') == std::string::npos) {
    reference.repository = "library/" + reference.repository;
  }
  if (reference.repository.empty()) return refuse("names no repository");
  std::size_t start = 0;
  while (start <= reference.repository.size()) {
    std::size_t end = reference.repository.find('/', start);
    if (end == std::string::npos) end = reference.repository.size();
    if (!std::regex_match(reference.repository.substr(start, end - start), component_pattern())) {
      return refuse("has an invalid name (lower-case letters, digits and . _ - only)");
    }
    start = end + 1;
  }
  if (reference.tag.empty() && reference.digest.empty()) reference.tag = "latest";
  return reference;
}

std::string ImageReference::canonical() const {
  std::string text = registry + "/" + repository;
  if (!tag.empty()) text += ":" + tag;
  if (!digest.empty()) text += "@" + digest;
  return text;
}

std::string ImageReference::api_host() const {
  return registry == kDockerHub ? "registry-1.docker.io" : registry;
}

// Loopback by address, not by spelling: "127.evil.example" is a name anyone can register, and
// a registry there must not get plain HTTP.
bool ImageReference::is_loopback() const {
  std::string host = registry;
  if (host.starts_with("[")) {
    host = host.substr(1, host.find(']') == std::string::npos ? 0 : host.find(']') - 1);
  } else if (auto colon = host.rfind(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  if (host == "localhost") return true;
  auto address = core::parse_ip_prefix(host);
  if (!address) return false;
  static const core::IpPrefix kIpv6Loopback = *core::parse_ip_prefix("::1");
  return address->family == AF_INET ? address->bytes[0] == 127 : *address == kIpv6Loopback;
}

}  // namespace paddock::rootfs
