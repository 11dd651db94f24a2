#pragma once
// The page's files (web/), compiled into the binary by embed_assets.cmake so that `ringlab lab`
// serves them from any directory with no network.
#include <cstddef>
#include <string_view>

namespace ringlab::lab {

struct Asset {
  std::string_view path;         // as requested, e.g. "/index.html"
  std::string_view contentType;  // e.g. "text/html; charset=utf-8"
  std::string_view body;
};

// The asset served at `path` ("/" is "/index.html"), or nullptr.
const Asset* findAsset(std::string_view path);

}  // namespace ringlab::lab
