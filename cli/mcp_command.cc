#include "cli/mcp_command.h"

#include "app/log.h"
#include "cli/available_backends.h"
#include "cli/backend_settings.h"
#include "cli/mcp_settings.h"
#include "cli/output.h"
#include "cli/secret_broker_setup.h"
#include "cli/tls_terminator_maker.h"
#include "config/setting_words.h"
#include "mcp/serve.h"

namespace paddock::cli {

int mcp_command(const McpRequest& request) {
  config::Environment env = config::process_environment();
  auto options = resolve_server_options(request.flags, env);
  if (!options) {
    // As every configuration error of the server: one line, exit status 2, before stdin is read.
    app::log(app::LogLevel::kError, options.error().message);
    return kServerConfigurationError;
  }
  BackendSettings settings =
      backend_settings(env, kube_choices(*options), options->pull_missing_images);
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
  return mcp::serve_stdio(
      *options, [&] { return available_backends().create(options->backend, settings); },
      [](const std::string& setting) { return config::how_to_set(setting, config::kMcp); });
}

}  // namespace paddock::cli
