// Compiled twice by the layering tests: with the topo layer's include path it builds; with the
// model layer's (below topo) the include must fail, proving that the build enforces the layers.
#include "ringlab/topo/topology.hpp"

int main() {
  return 0;
}
