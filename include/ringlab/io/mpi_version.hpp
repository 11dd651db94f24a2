#pragma once
// Which MPI release will read an export: the one given (--ompi-version, --mpich-version), or the
// one installed here, as its own tool reports it (`ompi_info --parsable`, `mpichversion`).
#include <string>

#include "ringlab/model/mpi_exports.hpp"

namespace ringlab::io {

// `given` when not empty (parsed), else the installed release. Throws InvalidArgument naming
// `option` when neither can be had.
model::LibraryVersion openMpiVersion(const std::string& given, const std::string& option);
model::LibraryVersion mpichVersion(const std::string& given, const std::string& option);

}  // namespace ringlab::io
