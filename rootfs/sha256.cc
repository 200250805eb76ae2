#include "rootfs/sha256.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>

namespace paddock::rootfs {

struct Sha256::State {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  ~State() { EVP_MD_CTX_free(context); }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  EVP_DigestInit_ex(state_->context, EVP_sha256(), nullptr);
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  EVP_DigestUpdate(state_->context, bytes.data(), bytes.size());
}

std::string Sha256::digest() {
  unsigned char raw[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_DigestFinal_ex(state_->context, raw, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "sha256:";
  for (unsigned i = 0; i < length; ++i) text += {kHex[raw[i] >> 4], kHex[raw[i] & 15]};
  return text;
}

std::string sha256_of(std::string_view bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  return hasher.digest();
}

Result<std::string> sha256_of_fd(int fd) {
  Sha256 hasher;
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return system_error("reading for sha256");
    if (got == 0) break;
    hasher.update(std::string_view(buffer, static_cast<std::size_t>(got)));
  }
  return hasher.digest();
}

}  // namespace paddock::rootfs
