#pragma once
// Which requests come from the lab's own page. A web page the user visits elsewhere can send
// requests to the lab (it is on the user's machine), and with DNS rebinding (a name of the
// attacker's that resolves to 127.0.0.1) read the answers too. So, as local development servers do:
// the Host header must name this server, which a rebound name does not, and a POST must come from
// the lab's own origin, which another page's does not.
#include <string>
#include <string_view>

namespace ringlab::lab {

// Where the lab listens: the address given to it (without brackets) and the port.
struct LabAddress {
  std::string host;
  int port = 0;
};

// A Host header's value ("127.0.0.1:8642", "[::1]:8642", "localhost:8642") names the lab when its
// name is localhost, 127.0.0.1, ::1 or the listening address (any IP address when that is a
// wildcard, 0.0.0.0 or ::, since a rebound name is never an address), in any case, and its port
// is the lab's (no port: 80). An empty value (HTTP/1.0 sends none) is not one.
bool hostAllowed(std::string_view host, const LabAddress& lab);

// A POST's Origin header, when it has one, must be the origin of the page the lab served for this
// Host: "http://" + host. Browsers send Origin on every POST; a client that sends none is not a
// web page.
bool sameOrigin(std::string_view origin, std::string_view host);

}  // namespace ringlab::lab
