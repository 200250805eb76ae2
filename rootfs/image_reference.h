#pragma once

// Image references as people write them ("python:3.12-slim", "ghcr.io/org/img:tag",
// "localhost:5000/x", "docker.io/library/python@sha256:..."), normalised the way Docker does:
// no registry means docker.io, a one-part name on docker.io means library/NAME, no tag and no
// digest means :latest.

#include <string>
#include <string_view>

#include "core/result.h"

namespace paddock::rootfs {

struct ImageReference {
  std::string registry;    // "docker.io", "ghcr.io", "localhost:5000"
  std::string repository;  // "library/python", "org/img"
  std::string tag;         // empty when pinned by digest only
  std::string digest;      // "sha256:<64 hex>", or empty

  // The canonical form: "docker.io/library/python:3.12-slim", "...@sha256:...".
  [[nodiscard]] std::string canonical() const;
  // Where the registry's API answers: docker.io's is registry-1.docker.io.
  [[nodiscard]] std::string api_host() const;
  // Plain HTTP is allowed without --insecure only for localhost and 127.0.0.0/8, as in Docker.
  [[nodiscard]] bool is_loopback() const;
};

core::Result<ImageReference> parse_image_reference(std::string_view text);

// "sha256:" followed by 64 lower-case hex digits.
bool is_sha256_digest(std::string_view digest);

// The hex part of "sha256:<hex>", which names the digest's files in the store.
inline std::string digest_hex(const std::string& digest) {
  return digest.substr(digest.find(':') + 1);
}

}  // namespace paddock::rootfs
