#pragma once
// Rendezvous stores: a small key-value space that the ranks of one job share while they find
// each other (addresses, ports, shared-memory names, process ids). A key may be set again (the
// new value replaces the old); a reader waits until its key appears. Three kinds: in-process (ranks
// as threads), a directory on a shared file system, and a TCP server run by rank 0.
#include <chrono>
#include <memory>
#include <string>

namespace ringlab::bootstrap {

class Store {
 public:
  virtual ~Store() = default;
  // Sets `key` (an existing value is replaced). Throws Transport when the store is unreachable.
  virtual void set(const std::string& key, const std::string& value) = 0;
  // Waits until `key` is set and returns its value; throws Timeout naming the key after `timeout`.
  virtual std::string get(const std::string& key, std::chrono::milliseconds timeout) = 0;
};

// Every rank of `size` calls it with the same `name`; returns when all have arrived. Throws
// Timeout naming the ranks that did not arrive.
void barrier(Store& store, const std::string& name, int rank, int size,
             std::chrono::milliseconds timeout);

// For ranks that are threads of one process. Thread-safe.
std::unique_ptr<Store> makeMemoryStore();

// A directory on a file system every rank sees (NFS, Lustre, or local for one host). Each key is
// a file written atomically (write then rename). The directory is created if missing.
std::unique_ptr<Store> openFileStore(const std::string& directory);

}  // namespace ringlab::bootstrap
