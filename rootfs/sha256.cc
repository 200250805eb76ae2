#include "rootfs/sha256.h"

#include <openssl/evp.h>

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

}  // namespace paddock::rootfs
