#pragma once
// What the analysis parts share: the library's warnings as Python warnings.
#include <string>
#include <vector>

#include "bindings.hpp"
#include "ringlab/io/model_files.hpp"

namespace ringlab::python {

// Each line as a UserWarning (where the CLI prints "ringlab: <line>" on stderr).
void warn(const std::vector<std::string>& warnings);

// io::resolveModel, its convention warnings raised as UserWarning.
io::ResolvedModel resolveAndWarn(const io::ModelSource& source);

}  // namespace ringlab::python
