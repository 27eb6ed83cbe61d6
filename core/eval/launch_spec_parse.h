#pragma once
// The launch spec parser's shared parts (launch_spec.cpp: the spec and its buffers;
// launch_spec_bytes.cpp: by-value `bytes` parameters and their pointers; launch_spec_cluster.cpp: the
// thread-block cluster). Internal to core/eval.
#include "core/common/result.h"
#include "core/eval/launch_spec.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace sassx::eval::spec_parse {

// Where an entry stands in the spec: "params" or "memory", and its index there.
struct EntryAt
{
    const char* list = "params";
    size_t index = 0;
};

// "launch spec: params[2] (name): what": every refusal names its entry in one line.
Error entryError(EntryAt at, const std::string& name, const std::string& what);

bool isSha256Hex(const std::string& s);

// The fields of a `bytes` parameter (size, hex, pointers as written) into `p`.
Status parseBytes(const nlohmann::json& j, EntryAt at, ParamSpec& p);
// Resolves each pointer of each `bytes` parameter to the slot owning the memory it points into (after
// the aliases are resolved), refusing targets that are unknown or not buffers and offsets outside them.
Status resolvePointers(LaunchSpec& spec);
// The optional top-level "cluster" into `s.cluster`, checked against `s.grid` (parsed before it).
Status parseCluster(const nlohmann::json& j, LaunchSpec& s);
// A `bytes` parameter's fields in the canonical JSON form.
void bytesToJson(const ParamSpec& p, nlohmann::json& e);

} // namespace sassx::eval::spec_parse
