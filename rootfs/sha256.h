#pragma once

// SHA-256 through OpenSSL: content addresses of blobs, and their verification.

#include <memory>
#include <string>
#include <string_view>

namespace paddock::rootfs {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  // "sha256:<hex>"; the hasher is spent afterwards.
  std::string digest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_of(std::string_view bytes);

}  // namespace paddock::rootfs
