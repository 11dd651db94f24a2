// Compiled alone by the communicator_header_without_json test: the Communicator's header must not
// bring nlohmann/json with it.
#include "ringlab/communicator.hpp"

#ifdef INCLUDE_NLOHMANN_JSON_HPP_
#error "ringlab/communicator.hpp includes nlohmann/json.hpp"
#endif

int main() {
  return 0;
}
