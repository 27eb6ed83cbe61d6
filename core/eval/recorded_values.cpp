// Recorded-values files (docs/launch-spec.md, "Recorded values"): read, inflated into exactly the size
// the spec announces, and checked against its SHA-256.
#include "core/eval/launch_spec.h"
#include "core/eval/sha256.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace sassx::eval {

Result<std::vector<uint8_t>> readRecordedValues(const ParamSpec& p)
{
    const InitSpec& init = p.init;
    auto fail = [&](const std::string& what) {
        return makeError("launch spec: " + (p.name.empty() ? std::string("unnamed") : p.name) +
                         ": recorded values " + init.file + ": " + what);
    };
    if (p.kind != ParamKind::Buffer || init.kind != InitKind::Recorded) return fail("not a recorded init");
    std::error_code ec;
    if (!std::filesystem::exists(init.file, ec)) return fail("missing (no such file)");
    // A regular file only: a device such as /dev/zero would never end.
    if (!std::filesystem::is_regular_file(init.file, ec)) return fail("not a regular file");
    const uint64_t fileSize = std::filesystem::file_size(init.file, ec);
    if (ec) return fail("cannot read its size");
    if (fileSize > UINT32_MAX) return fail("larger than 4 GiB, more than any capture writes");
    if (init.encoding == ValuesEncoding::Raw && fileSize != init.bytes)
        return fail((fileSize < init.bytes ? "truncated (" : "too long (") + std::to_string(fileSize) +
                    " of " + std::to_string(init.bytes) + " bytes)");
    std::ifstream in(init.file, std::ios::binary);
    if (!in) return fail("missing (cannot open the file)");
    std::vector<uint8_t> stored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<uint8_t> out;
    if (init.encoding == ValuesEncoding::Raw) {
        out = std::move(stored);
    } else {
        // Inflate into at most the announced size: a stream that wants more is altered, one that ends
        // early is truncated. The output grows as data arrives, so a spec claiming a huge size with a
        // small file costs no more memory than the file really holds.
        z_stream z{};
        if (inflateInit(&z) != Z_OK) return fail("zlib could not start");
        z.next_in = stored.data();
        z.avail_in = uInt(stored.size());
        uint64_t produced = 0;
        int rc = Z_OK;
        while (rc == Z_OK) {
            if (produced == out.size()) {
                if (out.size() == init.bytes) {
                    uint8_t probe = 0;
                    z.next_out = &probe;
                    z.avail_out = 1;
                    rc = inflate(&z, Z_FINISH);
                    if (z.avail_out == 0) produced = init.bytes + 1; // the stream goes on past the size
                    break;
                }
                out.resize(
                    size_t(std::min<uint64_t>(init.bytes, std::max<uint64_t>(2 * out.size(), 1 << 20))));
            }
            const uint64_t room = std::min<uint64_t>(out.size() - produced, UINT32_MAX);
            z.next_out = out.data() + produced;
            z.avail_out = uInt(room);
            rc = inflate(&z, Z_NO_FLUSH);
            produced += room - z.avail_out;
        }
        const bool consumedAll = z.avail_in == 0;
        inflateEnd(&z);
        if (produced > init.bytes)
            return fail("holds more than the " + std::to_string(init.bytes) + " bytes the spec says");
        if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR)
            return fail("not a valid zlib stream (damaged)");
        if (rc != Z_STREAM_END)
            return fail("truncated (" + std::to_string(produced) + " of " + std::to_string(init.bytes) +
                        " bytes)");
        if (!consumedAll) return fail("has data after its zlib stream (altered)");
        out.resize(produced);
    }
    if (out.size() != init.bytes)
        return fail((out.size() < init.bytes ? "truncated (" : "too long (") + std::to_string(out.size()) +
                    " of " + std::to_string(init.bytes) + " bytes)");
    if (sha256Hex(out.data(), out.size()) != init.sha256)
        return fail("SHA-256 mismatch (the file was altered or belongs to another capture)");
    return out;
}

Status checkRecordedValues(const LaunchSpec& spec)
{
    for (size_t i = 0; i < spec.slotCount(); ++i) {
        const ParamSpec& p = spec.slot(i);
        if (p.kind != ParamKind::Buffer || p.isAlias() || p.init.kind != InitKind::Recorded) continue;
        auto bytes = readRecordedValues(p);
        if (!bytes) return bytes.error();
    }
    return Ok{};
}

} // namespace sassx::eval
