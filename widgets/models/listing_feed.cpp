#include "widgets/models/listing_feed.h"

#include "core/session/variant_tree.h"

namespace sassx {

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
