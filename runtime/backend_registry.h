#pragma once

// The backends paddock knows, registered explicitly (no static self-registration, which static
// libraries silently drop). Later issues add docker, podman and kubernetes here.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace paddock {

class BackendRegistry {
 public:
  using Factory = std::function<Result<std::unique_ptr<Backend>>()>;

  void add(std::string name, Factory factory);
  // The backend called `name`, or an error that lists the known ones.
  [[nodiscard]] Result<std::unique_ptr<Backend>> create(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, Factory>> factories_;
};

// Every backend this build of paddock has; "native" first, and the default.
BackendRegistry builtin_backends();

}  // namespace paddock
