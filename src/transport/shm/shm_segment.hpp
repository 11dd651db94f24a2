#pragma once
// A POSIX shared-memory object mapped into this process, unmapped on destruction. Its name is
// unlinked separately, as soon as every rank has mapped it, so no name outlives the set-up.
#include <cstddef>
#include <string>

namespace ringlab::transport::shm {

class MappedSegment {
 public:
  // Creates `name` (it must not exist) with `bytes` of zeroes, or opens an existing one.
  static MappedSegment create(const std::string& name, std::size_t bytes);
  static MappedSegment open(const std::string& name, std::size_t bytes);

  MappedSegment() = default;
  MappedSegment(MappedSegment&& other) noexcept;
  MappedSegment& operator=(MappedSegment&& other) noexcept;
  ~MappedSegment();

  void* data() const { return data_; }

 private:
  MappedSegment(void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Removes the name (not the memory: mappings stay valid). Missing names are ignored.
void unlinkSegment(const std::string& name);

}  // namespace ringlab::transport::shm
