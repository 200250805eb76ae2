#include "rootfs/image_install.h"

// What a sandbox on an image reads from its config: apart from installing, so that starting a
// sandbox links nothing of the unpacking.

namespace paddock::rootfs {
namespace {
using json = nlohmann::json;
}  // namespace

core::Result<json> read_json_blob(const ImageStore& store, const std::string& digest,
                                  const std::string& what) {
  auto data = store.read_blob(digest);
  if (!data) return data.error().context(what);
  json document = json::parse(*data, nullptr, false);
  if (!document.is_object())
    return core::Error{EBADMSG, what + " " + digest + " is not a JSON object"};
  return document;
}

std::vector<std::string> json_strings(const json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const auto& item : value) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

namespace {

core::Result<std::string> string_field(const json& run, const char* key) {
  auto found = run.find(key);
  if (found == run.end() || found->is_null()) return std::string{};
  if (!found->is_string()) {
    return core::Error{EBADMSG, std::string("image config: ") + key + " is not a string"};
  }
  return found->get<std::string>();
}

}  // namespace

core::Result<ImageRunConfig> parse_image_run_config(const json& config) {
  ImageRunConfig result;
  if (!config.is_object() || !config.contains("config") || config["config"].is_null()) {
    return result;
  }
  const json& run = config["config"];
  if (!run.is_object()) return core::Error{EBADMSG, "image config: \"config\" is not an object"};
  auto working_dir = string_field(run, "WorkingDir");
  if (!working_dir) return working_dir.error();
  auto user = string_field(run, "User");
  if (!user) return user.error();
  // The lists keep only their strings, as before; a string field of another type was a throw.
  result.env = json_strings(run.value("Env", json::array()));
  result.entrypoint = json_strings(run.value("Entrypoint", json::array()));
  result.cmd = json_strings(run.value("Cmd", json::array()));
  result.working_dir = std::move(*working_dir);
  result.user = std::move(*user);
  return result;
}

core::Result<ImageRunConfig> image_run_config(const ImageStore& store, const ImageRecord& record) {
  auto config = read_json_blob(store, record.config_digest, "image config");
  if (!config) return config.error();
  auto parsed = parse_image_run_config(*config);
  if (!parsed) return parsed.error().context("image " + record.reference);
  return parsed;
}

}  // namespace paddock::rootfs
