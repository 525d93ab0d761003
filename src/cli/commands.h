// Each subcommand of `archimedes` lives in its own file and registers itself on the app here.
#ifndef ARCHIMEDES_CLI_COMMANDS_H_
#define ARCHIMEDES_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace archimedes::cli {

void AddSimulateCommand(CLI::App& app);
void AddMagiCommand(CLI::App& app);
void AddProfileCommand(CLI::App& app);
void AddFaultsCommand(CLI::App& app);
void AddServeCommand(CLI::App& app);
void AddReplayCommand(CLI::App& app);
void AddAgentCommand(CLI::App& app);
void AddEvaluateCommand(CLI::App& app);

}  // namespace archimedes::cli

#endif  // ARCHIMEDES_CLI_COMMANDS_H_
