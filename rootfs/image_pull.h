#pragma once

// `paddock pull REF`: an image from a registry speaking the OCI distribution API into the store.
//
// The tag resolves to a manifest (an index or manifest list first picks the platform's), and
// every blob is verified against its digest as it streams into the store: the manifest against
// Docker-Content-Digest or the digest that named it, the config and layers against the
// manifest's. Layers download in parallel, each on its own connection; a layer whose blob or
// unpacked diff_id is in the store already is not downloaded. install_image then unpacks (gzip,
// zstd or plain), checks diff_ids and records the image: nothing is recorded unless all of it
// is there. An image already present with the same manifest costs one manifest request.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "rootfs/image_install.h"
#include "rootfs/image_reference.h"
#include "rootfs/image_store.h"
#include "rootfs/registry_credentials.h"

namespace paddock::rootfs {

struct PullOptions {
  std::string platform = kDefaultPlatform;
  bool insecure = false;             // plain HTTP / unverified TLS for any registry
  std::optional<std::string> creds;  // "USER:PASS"; else ~/.docker/config.json
  RegistryConfig registry_config;    // where the user's registry configuration is
  int parallel_layers = 3;
  // A progress bar on stderr; only drawn when stderr is a terminal.
  bool progress = true;
  // Progress as lines instead (an MCP server's notifications): at most about one a second.
  std::function<void(const std::string& line)> on_progress;
};

// A blob as a manifest describes it: its sha256 digest and its size, which bounds the download.
struct Layer {
  std::string digest;
  std::uint64_t size = 0;
};

// A manifest's config or layer descriptor ("config", "layer" name it in errors). Refuses a
// digest that is not sha256 and a missing size.
core::Result<Layer> parse_descriptor(const nlohmann::json& descriptor, const std::string& what);

core::Result<ImageRecord> pull_image(ImageStore& store, const ImageReference& reference,
                                     const PullOptions& options = {});

}  // namespace paddock::rootfs
