#include "rootfs/image_install.h"

// What a sandbox on an image reads from its config: apart from installing, so that starting a
// sandbox links nothing of the unpacking.

namespace paddock::rootfs {
using json = nlohmann::json;

Result<json> read_json_blob(const ImageStore& store, const std::string& digest,
                            const std::string& what) {
  auto data = store.read_blob(digest);
  if (!data) return data.error().context(what);
  json document = json::parse(*data, nullptr, false);
  if (!document.is_object()) return Error{EBADMSG, what + " " + digest + " is not a JSON object"};
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

Result<ImageRunConfig> image_run_config(const ImageStore& store, const ImageRecord& record) {
  auto config = read_json_blob(store, record.config_digest, "image config");
  if (!config) return config.error();
  const json run = config->value("config", json::object());
  ImageRunConfig result;
  result.env = json_strings(run.value("Env", json::array()));
  result.entrypoint = json_strings(run.value("Entrypoint", json::array()));
  result.cmd = json_strings(run.value("Cmd", json::array()));
  result.working_dir = run.value("WorkingDir", "");
  result.user = run.value("User", "");
  return result;
}

}  // namespace paddock::rootfs
