// Progress of long work on stderr (issue 18), never on stdout, so that pipes and `--json` stay
// clean. On a terminal one line is rewritten in place (at most a few times a second); otherwise
// (CI, a log file) a plain line is written every 10 % of the work or every 30 s, whichever comes
// first, and one at the end. Quiet shows nothing.
//
// A line reads: the label (the policy being run), how far (e.g. "simulated 1d3h of 2d, 56%"),
// the caller's detail (e.g. "tasks 1234 of 5000 done"), the wall time elapsed and, once some work
// is done, the estimated time left.
#ifndef ARCHIMEDES_CLI_PROGRESS_H_
#define ARCHIMEDES_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace archimedes::cli {

enum class ProgressMode { kQuiet, kTerminal, kLog };

// kQuiet when `quiet`, else kTerminal when stderr is a terminal, else kLog.
ProgressMode ProgressModeFor(bool quiet);

class ProgressLine {
 public:
  ProgressLine(ProgressMode mode, std::string label);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // `done` of `total` simulated seconds; `detail` follows them on the line.
  void Update(int64_t done, int64_t total, const std::string& detail);
  // Work whose total is unknown (e.g. rows of a file being read): a count and no estimate.
  void UpdateCount(const std::string& what);
  // The last line, ended by a newline on a terminal.
  void Finish(const std::string& detail);

 private:
  using Clock = std::chrono::steady_clock;

  void Show(const std::string& text, bool final);

  ProgressMode mode_;
  std::string label_;
  Clock::time_point start_;
  Clock::time_point last_shown_;
  int last_decile_ = -1;
  bool shown_ = false;
};

}  // namespace archimedes::cli

#endif  // ARCHIMEDES_CLI_PROGRESS_H_
