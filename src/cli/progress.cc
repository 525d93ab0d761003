#include "cli/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "model/duration.h"

namespace archimedes::cli {
namespace {

constexpr auto kTerminalPeriod = std::chrono::milliseconds(200);
constexpr auto kLogPeriod = std::chrono::seconds(30);

std::string Seconds(double s) { return FormatDuration(static_cast<int64_t>(std::lround(s))); }

}  // namespace

ProgressMode ProgressModeFor(bool quiet) {
  if (quiet) return ProgressMode::kQuiet;
  return isatty(STDERR_FILENO) != 0 ? ProgressMode::kTerminal : ProgressMode::kLog;
}

ProgressLine::ProgressLine(ProgressMode mode, std::string label)
    : mode_(mode), label_(std::move(label)), start_(Clock::now()), last_shown_(start_) {}

void ProgressLine::Update(int64_t done, int64_t total, const std::string& detail) {
  if (mode_ == ProgressMode::kQuiet) return;
  const double share = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int decile = static_cast<int>(share * 10);
  const Clock::time_point now = Clock::now();
  const bool due = mode_ == ProgressMode::kTerminal
                       ? now - last_shown_ >= kTerminalPeriod || !shown_
                       : decile > last_decile_ || now - last_shown_ >= kLogPeriod;
  if (!due) return;
  last_decile_ = decile;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string text = "simulated " + FormatDuration(done) + " of " + FormatDuration(total) + ", " +
                     std::to_string(static_cast<int>(share * 100)) + "%";
  if (!detail.empty()) text += "  " + detail;
  text += "  elapsed " + Seconds(elapsed);
  if (share > 0 && share < 1) text += "  ETA " + Seconds(elapsed * (1 - share) / share);
  Show(text, false);
}

void ProgressLine::UpdateCount(const std::string& what) {
  if (mode_ == ProgressMode::kQuiet) return;
  const Clock::time_point now = Clock::now();
  const auto period = mode_ == ProgressMode::kTerminal ? Clock::duration(kTerminalPeriod)
                                                       : Clock::duration(kLogPeriod);
  if (shown_ && now - last_shown_ < period) return;
  Show(what + "  elapsed " + Seconds(std::chrono::duration<double>(now - start_).count()), false);
}

void ProgressLine::Finish(const std::string& detail) {
  if (mode_ == ProgressMode::kQuiet) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  Show(detail + (detail.empty() ? "" : "  ") + "done in " + Seconds(elapsed), true);
}

void ProgressLine::Show(const std::string& text, bool final) {
  last_shown_ = Clock::now();
  shown_ = true;
  if (mode_ == ProgressMode::kTerminal) {
    // Carriage return and erase-to-end-of-line: the line is rewritten where it stands.
    std::fprintf(stderr, "\r\033[K  %-14s %s%s", label_.c_str(), text.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(stderr, "  %-14s %s\n", label_.c_str(), text.c_str());
  }
  std::fflush(stderr);
}

}  // namespace archimedes::cli
