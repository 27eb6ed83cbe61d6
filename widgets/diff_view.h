#pragma once
// Two variants of the kernel side by side, aligned by position. An instruction that sits at different
// positions in the two is linked by a line between the columns; control bits that differ are
// highlighted on the right. Paints only the visible rows, so a 100,000-instruction kernel scrolls
// as fast as a small one.
#include "core/rewrite/variant.h"

#include <QAbstractScrollArea>

namespace sassx {
class Session;

class DiffView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit DiffView(Session* session, QWidget* parent = nullptr);

    void setVariants(int left, int right);
    int leftVariant() const { return m_left; }
    int rightVariant() const { return m_right; }
    // Instructions whose position differs, and instructions whose control bits differ.
    int movedCount() const { return m_moved; }
    int controlChangedCount() const { return m_controlChanged; }
    QString summary() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void reload();
    void updateScrollBars();
    int rowHeight() const;

    Session* m_session;
    int m_left = 0, m_right = 0;
    Schedule m_a, m_b;
    std::vector<uint32_t> m_posB; // original → position in B
    int m_moved = 0, m_controlChanged = 0;
    QString m_error;
};

} // namespace sassx
