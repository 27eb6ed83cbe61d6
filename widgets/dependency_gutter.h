#pragma once
// Arrows beside the listing from the selected instruction to its producers and consumers. Register
// edges are solid, scoreboard edges dashed, memory-order edges dotted; each carries its distance in
// cycles in the current variant, drawn in a warning colour where it sits at (or below) the latency
// limit. Hovering an arrow explains the edge in words.
//
// An instruction can have dozens of consumers (an LDS.128 feeding FFMAs). Arrows go first to edges
// at their limit, then to those on screen, nearest first; past kMaxArrows the rest fold into one
// bundle per direction (orange when it holds edges at their limit), drawn as a trunk with a tick per
// member and a count badge. Hovering the badge expands the bundle; clicking it keeps it expanded.
// Labels always stay inside the gutter, and the gutter sits in a splitter so it can be widened. With
// stall samples, a heat strip at the right edge marks where the warps wait, row by row.
#include <QRect>
#include <QWidget>

#include <vector>

namespace sassx {
class ListingView;
class VariantTree;
struct Dependency;

class DependencyGutter : public QWidget
{
    Q_OBJECT
public:
    DependencyGutter(VariantTree* variants, ListingView* view, QWidget* parent = nullptr);

    QSize sizeHint() const override { return {170, 100}; }

    // Arrows drawn one by one before the rest fold into bundles.
    static constexpr int kMaxArrows = 8;

    struct DrawnEdge
    {
        int edge = -1;         // index into DependencyGraph::edges()
        bool producer = false; // the other end comes before the selected instruction
        int x = 0, y1 = 0, y2 = 0;
        bool atLimit = false;
        int distance = 0;
        QString text;           // the tooltip
        std::vector<int> twins; // the same dependency on the pair's other registers, drawn as this arrow
    };
    struct DrawnBundle
    {
        bool producer = false;
        std::vector<int> edges; // the folded edges
        int x = 0, y1 = 0, y2 = 0;
        QRect badge;
        QString text; // the tooltip
    };
    // What the last paint drew (tests and tooltips use it).
    const std::vector<DrawnEdge>& drawnEdges() const { return m_drawn; }
    const std::vector<DrawnBundle>& drawnBundles() const { return m_bundles; }
    // Every label drawn by the last paint, in widget coordinates: no two closer than kLabelGap side by side.
    const std::vector<QRect>& drawnLabels() const { return m_labels; }
    static constexpr int kLabelGap = 4; // the least horizontal space between two labels
    // Expanded: every edge is drawn as its own arrow, however many there are.
    bool isExpanded() const { return m_expanded || m_pinned; }
    void setExpanded(bool expanded);
    // One sentence about an edge of the current kernel in the current variant.
    QString describeEdge(int edgeIndex) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    struct Item
    {
        int edge;
        bool producer;
        int y;
        bool visible;
        bool atLimit;
        int distance;
        std::vector<int> twins; // edges between the same two instructions with the same kind and figures
    };
    std::vector<Item> collectItems(int selY) const;
    void drawArrow(QPainter& p, const Item& it, int selY, int x);
    void drawBundle(QPainter& p, bool producer, const std::vector<Item>& members, int selY, int x);
    // Where a label of `want`'s size goes; a null rect when `optional` and there is no free place.
    QRect placeLabel(QRect want, bool optional = true);
    void paintHeat(QPainter& p);
    int rowCenterY(int row, bool* visible) const;
    int variantDistance(const Dependency& d) const;

    VariantTree* m_variants;
    ListingView* m_view;
    std::vector<DrawnEdge> m_drawn;
    std::vector<DrawnBundle> m_bundles;
    std::vector<QRect> m_labels;
    bool m_expanded = false; // by hover over a badge
    bool m_pinned = false;   // by a click on a badge
};

} // namespace sassx
