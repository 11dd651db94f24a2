// Compiled twice by the layering tests: with the transport layer's include path it builds; with
// the report layer's the include must fail, proving that renderings of records cannot reach a
// transport.
#include "ringlab/transport/transport.hpp"

int main() {
  return 0;
}
