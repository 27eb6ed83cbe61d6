#include "widgets/models/listing_feed.h"

#include "core/session/source_lines.h"
#include "core/session/variant_tree.h"

namespace sassx {

std::shared_ptr<const SourceMap> sourceMapOf(const VariantTree& variants)
{
    // One kernel's map at a time, on the GUI thread: the listing and the Source dock ask for it on every
    // tree change, and it only changes with the kernel (the weak pointer outlives no kernel's identity).
    static std::weak_ptr<const KernelWorkspace> cachedKernel;
    static std::shared_ptr<const SourceMap> cached;
    const std::shared_ptr<const KernelWorkspace> kernel = variants.kernel();
    if (!kernel) return nullptr;
    const bool same =
        !cachedKernel.expired() && !cachedKernel.owner_before(kernel) && !kernel.owner_before(cachedKernel);
    if (same) return cached;
    auto map = kernelSourceMap(*kernel);
    if (map) {
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
