#pragma once
// Two variants of the kernel side by side, aligned by position. An instruction that sits at different
// positions in the two is linked by a line between the columns; control bits that differ are
// highlighted on the right. The counts and the per-instruction changes come from core's diffSchedules,
// so they equal `sassx-cli diff`'s; the control bits are written as in the listing
// (core/sass/control_text.h). Follows the session: an edit to either variant refreshes it, the right side
// follows the variant the listing shows, a newly opened kernel starts from the original against its current
// variant, and clicking a row selects its instruction (the listing scrolls to it). Paints only
// the visible rows, so a 100,000-instruction kernel scrolls as fast as a small one. When both variants
// have stall samples, each row shows its share of its side's samples.
#include "core/session/kernel_stalls.h"
#include "core/session/schedule_exports.h"

#include <QAbstractScrollArea>

#include <optional>

namespace sassx {
class VariantTree;

class DiffView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit DiffView(VariantTree* variants, QWidget* parent = nullptr);

    // Compares variant `left` with `right` and scrolls to the first change.
    void setVariants(int left, int right);
    int leftVariant() const { return m_left; }
    int rightVariant() const { return m_right; }
    // As `sassx-cli diff` counts them: instructions out of order relative to the others, instructions
    // at a new offset (moved or pushed aside by a move), instructions whose control bits differ.
    int movedCount() const { return m_moved; }
    int shiftedCount() const { return m_shifted; }
    int controlChangedCount() const { return m_controlChanged; }
    QString summary() const;

    // Positions (on the right) of the instructions that moved or whose control bits changed, in order;
    // next/previous scroll the view to the following one (false when there is none).
    const std::vector<Position>& changeRows() const { return m_changeRows; }
    int currentChange() const { return m_currentChange; }
    bool nextChange();
    bool previousChange();
    int firstVisibleRow() const;
    // The instruction text drawn on row `position` of the left or right side (empty out of range).
    QString rowText(bool right, Position position) const;
    // Both variants have stall samples: every row shows its share.
    bool showsSamples() const { return m_stallsA.has_value(); }

Q_SIGNALS:
    void summaryChanged(const QString& summary);
    // After a jump: which change (0-based) of how many is shown.
    void changeShown(int index, int count);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    static constexpr int kGap = 60; // between the two sides, where the links run
    void resizeEvent(QResizeEvent* event) override;

private:
    void reload();
    // The listing now shows variant `id`: the right side follows it.
    void followCurrent(int id);
    void showChange(int index);
    void updateScrollBars();
    int rowHeight() const;

    VariantTree* m_variants;
    int m_left = 0, m_right = 0;
    Schedule m_a, m_b;
    ScheduleDiff m_diff;
    std::vector<Position> m_changeRows;
    int m_currentChange = -1;
    int m_moved = 0, m_shifted = 0, m_controlChanged = 0;
    QString m_error;
    std::optional<KernelStalls> m_stallsA, m_stallsB; // both set, or neither
};

} // namespace sassx
