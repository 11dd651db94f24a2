#include "host_check.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace ringlab::lab {
namespace {

bool equalNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool isAddress(std::string_view name) {
  const std::string text(name);
  unsigned char bytes[16];
  return inet_pton(AF_INET, text.c_str(), bytes) == 1 ||
         inet_pton(AF_INET6, text.c_str(), bytes) == 1;
}

}  // namespace

bool hostAllowed(std::string_view host, const LabAddress& lab) {
  std::string_view name = host, port;
  if (host.starts_with('[')) {  // an IPv6 address, in brackets to set it off from the port
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    name = host.substr(1, close - 1);
    const std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return false;
    port = rest.empty() ? rest : rest.substr(1);
    if (!isAddress(name) || name.find(':') == std::string_view::npos) return false;
  } else if (const std::size_t colon = host.find(':'); colon != std::string_view::npos) {
    name = host.substr(0, colon);
    port = host.substr(colon + 1);
  }
  const std::string expected = std::to_string(lab.port);
  if (port.empty() ? lab.port != 80 || host.ends_with(':') : port != expected) return false;
  if (name.empty()) return false;
  const bool wildcard = lab.host == "0.0.0.0" || lab.host == "::";
  return equalNoCase(name, "localhost") || name == "127.0.0.1" || name == "::1" ||
         equalNoCase(name, lab.host) || (wildcard && isAddress(name));
}

bool sameOrigin(std::string_view origin, std::string_view host) {
  constexpr std::string_view scheme = "http://";
  return !host.empty() && origin.size() == scheme.size() + host.size() &&
         equalNoCase(origin.substr(0, scheme.size()), scheme) &&
         equalNoCase(origin.substr(scheme.size()), host);
}

}  // namespace ringlab::lab
