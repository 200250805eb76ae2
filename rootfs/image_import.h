#pragma once

// `paddock import PATH`: an OCI image layout directory, an OCI archive (that layout as a tar)
// or a `docker save` tarball. Every blob is hashed as it is copied into the store and checked
// against the digest that names it; every layer is unpacked once and checked against its
// diff_id. Nothing is recorded unless all of it is there.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "rootfs/image_store.h"

namespace paddock::rootfs {

struct ImportOptions {
  std::optional<std::string> tag;  // the reference to record; else the archive's own names
  std::string platform = "linux/amd64";
};

core::Result<std::vector<ImageRecord>> import_images(ImageStore& store, const std::string& path,
                                                     const ImportOptions& options = {});

}  // namespace paddock::rootfs
