#pragma once
// Keeps a ListingModel showing the variant tree's current variant: hands the model a new ListingData
// value when the schedule (or the whole tree, with its kernel) changes, and new samples when those of
// the current variant or the original change.
#include "widgets/models/listing_model.h"

namespace sassx {
class VariantTree;

ListingData listingDataOf(const VariantTree& variants);
ListingStalls listingStallsOf(const VariantTree& variants);

// Feeds `model` now and on every change until either object goes.
void followVariantTree(ListingModel* model, const VariantTree* variants);

} // namespace sassx
