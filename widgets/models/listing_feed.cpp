#include "widgets/models/listing_feed.h"

#include "core/session/source_lines.h"
#include "core/session/variant_tree.h"

namespace sassx {

namespace {

// One kernel's map at a time, on the GUI thread: the listing and the Source dock ask for it on every
// tree change, and it only changes with the kernel (the weak pointer outlives no kernel's identity) or
// the source folders.
std::weak_ptr<const KernelWorkspace> cachedKernel;
std::shared_ptr<const SourceMap> cached;
std::vector<SourceFolder> folders;

} // namespace

void setSourceFolders(const std::vector<SourceFolder>& f)
{
    if (f == folders) return;
    folders = f;
    cachedKernel.reset();
}

void applySourceFolders(SourceMap& map, const std::vector<SourceFolder>& with, const std::string& inputPath)
{
    if (with.empty()) return;
    std::vector<std::string> dirs = sourceSearchDirs(inputPath);
    for (const SourceFolder& f : with) {
        for (const SourceFile& file : map.files) {
            // The rest of the recorded path under `from`, in `to`: .../triton_dump/a/b.py -> TO/a/b.py.
            const std::string from = f.from.empty() || f.from.back() == '/' ? f.from : f.from + '/';
            if (from.empty() || file.path.rfind(from, 0) != 0) continue;
            const std::string rest = file.path.substr(from.size());
            const size_t slash = rest.rfind('/');
            dirs.push_back(slash == std::string::npos ? f.to : f.to + '/' + rest.substr(0, slash));
        }
        dirs.push_back(f.to);
    }
    loadSourceTexts(map, dirs);
}

std::shared_ptr<const SourceMap> sourceMapOf(const VariantTree& variants)
{
    const std::shared_ptr<const KernelWorkspace> kernel = variants.kernel();
    if (!kernel) return nullptr;
    const bool same =
        !cachedKernel.expired() && !cachedKernel.owner_before(kernel) && !kernel.owner_before(cachedKernel);
    if (same) return cached;
    auto map = kernelSourceMap(*kernel);
    if (map) {
        applySourceFolders(*map, folders, kernel->input().path);
        cached = std::make_shared<const SourceMap>(std::move(*map));
    } else {
        SourceMap unreadable;
        unreadable.notes.push_back("the line tables cannot be read: " + map.message());
        cached = std::make_shared<const SourceMap>(std::move(unreadable));
    }
    cachedKernel = kernel;
    return cached;
}

ListingData listingDataOf(const VariantTree& variants)
{
    return ListingData{variants.analysis(), variants.schedule()};
}

ListingStalls listingStallsOf(const VariantTree& variants)
{
    const int current = variants.currentVariantId();
    ListingStalls stalls;
    stalls.variant = variants.kernelStalls(current);
    stalls.original = variants.kernelStalls(0);
    stalls.showsOriginal = current == 0;
    return stalls;
}

void followVariantTree(ListingModel* model, const VariantTree* variants)
{
    auto rebuild = [model, variants] {
        model->setSourceMap(sourceMapOf(*variants));
        model->setListing(listingDataOf(*variants), listingStallsOf(*variants));
    };
    QObject::connect(variants, &VariantTree::scheduleChanged, model, rebuild);
    // A new input or kernel (or a restored session) replaces the tree: no row of the old kernel may
    // outlive it, even before (or without) an analysis of the new one.
    QObject::connect(variants, &VariantTree::variantsChanged, model, rebuild);
    QObject::connect(variants, &VariantTree::variantChanged, model, [model, variants](int id) {
        if (id == variants->currentVariantId() || id == 0) model->setStalls(listingStallsOf(*variants));
    });
    rebuild();
}

} // namespace sassx
