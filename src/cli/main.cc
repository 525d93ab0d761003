// The `archimedes` command: one subcommand per file in this folder.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/commands.h"

namespace {

int Run(int argc, char** argv) {
  CLI::App app{"Archimedes: a co-location scheduler for long-running services and batch jobs"};
  try {
    app.require_subcommand(1);
    archimedes::cli::AddSimulateCommand(app);
    archimedes::cli::AddMagiCommand(app);
    archimedes::cli::AddProfileCommand(app);
    archimedes::cli::AddFaultsCommand(app);
    archimedes::cli::AddServeCommand(app);
    archimedes::cli::AddReplayCommand(app);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "archimedes: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (...) {
    std::cerr << "archimedes: unexpected error\n";
    return 1;
  }
}
