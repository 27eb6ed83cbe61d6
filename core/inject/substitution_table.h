#pragma once
// The tuned kernels a program runs in place of its own (`--tuned DIR`, $SASSX_TUNED): read once from
// DIR/manifest.json, each entry keyed by the SHA-256 of the original cubin as the program loads it and
// the kernel's name. A tuned cubin is used only when it is whole, holds the kernel, was built for the
// GPU it runs on and takes the original's parameter layout; otherwise the original runs and the
// reason is said once. Pure (no driver): the hook hands it bytes and asks.
#include "core/common/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace sassx {
class Cubin;
}

namespace sassx::inject {

inline constexpr const char* kTunedManifest = "manifest.json";
inline constexpr const char* kTunedFormat = "sassx-tuned";

struct TunedEntry
{
    std::string imageSha256; // the original cubin's, as the program loads it
    std::string kernel;      // symbol (mangled)
    std::string cubinPath;   // the tuned cubin, absolute
    std::string cubinSha256; // the tuned cubin's
    std::string name;        // the capture's name of the kernel, for messages
};

// One decision for one (image, kernel): use `cubin` (the tuned bytes, checked), or run the original
// because of `reason`.
struct Substitution
{
    std::shared_ptr<const std::vector<uint8_t>> cubin; // null: run the original
    std::string cubinSha256;
    std::string reason;
};

class SubstitutionTable
{
public:
    // Reads DIR/manifest.json. A missing or unreadable manifest is an Error (one line); an entry whose
    // file is missing, truncated or altered is kept as a refusal, said when its kernel loads.
    static Result<SubstitutionTable> load(const std::string& dir);
    static Result<SubstitutionTable> fromManifest(const std::string& manifestText, const std::string& dir);

    bool empty() const { return m_entries.empty(); }
    size_t size() const { return m_entries.size(); }
    const std::vector<TunedEntry>& entries() const { return m_entries; }
    // Whether any entry names this image: the hook hashes only images it may substitute into... every
    // image is hashed anyway (the hash is the key), so this only saves the parse of unrelated images.
    bool holdsImage(const std::string& imageSha256) const;

    // The decision for `kernel` of the image whose cubin bytes are `original`, made once and kept.
    // `deviceSm` is the GPU's compute capability as 90 for sm_90 (0: unknown, not checked).
    Substitution decide(const std::string& imageSha256, std::span<const uint8_t> original,
                        const std::string& kernel, int deviceSm);

    // Messages not said yet ("sassx: ... runs its original: ..."); each reason once per kernel.
    std::vector<std::string> takeMessages();

private:
    std::vector<TunedEntry> m_entries;
    std::map<std::pair<std::string, std::string>, size_t> m_byKey;
    std::map<std::pair<std::string, std::string>, Substitution> m_decided;
    std::vector<std::string> m_pending;
    std::set<std::string> m_said;

    void say(const std::string& message);
};

// Why a tuned cubin cannot stand in for `kernel` of `original`, or nullopt when it can: both parse,
// both hold the kernel, the same architecture, the same parameter layout (ordinals, offsets, sizes),
// and the GPU (`deviceSm`, 0 = unknown) runs that architecture.
std::optional<std::string> substitutionProblem(const Cubin& original, const Cubin& tuned,
                                               const std::string& kernel, int deviceSm);

} // namespace sassx::inject
