// A growable array whose elements never move. Appending never relocates what is stored, so its
// cost does not grow with the size (a vector's doubling copies every element while its owner
// waits) and references stay valid. Indexing is a shift, a mask and two loads. Elements live in
// chunks of 2^kChunkBits, default-constructed when their chunk is allocated; T must be
// default-constructible and move-assignable.
#ifndef ARCHIMEDES_MODEL_CHUNKED_VECTOR_H_
#define ARCHIMEDES_MODEL_CHUNKED_VECTOR_H_

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace archimedes {

template <typename T, int kChunkBits = 8>
class ChunkedVector {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return chunks_[i >> kChunkBits][i & kMask]; }
  const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & kMask]; }

  void push_back(T value) { emplace_back() = std::move(value); }
  // A default-constructed element at the end.
  T& emplace_back() {
    Reserve(size_ + 1);
    return (*this)[size_++];
  }
  // Grows to `n` elements, the new ones default-constructed; never shrinks.
  void resize(size_t n) {
    Reserve(n);
    if (n > size_) size_ = n;
  }

 private:
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static constexpr size_t kMask = kChunk - 1;

  void Reserve(size_t n) {
    while (chunks_.size() * kChunk < n) chunks_.push_back(std::make_unique<T[]>(kChunk));
  }

  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_MODEL_CHUNKED_VECTOR_H_
