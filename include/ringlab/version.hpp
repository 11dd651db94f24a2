#pragma once

namespace ringlab {

// `git describe --always --dirty` of the tree the library was built from.
const char* version();

}  // namespace ringlab
