#include "core/session/variant_tree.h"

#include "core/session/variant_import.h"

#include <algorithm>

namespace sassx {

namespace {

bool idLess(const VariantRecord& r, int id)
{
    return r.id < id;
}

} // namespace

VariantTree::VariantTree(QObject* parent) : QObject(parent)
{
    reset(nullptr);
}

std::shared_ptr<const KernelAnalysis> VariantTree::analysis() const
{
    return m_kernel ? m_kernel->analysisPtr() : nullptr;
}

const LegalityChecker* VariantTree::checker() const
{
    return m_kernel ? &m_kernel->checker() : nullptr;
}

void VariantTree::reset(std::shared_ptr<const KernelWorkspace> kernel)
{
    m_kernel = std::move(kernel);
    m_selected = -1;
    VariantRecord original;
    original.id = 0;
    original.parent = -1;
    original.name = "original";
    m_variants.assign(1, original);
    m_current = 0;
    m_nextId = 1;
    recomputeSchedule();
}

void VariantTree::replace(std::vector<VariantRecord> records, int current)
{
    m_variants = std::move(records);
    m_nextId = m_variants.back().id + 1;
    m_current = variant(current) ? current : 0;
    recomputeSchedule();
}

void VariantTree::announceReset(bool selection)
{
    if (selection) Q_EMIT selectionChanged(-1);
    Q_EMIT variantsChanged();
    Q_EMIT currentVariantChanged(m_current);
    if (m_kernel) Q_EMIT scheduleChanged();
}

const VariantRecord* VariantTree::variant(int id) const
{
    auto it = std::lower_bound(m_variants.begin(), m_variants.end(), id, idLess);
    return it != m_variants.end() && it->id == id ? &*it : nullptr;
}

VariantRecord* VariantTree::mutableVariant(int id)
{
    return const_cast<VariantRecord*>(variant(id));
}

std::vector<int> VariantTree::childrenOf(int id) const
{
    std::vector<int> out;
    for (const auto& v : m_variants)
        if (v.parent == id) out.push_back(v.id);
    return out;
}

Result<Schedule> VariantTree::scheduleOf(int id) const
{
    const VariantRecord* v = variant(id);
    if (!v) return makeError("no variant " + std::to_string(id));
    if (!m_kernel) return makeError("no kernel is open");
    return m_kernel->schedule(v->edits);
}

void VariantTree::recomputeSchedule()
{
    if (!m_kernel) {
        m_schedule = Schedule{};
        return;
    }
    auto s = scheduleOf(m_current);
    // A variant whose edits no longer apply (a session from another build) shows the original order;
    // the variants panel says why.
    m_schedule = s ? std::move(*s) : Schedule::identity(m_kernel->analysis());
}

void VariantTree::scheduleChangedIfCurrent(int id)
{
    if (id != m_current) return;
    recomputeSchedule();
    Q_EMIT scheduleChanged();
}

void VariantTree::setCurrentVariant(int id)
{
    if (id == m_current || !variant(id)) return;
    m_current = id;
    recomputeSchedule();
    Q_EMIT currentVariantChanged(id);
    Q_EMIT scheduleChanged();
    Q_EMIT edited();
}

int VariantTree::addVariant(int parent, const QString& name, std::vector<Edit> edits, int id)
{
    VariantRecord r;
    r.id = id < 0 ? m_nextId : id;
    r.parent = variant(parent) ? parent : 0;
    r.name = name.isEmpty() ? nextVariantName().toStdString() : name.toStdString();
    r.edits = std::move(edits);
    restoreVariant(r);
    return r.id;
}

void VariantTree::restoreVariant(const VariantRecord& record)
{
    if (VariantRecord* existing = mutableVariant(record.id)) {
        const int oldParent = existing->parent;
        *existing = record;
        if (oldParent != record.parent) Q_EMIT variantReparented(record.id, oldParent);
        Q_EMIT variantChanged(record.id);
    } else {
        auto it = std::lower_bound(m_variants.begin(), m_variants.end(), record.id, idLess);
        m_variants.insert(it, record);
        m_nextId = std::max(m_nextId, record.id + 1);
        Q_EMIT variantAdded(record.id);
    }
    scheduleChangedIfCurrent(record.id);
    Q_EMIT edited();
}

bool VariantTree::removeVariant(int id)
{
    const VariantRecord* v = variant(id);
    if (!v || v->isOriginal()) return false;
    const int parent = v->parent;
    for (auto& other : m_variants)
        if (other.parent == id) {
            other.parent = parent;
            Q_EMIT variantReparented(other.id, id);
        }
    Q_EMIT variantAboutToBeRemoved(id);
    m_variants.erase(std::find_if(m_variants.begin(), m_variants.end(),
                                  [id](const VariantRecord& r) { return r.id == id; }));
    const bool wasCurrent = m_current == id;
    if (wasCurrent) m_current = parent;
    Q_EMIT variantRemoved(id);
    if (wasCurrent) {
        recomputeSchedule();
        Q_EMIT currentVariantChanged(m_current);
        Q_EMIT scheduleChanged();
    }
    Q_EMIT edited();
    return true;
}

void VariantTree::renameVariant(int id, const QString& name)
{
    VariantRecord* v = mutableVariant(id);
    if (!v || name.trimmed().isEmpty() || v->name == name.toStdString()) return;
    v->name = name.trimmed().toStdString();
    Q_EMIT variantChanged(id);
    Q_EMIT edited();
}

void VariantTree::setVariantEdits(int id, std::vector<Edit> edits)
{
    VariantRecord* v = mutableVariant(id);
    if (!v || v->isOriginal()) return;
    v->edits = std::move(edits);
    v->figures.reset(); // they measured another schedule
    v->stalls.reset();
    Q_EMIT variantChanged(id);
    scheduleChangedIfCurrent(id);
    Q_EMIT edited();
}

QString VariantTree::nextVariantName() const
{
    for (int n = m_nextId;; ++n) {
        const std::string name = "v" + std::to_string(n);
        if (std::none_of(m_variants.begin(), m_variants.end(),
                         [&](const VariantRecord& r) { return r.name == name; }))
            return QString::fromStdString(name);
    }
}

Result<VariantRecord> VariantTree::importedRecord(const QString& path) const
{
    if (!m_kernel) return makeError("no kernel is open");
    auto imported = importSchedule(*m_kernel, path.toStdString(), m_kernel->options());
    if (!imported) return imported.error();
    VariantRecord r;
    r.id = m_nextId;
    r.parent = 0;
    r.name = imported->label;
    for (int n = 2; std::any_of(m_variants.begin(), m_variants.end(),
                                [&](const VariantRecord& v) { return v.name == r.name; });
         ++n)
        r.name = imported->label + " (" + std::to_string(n) + ")";
    r.edits = std::move(imported->edits);
    r.imported = VariantImport{path.toStdString(), imported->verdict.refusalLines()};
    return r;
}

LegalityReport VariantTree::checkEdits(int variantId, const std::vector<Edit>& extra) const
{
    const VariantRecord* v = variant(variantId);
    if (!m_kernel || !v) {
        LegalityReport report;
        report.hazards.push_back({HazardKind::Structure, InstrId(0), InstrId(0), "no kernel is open", 0});
        return report;
    }
    std::vector<Edit> edits = v->edits;
    edits.insert(edits.end(), extra.begin(), extra.end());
    return m_kernel->check(edits);
}

bool VariantTree::attachFigures(int id, const std::vector<Edit>& edits,
                                const std::shared_ptr<const KernelWorkspace>& kernel, VariantFigures figures)
{
    VariantRecord* v = mutableVariant(id);
    if (!v || v->edits != edits || kernel != m_kernel) return false;
    v->figures = std::move(figures);
    Q_EMIT variantChanged(id);
    Q_EMIT edited();
    return true;
}

bool VariantTree::attachStalls(int id, const std::vector<Edit>& edits,
                               const std::shared_ptr<const KernelWorkspace>& kernel,
                               eval::StallProfile profile)
{
    VariantRecord* v = mutableVariant(id);
    if (!v || v->edits != edits || kernel != m_kernel || !kernel) return false;
    v->stalls = std::move(profile);
    Q_EMIT variantChanged(id);
    Q_EMIT edited();
    return true;
}

std::optional<KernelStalls> VariantTree::kernelStalls(int variantId) const
{
    const VariantRecord* v = variant(variantId);
    if (!v || !v->stalls || !m_kernel) return std::nullopt;
    auto schedule = m_kernel->schedule(v->edits);
    if (!schedule) return std::nullopt;
    auto mapped = mapStalls(*v->stalls, m_kernel->analysis(), *schedule);
    if (!mapped) return std::nullopt;
    return std::move(*mapped);
}

void VariantTree::setSelectedInstruction(int originalIndex)
{
    if (m_kernel &&
        (originalIndex < -1 || originalIndex >= int(m_kernel->analysis().listing.instructions.size())))
        originalIndex = -1;
    if (originalIndex == m_selected) return;
    m_selected = originalIndex;
    Q_EMIT selectionChanged(originalIndex);
}

} // namespace sassx
