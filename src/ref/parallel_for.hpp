// The CPU references' thread pool in one function: runs body(worker, item) for every item in
// [0, items) on up to `threads` workers (<= 0: one per hardware thread). The caller is worker 0,
// helper threads are 1, 2, ...; items are handed out from an atomic counter, so the order of items is
// dynamic but each item's own arithmetic is not. If a helper thread cannot be started, the workers
// that did start finish the work.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace tilegemm {
namespace ref {

inline int resolve_threads(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(threads, 1);
}

template <class Body>
void parallel_for(int64_t items, int threads, const Body& body) {
  const int workers = static_cast<int>(std::min<int64_t>(items, resolve_threads(threads)));
  std::atomic<int64_t> next{0};
  auto work = [&](int worker) {
    for (int64_t item = next.fetch_add(1); item < items; item = next.fetch_add(1))
      body(worker, item);
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(static_cast<size_t>(std::max(workers - 1, 0)));
    for (int t = 1; t < workers; ++t) pool.emplace_back(work, t);
  } catch (...) {
    // Fewer helpers than asked for; the work still gets done below.
  }
  work(0);
  for (auto& t : pool) t.join();
}

}  // namespace ref
}  // namespace tilegemm
