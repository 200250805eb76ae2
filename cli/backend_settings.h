#pragma once

// The backends' settings from the environment, resolved here (the only floor that reads it) and
// handed down typed: the engines' and the cluster's locations as their own clients find them,
// and paddock's variables for each backend. `paddock run` and `paddock mcp` lay what their
// settings table chose over these, the same way.

#include "app/server_config.h"
#include "cli/backend_registry.h"
#include "config/settings.h"

namespace paddock::cli {

BackendSettings backend_settings(const config::Environment& env);

// The kubernetes backend's choices the settings table made, over the backend's defaults.
kube::KubeSettings kube_choices(const app::ServerOptions& options);

// The same, with the kubernetes backend's choices the settings table made (flag or variable)
// laid over; `pull_images` false: a missing image is refused (--pull never).
BackendSettings backend_settings(const config::Environment& env, const kube::KubeSettings& chosen,
                                 bool pull_images);

}  // namespace paddock::cli
