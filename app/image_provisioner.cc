#include "app/image_provisioner.h"

namespace paddock::app {

core::Status ImageProvisioner::ensure(const std::string& image,
                                      const runtime::PullProgress& progress) {
  std::shared_ptr<std::mutex> image_mutex;
  {
    std::lock_guard lock(mutex_);
    if (ready_.count(image) != 0) return {};
    auto& slot = per_image_[image];
    if (!slot) slot = std::make_shared<std::mutex>();
    image_mutex = slot;
  }
  std::lock_guard pulling(*image_mutex);  // a second caller waits for the first one's pull
  {
    std::lock_guard lock(mutex_);
    if (ready_.count(image) != 0) return {};
  }
  std::string backend(backend_.name());
  auto present = backend_.has_image(image);
  if (!present) return present.error().context("image " + image);
  if (!*present) {
    if (!pull_missing_) {
      std::string how = backend_.abilities().paddock_images
                            ? "'paddock pull " + image + "'"
                            : "'" + backend + " pull " + image + "'";
      return core::Error{ENOENT, "image " + image + " is not present (" + backend +
                                     ") and pulling is off (--pull never); pull it first with " +
                                     how};
    }
    if (progress) progress("pulling " + image);
    if (auto pulled = backend_.pull_image(image, progress); !pulled) return pulled;
  }
  std::lock_guard lock(mutex_);
  ready_.insert(image);
  return {};
}

}  // namespace paddock::app
