#pragma once

// Images a language runs on (--image, or a policy's rootfs "image:REF") are made present on
// first use: found where the backend keeps images, else pulled with progress notifications, or
// refused with what to do when pulling is off (--pull never). Each image is settled once per
// server; a pull holds up only the calls that need that image.

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "core/result.h"
#include "runtime/backend.h"

namespace paddock::app {

class ImageProvisioner {
 public:
  ImageProvisioner(const runtime::Backend& backend, bool pull_missing)
      : backend_(backend), pull_missing_(pull_missing) {}

  core::Status ensure(const std::string& image, const runtime::PullProgress& progress);

 private:
  const runtime::Backend& backend_;
  const bool pull_missing_;
  std::mutex mutex_;  // guards the two below
  std::map<std::string, std::shared_ptr<std::mutex>> per_image_;
  std::set<std::string> ready_;
};

}  // namespace paddock::app
