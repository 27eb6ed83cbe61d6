#pragma once
// Arrows beside the listing from the selected instruction to its producers and consumers. Register
// edges are solid, scoreboard edges dashed, memory-order edges dotted; each carries its distance in
// cycles in the current variant, drawn in a warning colour where it sits at (or below) the latency
// limit. Hovering an arrow explains the edge in words.
#include <QWidget>

#include <vector>

namespace sassx {
class ListingView;
class Session;
struct Dependency;

class DependencyGutter : public QWidget
{
    Q_OBJECT
public:
    DependencyGutter(Session* session, ListingView* view, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {150, 100}; }

    struct DrawnEdge
    {
        int edge = -1;         // index into DependencyGraph::edges()
        bool producer = false; // the other end comes before the selected instruction
        int x = 0, y1 = 0, y2 = 0;
        bool atLimit = false;
        int distance = 0;
        QString text; // the tooltip
    };
    // What the last paint drew (tests and tooltips use it).
    const std::vector<DrawnEdge>& drawnEdges() const { return m_drawn; }
    // One sentence about an edge of the current kernel in the current variant.
    QString describeEdge(int edgeIndex) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    int rowCenterY(int row, bool* visible) const;
    int variantDistance(const Dependency& d) const;

    Session* m_session;
    ListingView* m_view;
    std::vector<DrawnEdge> m_drawn;
};

} // namespace sassx
