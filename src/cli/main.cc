// The `archimedes` command: one subcommand per file in this folder.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

// A command line that cannot be parsed: one line naming the command and the problem, where the
// options are listed, and exit status 2, as usage errors conventionally end. Help, and a
// subcommand's own failure (already reported), go through CLI11 unchanged.
int UsageError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  const std::string kind = e.get_name();
  if (kind == "RuntimeError" || kind.rfind("CallFor", 0) == 0) return app.exit(e);
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  std::string command = "archimedes";
  std::string problem = e.what();
  if (!chosen.empty()) {
    command += " " + chosen.front()->get_name();
  } else if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    problem = "unknown command \"" + std::string(argv[1]) + "\" (commands: " + known + ")";
  }
  std::cerr << command << ": " << problem << "\nRun '" << command << " --help' for the options.\n";
  return 2;
}

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
    archimedes::cli::AddAgentCommand(app);
    archimedes::cli::AddEvaluateCommand(app);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return UsageError(app, e, argc, argv);
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
