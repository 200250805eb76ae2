#include "runtime/kube/kubeconfig.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/base64.h"

namespace paddock::kube {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The entry called `name` in a kubeconfig list (clusters, users, contexts), its inner map.
YAML::Node named(const YAML::Node& list, const std::string& name) {
  if (list && list.IsSequence()) {
    for (const auto& item : list) {
      if (item["name"] && item["name"].as<std::string>() == name) return item;
    }
  }
  return YAML::Node();
}

std::string text_of(const YAML::Node& node) {
  return node && node.IsScalar() ? node.as<std::string>() : "";
}

// A PEM from "<field>-data" (base64) or "<field>" (a file, relative to the kubeconfig's
// directory as kubectl reads it).
core::Result<std::string> pem_of(const YAML::Node& map, const std::string& field,
                                 const std::string& directory) {
  if (std::string data = text_of(map[field + "-data"]); !data.empty()) {
    auto decoded = core::base64_decode(data);
    if (!decoded) return core::invalid_input(field + "-data is not base64");
    return *decoded;
  }
  std::string file = text_of(map[field]);
  if (file.empty()) return std::string();
  if (file[0] != '/') file = directory + "/" + file;
  auto content = read_file(file);
  if (!content) return core::Error{ENOENT, "cannot read " + field + " " + file};
  return *content;
}

}  // namespace

core::Result<ClusterAccess> parse_kubeconfig(const std::string& text, const std::string& path,
                                             const std::string& context) {
  YAML::Node config;
  try {
    config = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    return core::invalid_input("kubeconfig " + path + " is not YAML: " + error.what());
  }
  std::string wanted = context.empty() ? text_of(config["current-context"]) : context;
  if (wanted.empty()) return core::invalid_input("kubeconfig " + path + " has no current-context");
  YAML::Node chosen = named(config["contexts"], wanted)["context"];
  if (!chosen)
    return core::invalid_input("kubeconfig " + path + " has no context '" + wanted + "'");
  std::string cluster_name = text_of(chosen["cluster"]), user_name = text_of(chosen["user"]);
  YAML::Node cluster = named(config["clusters"], cluster_name)["cluster"];
  if (!cluster) {
    return core::invalid_input("kubeconfig " + path + ": context '" + wanted + "' names cluster '" +
                               cluster_name + "', which is not there");
  }
  YAML::Node user = named(config["users"], user_name)["user"];
  std::string directory = path.substr(0, path.rfind('/'));
  ClusterAccess access;
  access.source = path + " (context " + wanted + ")";
  access.server = text_of(cluster["server"]);
  if (access.server.empty())
    return core::invalid_input("kubeconfig " + path + ": the cluster has no server");
  while (access.server.ends_with("/")) access.server.pop_back();
  access.namespace_name = text_of(chosen["namespace"]);
  if (access.namespace_name.empty()) access.namespace_name = kDefaultNamespace;
  access.insecure_skip_tls_verify = text_of(cluster["insecure-skip-tls-verify"]) == "true";
  auto ca = pem_of(cluster, "certificate-authority", directory);
  if (!ca) return ca.error().context("kubeconfig " + path);
  access.ca_pem = *ca;
  if (user) {
    access.token = text_of(user["token"]);
    if (std::string file = text_of(user["tokenFile"]); access.token.empty() && !file.empty()) {
      auto token = read_file(file);
      if (!token)
        return core::Error{ENOENT, "kubeconfig " + path + ": cannot read tokenFile " + file};
      access.token = *token;
    }
    auto cert = pem_of(user, "client-certificate", directory);
    if (!cert) return cert.error().context("kubeconfig " + path);
    auto key = pem_of(user, "client-key", directory);
    if (!key) return key.error().context("kubeconfig " + path);
    access.client_cert_pem = *cert;
    access.client_key_pem = *key;
    if (user["exec"] && access.token.empty() && access.client_cert_pem.empty()) {
      return core::invalid_input("kubeconfig " + path + ": user '" + user_name +
                                 "' authenticates with an exec plugin, which paddock does not run; "
                                 "give it a token or a client certificate");
    }
  }
  while (!access.token.empty() && (access.token.back() == '\n' || access.token.back() == '\r')) {
    access.token.pop_back();
  }
  return access;
}

core::Result<ClusterAccess> find_cluster_access(const ClusterLocation& location) {
  std::string path;
  if (location.kubeconfig && !location.kubeconfig->empty()) {
    path = location.kubeconfig->substr(0, location.kubeconfig->find(':'));
  } else if (location.home && location.home->starts_with("/")) {
    path = *location.home + "/.kube/config";
  }
  if (!path.empty()) {
    if (auto text = read_file(path)) return parse_kubeconfig(*text, path);
    if (location.kubeconfig) return core::Error{ENOENT, "cannot read KUBECONFIG " + path};
  }
  const std::string account = "/var/run/secrets/kubernetes.io/serviceaccount";
  const auto& host = location.service_host;
  const auto& port = location.service_port;
  auto token = read_file(account + "/token");
  if (!host || !port || !token) {
    return core::Error{ENOENT, "no kubeconfig (" +
                                   (path.empty() ? std::string("~/.kube/config") : path) +
                                   ") and not inside a cluster; set KUBECONFIG"};
  }
  ClusterAccess access;
  access.source = "in-cluster service account";
  access.server = "https://" + *host + ":" + *port;
  access.token = *token;
  access.ca_pem = read_file(account + "/ca.crt").value_or("");
  access.namespace_name = read_file(account + "/namespace").value_or(kDefaultNamespace);
  return access;
}

}  // namespace paddock::kube
