#include "cli/wrap_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include "app/shares.h"
#include "app/wrapped_server.h"
#include "cli/available_backends.h"
#include "cli/backend_settings.h"
#include "cli/host_paths.h"
#include "cli/output.h"
#include "config/resolve.h"
#include "config/server_profile.h"
#include "config/setting_words.h"
#include "language/refusal_lines.h"
#include "state/server_home.h"

namespace paddock::cli {
namespace {

// Everything a start holds until the server exits: its removal ends the proxy's broker, a
// temporary home and the bundle.
struct Start {
  config::Options options;
  std::optional<config::ServerProfile> profile;
  app::Shares shares;
  std::optional<state::ServerHome> home;
  CommandSecrets secrets;
  app::WrappedServerOptions server;
};

core::Result<config::Options> resolve_options(const WrapRequest& request,
                                              const config::Environment& env,
                                              std::optional<config::ServerProfile>& profile) {
  std::vector<config::Preset> presets;
  auto named = request.flags.find("--profile");
  if (named != request.flags.end() && !named->second.empty()) {
    auto loaded = config::load_server_profile(named->second.back(),
                                              user_server_profile_directory(env), env("HOME"));
    if (!loaded) return loaded.error();
    profile = std::move(*loaded);
    for (const auto& setting : profile->settings) {
      presets.push_back({setting.flag, setting.value, setting.where});
    }
  }
  return config::resolve(config::kWrap, request.flags, env, presets);
}

// Whom the home belongs to: the user; under root, the owner of the read-write shares (a sandbox
// writes as one host user), else an id of its own.
state::HomeOwner home_owner(const app::Shares& shares) {
  if (geteuid() != 0) return {geteuid(), getegid()};
  for (const auto& share : shares.all()) {
    struct stat info {};
    if (share->writable && fstat(share->root.get(), &info) == 0) {
      return {info.st_uid, info.st_gid};
    }
  }
  return {state::kWrappedServerId, state::kWrappedServerId};
}

core::Result<state::ServerHome> open_home(const Start& start, const config::Environment& env) {
  state::HomeOwner owner = home_owner(start.shares);
  const app::ServerOptions& server = start.options.server;
  std::string state_dir = server.state_dir_set ? server.state_dir : default_state_directory(env);
  bool kept = !start.profile || start.profile->kept_home;
  if (!kept || state_dir.empty()) return state::ServerHome::temporary(owner);
  return state::ServerHome::open_kept(state_dir, start.server.name, owner);
}

core::Status prepare(const WrapRequest& request, const config::Environment& env,
                     const TerminatorMaker& make_terminator, Start& start) {
  auto options = resolve_options(request, env, start.profile);
  if (!options) return options.error();
  start.options = std::move(*options);
  const app::ServerOptions& server = start.options.server;
  auto shares = app::Shares::open(server.shares, env("HOME"));
  if (!shares) return shares.error();
  start.shares = std::move(*shares);
  std::vector<net::egress::SecretSpec> specs;
  for (const auto& secret : start.options.secrets) specs.push_back(secret.spec);
  auto secrets = command_secrets("--secret", specs, server.secrets_in_body, server.egress_ca_file,
                                 env, make_terminator);
  if (!secrets) return secrets.error();
  start.secrets = std::move(*secrets);

  app::WrappedServerOptions& wrapped = start.server;
  wrapped.command = request.command;
  std::optional<std::string> package, version;
  if (start.profile) {
    package = start.profile->package;
    version = start.profile->version;
  }
  wrapped.launch = app::package_launch(request.command, package, version);
  wrapped.name = start.options.wrap.name.value_or(
      start.profile ? start.profile->name
                    : app::default_server_name(request.command, wrapped.launch));
  auto home = open_home(start, env);
  if (!home) return home.error();
  start.home.emplace(std::move(*home));
  wrapped.home = start.home->home();
  wrapped.package_installed = wrapped.launch && start.home->installed(wrapped.launch->spec);
  wrapped.server = &start.options.server;
  wrapped.env = start.options.run.env;
  wrapped.trust_bundle = start.secrets.trust_bundle;
  wrapped.trust_env = start.secrets.env;
  return {};
}

core::Result<app::AuditRecorder> open_audit(const Start& start, const AuditOpener& open_audit_log) {
  const auto& path = start.options.server.audit_log;
  if (!path) return app::AuditRecorder();
  if (!open_audit_log) return core::invalid_input("this paddock cannot write an audit log");
  return open_audit_log(*path, start.options.server.pass_through_env);
}

// What the user reads when the server's sandbox ended it, or its package could not be fetched.
void report_end(const runtime::RunResult& result, const runtime::RunPlan& plan,
                const app::WrappedServerOptions& server) {
  bool installer_failed =
      server.launch && !server.package_installed && result.step == 0 && plan.steps.size() > 1;
  if (installer_failed) {
    note("could not fetch " + server.launch->spec + " from " + server.launch->registry_host +
         " (the installer step " +
         (result.outcome == runtime::Outcome::kExited
              ? "exited " + std::to_string(result.exit_code)
              : std::string(runtime::to_string(result.outcome))) +
         "; its output is above): check the package's name and version, and that this machine "
         "reaches " +
         server.launch->registry_host);
    return;
  }
  if (result.outcome == runtime::Outcome::kTimedOut)
    note("the server ran past --timeout and was ended");
  if (result.outcome == runtime::Outcome::kExecFailed) note(result.exec_error);
  language::RefusalContext refusals{.allow_host_hint =
                                        "Add --allow-host HOST (or the profile's \"hosts\") "
                                        "to let it reach one.",
                                    .program_output = true};
  for (const auto& line : language::refusal_lines(result, refusals)) note(line);
}

}  // namespace

int wrap_command(const WrapRequest& request, const TerminatorMaker& make_terminator,
                 const AuditOpener& open_audit_log) {
  config::Environment env = config::process_environment();
  Start start;
  if (auto prepared = prepare(request, env, make_terminator, start); !prepared) {
    fail(config::worded(prepared.error(), config::kWrap));
    return kServerConfigurationError;
  }
  auto record = open_audit(start, open_audit_log);
  if (!record) {
    fail(record.error().message);
    return kServerConfigurationError;
  }
  BackendSettings settings = backend_settings(env, {}, true);
  settings.native.broker = start.secrets.broker.broker;
  auto backend = available_backends().create("native", settings);
  if (!backend) return fail(config::worded(backend.error(), config::kWrap));
  auto spec = app::wrapped_server_spec(start.server, start.shares);
  if (!spec) return fail(config::worded(spec.error(), config::kWrap));

  app::WrappedStream::Options stream;
  stream.server_name = start.server.name;
  stream.denied_tools = {start.options.wrap.deny_tools.begin(),
                         start.options.wrap.deny_tools.end()};
  stream.record_values = start.options.wrap.audit_values;
  auto result = app::serve_wrapped(**backend, spec->first, spec->second, std::move(stream), *record,
                                   STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO);
  if (!result) return fail(config::worded(result.error(), config::kWrap));
  const app::WrappedServerOptions& server = start.server;
  if (server.launch && !server.package_installed && result->step >= 1 && start.home->kept()) {
    if (auto marked = start.home->mark_installed(server.launch->spec); !marked) {
      note(marked.error().message);
    }
  }
  report_end(*result, spec->second, server);
  return runtime::cli_exit_status(*result);
}

}  // namespace paddock::cli
