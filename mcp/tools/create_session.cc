// create_session: a sandbox that stays, for files and libraries across execute_code calls.

#include "core/text.h"
#include "mcp/content.h"
#include "mcp/interpreter_content.h"
#include "mcp/progress_observer.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"
#include "services/code_runner.h"
#include "services/live_session.h"

namespace paddock::mcp {
namespace {

class CreateSession final : public Tool {
 public:
  explicit CreateSession(std::string default_language)
      : default_language_(std::move(default_language)) {}
  std::string name() const override { return "create_session"; }
  json definition() const override {
    return {
        {"name", name()},
        {"title", "Create a session"},
        {"description",
         "A sandbox that stays: execute_code calls with its session_id keep its /work files "
         "and libraries. python and r sessions (native backend) are live: each call is a "
         "notebook cell, variables persist, the last expression is shown. Closes after "
         "ttl_seconds idle or close_session."},
        {"inputSchema",
         {{"type", "object"},
          {"properties",
           {{"language", language_property(default_language_)},
            {"libraries", libraries_property("Packages to install now.")},
            {"live",
             {{"type", "boolean"},
              {"default", true},
              {"description", "false: a new process per call."}}},
            {"mounts",
             {{"type", "array"},
              {"maxItems", 8},
              {"description", "Shares to mount in place (native backend); rw if the share allows."},
              {"items",
               {{"type", "object"},
                {"properties",
                 {{"share", {{"type", "string"}}},
                  {"path", {{"type", "string"}, {"description", "Under /work or /mnt."}}},
                  {"rw", {{"type", "boolean"}, {"default", false}}}}},
                {"required", {"share"}},
                {"additionalProperties", false}}}}},
            {"ttl_seconds",
             {{"type", "number"},
              {"exclusiveMinimum", 0},
              {"description", "Idle seconds before closing (default 1800)."}}}}},
          {"additionalProperties", false}}},
        {"outputSchema", output_schema()},
        {"annotations", annotations("Create a session", false, false)}};
  }

  static json output_schema() {
    json schema = {{"type", "object"},
                   {"properties", interpreter_schema_properties()},
                   {"required", {"session_id", "live"}}};
    schema["properties"]["session_id"] = {{"type", "string"}};
    return schema;
  }

  ToolResult call(const json& arguments, ToolContext& context) override {
    ServerState& state = context.state;
    auto policy = state.policies().find(arguments.value("language", default_language_));
    if (!policy) return tool_error(policy.error().message);
    // The shares' binds go into the builder with the rest: the shape is never patched after.
    std::vector<BindMount> binds;
    auto mounts = add_mounts(state, arguments, binds);
    if (!mounts) return tool_error(mounts.error().message);
    auto spec = session_spec(state, **policy, context.progress, binds);
    if (!spec) return tool_error(spec.error().message);
    auto libraries = arguments.value("libraries", std::vector<std::string>{});
    bool live = arguments.value("live", true);
    // A plain live session takes a sandbox whose kernel is ready, when one waits; the pool keeps
    // one waiting for the language's next from now on.
    std::unique_ptr<ReadyKernel> ready;
    if (live && libraries.empty() && binds.empty() && !(*policy)->kernel.name.empty()) {
      ready = state.kernels().take((*policy)->name, spec->shape, std::nullopt, spec->plan);
    }
    if (auto room = state.sessions().reserve(); !room) {
      state.kernels().retire(std::move(ready));
      return tool_error(room.error().message);
    }
    // Warm sandboxes and ready kernels give way: with the sessions they stay within
    // --max-sessions.
    state.warm().fit();
    state.kernels().fit();
    std::unique_ptr<LiveKernel> kernel = ready ? std::move(ready->kernel) : nullptr;
    auto opened = ready ? Result<std::unique_ptr<Session>>(std::move(ready->session))
                        : state.backend().open_session(spec->shape, spec->plan);
    Limits limits = limits_of(spec->shape.limits, spec->plan);
    record_mounts(state, **policy, limits, *mounts, opened ? "done" : "error");
    if (!opened) {
      state.sessions().unreserve();
      return tool_error("could not create the session: " +
                        without_host_paths(state.shares(), opened.error().message));
    }
    auto entry =
        state.sessions().add(std::move(*opened), **policy,
                             arguments.value("ttl_seconds", state.options().session_idle_seconds));
    entry->limits = limits;
    entry->mounts = std::move(*mounts);
    std::string text = "session " + entry->id + " (" + (*policy)->name + ")";
    if (!libraries.empty()) {
      ProgressObserver observer(context);
      auto installed = install_in_session(*entry, state, libraries, observer, name());
      if (auto why = install_failure(installed)) {
        state.sessions().close(entry->id);
        return tool_error("installing libraries failed, so the session was closed: " + *why);
      }
      text += " with " + counted(libraries.size(), "library", "libraries") + " installed";
    }
    // After the install: the interpreter starts with the libraries there.
    {
      std::lock_guard lock(entry->run_mutex);
      if (kernel) {
        adopt_interpreter(*entry, std::move(kernel));
      } else {
        start_interpreter(*entry, live, state.secrets());
      }
    }
    ToolResult result;
    for (const auto& mount : entry->mounts) {
      text += "; share " + mount.share + " mounted at " + mount.path +
              (mount.writable ? " (read-write)" : " (read-only)");
    }
    result.content.push_back(text_block(text + "; " + interpreter_line(*entry)));
    result.structured = interpreter_json(*entry);
    result.structured["session_id"] = entry->id;
    return result;
  }

