// Runs independent pieces of work (one simulation per policy, one application's profile) on
// several threads and returns
// their results in index order, exactly as the sequential loop `for i in [0, count): out[i] =
// work(i)` would. The work items must share only const inputs (a simulation builds its own
// engine and world). With `threads` ≤ 1 (or one item) everything runs on the calling thread.
//
// If work items throw, every item already started still finishes, no new one starts, and the
// exception of the lowest index is rethrown.
#ifndef ARCHIMEDES_MODEL_PARALLEL_MAP_H_
#define ARCHIMEDES_MODEL_PARALLEL_MAP_H_

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

namespace archimedes {

// The threads worth using for `count` items by default: one per core, at most one per item.
inline int DefaultThreads(int count) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min(cores, count));
}

template <typename Work>
auto ParallelMap(int count, int threads, Work&& work)
    -> std::vector<std::invoke_result_t<Work&, int>> {
  using Result = std::invoke_result_t<Work&, int>;
  std::vector<std::optional<Result>> results(count);
  std::vector<std::exception_ptr> errors(count);
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (int i = next++; i < count && !failed; i = next++) {
      try {
        results[i].emplace(work(i));
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  const int spawned = std::min(threads, count) - 1;
  {
    std::vector<std::jthread> pool;
    pool.reserve(std::max(spawned, 0));
    for (int t = 0; t < spawned; ++t) pool.emplace_back(worker);
    worker();
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  std::vector<Result> out;
  out.reserve(count);
  for (std::optional<Result>& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_PARALLEL_MAP_H_
