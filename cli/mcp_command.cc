#include "cli/mcp_command.h"

#include "app/log.h"
#include "cli/available_backends.h"
#include "cli/backend_settings.h"
#include "cli/mcp_settings.h"
#include "cli/output.h"
#include "cli/secret_broker_setup.h"
#include "cli/tls_terminator_maker.h"
#include "mcp/serve.h"

namespace paddock::cli {
namespace {

// The backends' settings from the environment, with what the server's settings table resolved
// for them laid over (a flag or its variable).
BackendSettings server_backend_settings(const app::ServerOptions& options,
                                        const config::Environment& env) {
  BackendSettings settings = backend_settings(env);
  settings.kube.namespace_name = options.kube_namespace;
  settings.kube.pods.start_seconds = options.pod_start_seconds;
  settings.kube.pods.pull_images = options.pull_missing_images;
  settings.kube.pods.seccomp_profile = options.kube_seccomp_profile;
  settings.kube.seccomp_profile_source = "--kube-seccomp-profile";
  return settings;
}

}  // namespace

int mcp_command(const McpRequest& request) {
  config::Environment env = config::process_environment();
  auto options = resolve_server_options(request.flags, env);
  if (!options) {
    // As every configuration error of the server: one line, exit status 2, before stdin is read.
    app::log(app::LogLevel::kError, options.error().message);
    return kServerConfigurationError;
  }
  BackendSettings settings = server_backend_settings(*options, env);
  // Brokered secrets: the authority and the sandboxes' trust bundle live as long as the server.
  BrokerSetup broker;
  if (!options->secrets.empty()) {
    auto made = set_up_broker(options->secrets, options->secrets_in_body, options->egress_ca_file,
                              make_openssl_terminator);
    if (!made) {
      app::log(app::LogLevel::kError, made.error().message);
      return kServerConfigurationError;
    }
    broker = std::move(*made);
    options->trust_bundle = broker.bundle.path();
    settings.native.broker = broker.broker;
  }
  return mcp::serve_stdio(*options,
                          [&] { return available_backends().create(options->backend, settings); });
}

}  // namespace paddock::cli
