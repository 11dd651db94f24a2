#pragma once
// MPICH's own collective selection trees (maint/tuning/coll/mpir/generic.json), kept verbatim in
// src/model/mpich/ and compiled in by cmake/embed_text.cmake: the one of 4.0.x, and the one of
// 4.1 and later (the same file from 4.1 through 5.0; only its barrier entry differs from 4.0's).
namespace ringlab::model::detail {

extern const char* const kMpichCollGeneric40;
extern const char* const kMpichCollGeneric41;

}  // namespace ringlab::model::detail
