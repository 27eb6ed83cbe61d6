#pragma once
// Keeps a ListingModel showing the variant tree's current variant: hands the model a new ListingData
// value when the schedule (or the whole tree, with its kernel) changes, and new samples when those of
// the current variant or the original change.
#include "core/session/session_file.h" // SourceFolder
#include "widgets/models/listing_model.h"

#include <vector>

namespace sassx {
class VariantTree;

ListingData listingDataOf(const VariantTree& variants);
ListingStalls listingStallsOf(const VariantTree& variants);
// The source map of the tree's kernel with the text of the files found (core/session/source_lines.h),
// built once per kernel and shared by the listing's Source column and the Source dock; null without a
// kernel. A line table that cannot be read gives an empty map whose note says why.
std::shared_ptr<const SourceMap> sourceMapOf(const VariantTree& variants);
// The session's source folders (Session::sourceFolders): files not found where the line tables say are
// read through them; the next sourceMapOf builds the map again when they changed.
void setSourceFolders(const std::vector<SourceFolder>& folders);
// The source map's text read again through `folders` (recorded path, the default places, then each
// folder: the rest of a path under its `from`, else the file's name).
void applySourceFolders(SourceMap& map, const std::vector<SourceFolder>& folders,
                        const std::string& inputPath);

// Feeds `model` now and on every change until either object goes.
void followVariantTree(ListingModel* model, const VariantTree* variants);

} // namespace sassx
