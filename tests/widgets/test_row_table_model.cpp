// RowTableModel, the base of the flat table models: counts, the horizontal header, the model's cell per
// role, nothing under a row, a reset when the rows are replaced, all under QAbstractItemModelTester.
#include "widgets/models/row_table_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace sassx;

namespace {

struct Kernel
{
    QString name;
    int registers = 0;
};

// Two columns; the register count answers Display as text and UserRole as a number.
class KernelsModel : public RowTableModel<Kernel>
{
    Q_OBJECT
public:
    explicit KernelsModel(QObject* parent = nullptr) : RowTableModel(2, parent) {}

protected:
    QVariant cell(const Kernel& k, int column, int role) const override
    {
        if (role == Qt::UserRole) return column == 0 ? QVariant(k.name) : QVariant(k.registers);
        if (role != Qt::DisplayRole) return {};
        return column == 0 ? k.name : QStringLiteral("%1 regs").arg(k.registers);
    }
    QString header(int column) const override
    {
        return column == 0 ? QStringLiteral("Kernel") : QStringLiteral("Registers");
    }
};

} // namespace

Q_DECLARE_METATYPE(std::vector<Kernel>)

class TestRowTableModel : public QObject
{
    Q_OBJECT
private slots:
    void rows_data()
    {
        QTest::addColumn<std::vector<Kernel>>("rows");
        QTest::addColumn<QStringList>("display"); // column 1, row by row
        QTest::newRow("empty") << std::vector<Kernel>{} << QStringList{};
        QTest::newRow("one") << std::vector<Kernel>{{QStringLiteral("rmsnorm"), 40}}
                             << QStringList{QStringLiteral("40 regs")};
        QTest::newRow("three") << std::vector<Kernel>{{QStringLiteral("a"), 1},
                                                      {QStringLiteral("b"), 255},
                                                      {QStringLiteral("c"), 0}}
                               << QStringList{QStringLiteral("1 regs"), QStringLiteral("255 regs"),
                                              QStringLiteral("0 regs")};
    }
    void rows()
    {
        QFETCH(std::vector<Kernel>, rows);
        QFETCH(QStringList, display);
        KernelsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        // Replaced twice: the tester checks the model across each reset.
        model.setRows({{QStringLiteral("old"), 8}});
        model.setRows(rows);
        QCOMPARE(reset.count(), 2);
        QCOMPARE(model.rowCount(), int(rows.size()));
        QCOMPARE(model.columnCount(), 2);
        QCOMPARE(int(model.rows().size()), int(rows.size()));
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(model.index(r, 0).data().toString(), rows[size_t(r)].name);
            QCOMPARE(model.index(r, 1).data().toString(), display[r]);
            QCOMPARE(model.index(r, 1).data(Qt::UserRole).toInt(), rows[size_t(r)].registers);
            QVERIFY(!model.index(r, 1).data(Qt::ToolTipRole).isValid());
            QCOMPARE(model.rowCount(model.index(r, 0)), 0);
            QCOMPARE(model.columnCount(model.index(r, 0)), 0);
        }
        QVERIFY(!model.data(QModelIndex()).isValid());
    }

    void header_data()
    {
        QTest::addColumn<int>("section");
        QTest::addColumn<int>("orientation");
        QTest::addColumn<int>("role");
        QTest::addColumn<QVariant>("expected");
        QTest::newRow("first") << 0 << int(Qt::Horizontal) << int(Qt::DisplayRole)
                               << QVariant(QStringLiteral("Kernel"));
        QTest::newRow("second") << 1 << int(Qt::Horizontal) << int(Qt::DisplayRole)
                                << QVariant(QStringLiteral("Registers"));
        QTest::newRow("past the end") << 2 << int(Qt::Horizontal) << int(Qt::DisplayRole) << QVariant();
        QTest::newRow("negative") << -1 << int(Qt::Horizontal) << int(Qt::DisplayRole) << QVariant();
        QTest::newRow("vertical") << 0 << int(Qt::Vertical) << int(Qt::DisplayRole) << QVariant();
        QTest::newRow("tooltip") << 0 << int(Qt::Horizontal) << int(Qt::ToolTipRole) << QVariant();
    }
    void header()
    {
        QFETCH(int, section);
        QFETCH(int, orientation);
        QFETCH(int, role);
        QFETCH(QVariant, expected);
        KernelsModel model;
        model.setRows({{QStringLiteral("a"), 1}});
        QCOMPARE(model.headerData(section, Qt::Orientation(orientation), role), expected);
    }
};

QTEST_MAIN(TestRowTableModel)
#include "test_row_table_model.moc"
