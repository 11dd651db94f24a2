#pragma once
// Query parameters of the lab's JSON API, read strictly: every value is checked here, on the
// server, and a bad one becomes an ApiError that names the field (HTTP 400). The page checks
// the same things for its inline messages, but never is the only check.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ringlab/core/dtype.hpp"

namespace ringlab::lab {

class ApiError : public std::runtime_error {
 public:
  ApiError(std::string field, const std::string& message)
      : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

class Params {
 public:
  // Throws ApiError for a name given twice.
  static Params fromPairs(const std::multimap<std::string, std::string>& pairs);

  // Throws ApiError naming the first parameter that is not in `allowed`: a misspelt name must not
  // be silently ignored in favour of a default.
  void allowOnly(std::initializer_list<const char*> allowed) const;

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // The raw text, or `fallback` when absent.
  std::string text(const std::string& name, const std::string& fallback) const;
  // A whole number in [lo, hi]; `fallback` when absent (no fallback: required).
  long long integer(const std::string& name, long long lo, long long hi,
                    std::optional<long long> fallback = std::nullopt) const;
  // A finite decimal number in [lo, hi].
  double number(const std::string& name, double lo, double hi,
                std::optional<double> fallback) const;
  // A quantity with its unit, read by `parse` (core/units, the CLI's own parser: "5us",
  // "12.5GB/s", "0.05ns/B"; a bare number other than 0 is refused), in [lo, hi] base units, which
  // `range` shows as the user types them ("0 to 1s"); `fallback` (base units) when absent.
  double quantity(const std::string& name, double (*parse)(std::string_view), double lo, double hi,
                  const std::string& range, double fallback) const;
  // A size as the CLI reads it ("8", "4K", "1M", "64KiB"), at most `maxBytes`.
  std::uint64_t size(const std::string& name, std::uint64_t maxBytes,
                     const std::string& fallback) const;
  DataType dataType(const std::string& name, const std::string& fallback) const;
  // One of `choices`.
  std::string choice(const std::string& name, std::initializer_list<const char*> choices,
                     const std::string& fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace ringlab::lab