 private:
  // The shares `arguments` asks to mount, added to the spec's binds.
  static Result<std::vector<ShareMount>> add_mounts(const ServerState& state, const json& arguments,
                                                    std::vector<BindMount>& binds) {
    std::vector<ShareMount> mounts;
    if (!arguments.contains("mounts") || arguments["mounts"].empty()) return mounts;
    for (const auto& asked : arguments["mounts"]) {
      ShareMount mount{asked["share"].get<std::string>(), asked.value("path", ""),
                       asked.value("rw", false)};
      auto bind = share_bind(state.shares(), mount, SandboxShape{}.workdir);
      if (!bind) return bind.error();
      for (const auto& other : binds) {
        if (other.sandbox_path == bind->sandbox_path) {
          return invalid_input("mounts: two mounts at " + bind->sandbox_path);
        }
      }
      binds.push_back(std::move(*bind));
      mounts.push_back(std::move(mount));
    }
    // After the shares are checked, so that a wrong name is what the model hears first.
    if (!state.backend().abilities().mounts) {
      return invalid_input("mounts work on the native backend only; on " +
                           std::string(state.backend().name()) +
                           " copy files in and out with upload_file and download_file instead");
    }
    return mounts;
  }

  // The model knows shares by name: a refusal about a mount's folder says its share instead.
  static std::string without_host_paths(const Shares& shares, std::string message) {
    for (const auto& share : shares.all()) {
      for (std::size_t at; (at = message.find(share.host_dir)) != std::string::npos;) {
        message.replace(at, share.host_dir.size(), "share '" + share.name + "'");
      }
    }
    return message;
  }

  // One audit line for the mounts of a session, whether it opened or not.
  static void record_mounts(const ServerState& state, const LanguagePolicy& policy,
                            const Limits& limits, const std::vector<ShareMount>& mounts,
                            const std::string& outcome) {
    if (mounts.empty()) return;
    AuditRecord record;
    record.tool = "create_session";
    record.language = policy.name;
    record.backend = state.backend().name();
    record.limits = limits;
    record.outcome = outcome;
    for (const auto& mount : mounts) {
      HostFileRecord file;
      file.action = "mount";
      file.host_path = state.shares().find(mount.share)->host_dir;
      file.session_path = mount.path;
      file.writable = mount.writable;
      record.host_files.push_back(std::move(file));
    }
    state.record(record);
  }

  std::string default_language_;
};

}  // namespace

std::unique_ptr<Tool> make_create_session(const std::string& default_language) {
  return std::make_unique<CreateSession>(default_language);
}

}  // namespace paddock::mcp
