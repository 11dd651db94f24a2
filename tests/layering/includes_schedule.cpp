// Compiled by layering_schedule_header_from_transport with the transport layer's include path,
// where the include must fail: bytes know no algorithm, so the transports see no schedule header.
#include "ringlab/schedule/schedule.hpp"

int main() {
  return 0;
}
