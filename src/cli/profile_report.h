// `archimedes profile --report FILE.html`: what profiling learned, as one self-contained page
// (report/html_page.h, docs/reports.md): each class's daily curves per dimension, the members of
// each class, right-sizing advice against the current requests, and the health warnings, each
// with the usage trend of its container that raised it.
#ifndef ARCHIMEDES_CLI_PROFILE_REPORT_H_
#define ARCHIMEDES_CLI_PROFILE_REPORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/resources.h"
#include "profile/profile.h"
#include "report/line_chart.h"

namespace archimedes::cli {

// An amount in the units of a profile: "250m" cpu, "1.5Gi"/"200.0Mi" otherwise, or the bare
// share when the profile is normalised.
std::string FormatAmount(Dim dim, double value, bool normalized);

// Why an application's advice in `dim` stops short of what the right-sizing rule needed, with that
// need ("limit too low: needs 1.2", "more than the largest node: needs 70Gi"); empty when it does
// not.
std::string FormatBound(const AppProfile& p, Dim dim, bool normalized);

// The usage of a warned container in the warned dimension: (time, value) in the input's time.
using WarningTrends = std::map<std::pair<std::string, std::string>, std::vector<report::Point>>;

// The containers whose trends the page draws: the first `max_charts` warnings'.
inline constexpr size_t kMaxTrendCharts = 6;

// `trends` is keyed by (app, container) of set.warnings[i] for i < kMaxTrendCharts; a warning
// without a trend gets none drawn.
std::string FormatProfileReport(const ProfileSet& set, const std::string& summary,
                                const WarningTrends& trends);

}  // namespace archimedes::cli

#endif  // ARCHIMEDES_CLI_PROFILE_REPORT_H_
