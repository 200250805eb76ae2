#include "support/registry_server.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

namespace paddock::testing {

std::string registry_config(const std::string& storage, int port, const std::string& extra) {
  return "version: 0.1\n"
         "log:\n  level: warn\n"
         "storage:\n  filesystem:\n    rootdirectory: " +
         storage +
         "\n"
         "http:\n  addr: 127.0.0.1:" +
         std::to_string(port) + "\n" + extra;
}

std::unique_ptr<Server> start_registry(const std::string& dir, const std::string& name,
                                       const std::string& storage, const std::string& extra,
                                       int& port, std::string& error) {
  bool chosen = port > 0;
  for (int attempt = 0; attempt < (chosen ? 1 : 3); ++attempt) {
    if (!chosen) port = free_port();
    std::string config = dir + "/" + name + ".yml";
    std::ofstream(config) << registry_config(storage, port, extra);
    auto server = std::make_unique<Server>(
        std::vector<std::string>{"/usr/bin/docker-registry", "serve", config},
        dir + "/" + name + ".log");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < deadline && server->running() &&
           !accepts_connections(port)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (server->running() && accepts_connections(port)) return server;
    error = "docker-registry did not start: " + server->log();
  }
  return nullptr;
}

}  // namespace paddock::testing
