#pragma once
// Keeps a ListingModel showing the variant tree's current variant: hands the model a new ListingData
// value when the schedule (or the whole tree, with its kernel) changes, and new samples when those of
// the current variant or the original change.
#include "widgets/models/listing_model.h"

namespace sassx {
class VariantTree;

ListingData listingDataOf(const VariantTree& variants);
ListingStalls listingStallsOf(const VariantTree& variants);
// The source map of the tree's kernel with the text of the files found (core/session/source_lines.h),
// built once per kernel and shared by the listing's Source column and the Source dock; null without a
// kernel. A line table that cannot be read gives an empty map whose note says why.
std::shared_ptr<const SourceMap> sourceMapOf(const VariantTree& variants);

// Feeds `model` now and on every change until either object goes.
void followVariantTree(ListingModel* model, const VariantTree* variants);

} // namespace sassx
