#pragma once
// Copy and reduce whose destination is written with non-temporal (streaming) stores. A plain
// store to a line that is not in cache first reads it (read-for-ownership): for a destination
// that is only written, a whole extra memory pass. Above the cache these save it; inside it they
// lose, since the line goes to memory and the next reader fetches it from there. Callers decide
// by size (docs/transports.md, "Streaming stores"). Results are bitwise those of copyBytes and
// reduce.
//
// Ordering: streaming stores are weakly ordered, and a release store (how the transports publish
// a finished pass) does not order them on x86. Both functions end with a store fence, so once
// they return, every byte they wrote is ordered before any later store of this thread, as with
// plain stores.
#include <cstddef>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce.hpp"

namespace ringlab {

// copyBytes with streaming stores; dst and src must not overlap.
void copyBytesStreaming(void* dst, const void* src, std::size_t bytes);

// reduce with streaming stores to out (float16 and bfloat16: plain stores); out must not overlap
// a or b (a destination that is also read is in cache already: nothing to save).
void reduceStreaming(const Reduction& how, void* out, const void* a, const void* b,
                     std::size_t count);

// Orders this thread's streaming stores before its later stores (sfence); both functions above
// end with it.
void storeFence();

}  // namespace ringlab
