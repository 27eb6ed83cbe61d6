// A Blackwell cubin in the explorer: the listing opens read-only with the one-line reason
// (editRefusal, core/analysis/arch_model.h) in the banner above it, in two font families; a drag does
// not start, Alt+Up/Down, the edit controller's moves and control edits are refused with that reason,
// and no variant is made.
#include "core/session/session.h"
#include "core/session/variant_tree.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/models/listing_model.h"

#include <QApplication>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace sassx;
using sassx::test::newWindow;

namespace {

QString blackwellSample(const QString& name)
{
    return QStringLiteral(SASSX_SOURCE_DIR "/samples/blackwell/%1.cubin").arg(name);
}

} // namespace

class TestBlackwellReadOnly : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-blackwell-readonly"));
        QSettings().clear();
    }

    void init()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
    }

    void editsRefusedWithTheReason_data() { test::addTwoFontRows(); }

    void editsRefusedWithTheReason()
    {
        for (const QString& name :
             {QStringLiteral("bw_attention.sm_100a"), QStringLiteral("bw_elementwise.sm_120")}) {
            const QString cubin = blackwellSample(name);
            QVERIFY2(QFileInfo::exists(cubin), qPrintable(cubin));
            const QString arch = name.section(QLatin1Char('.'), 1);
            const auto window = newWindow();
            window->resize(1200, 800);
            window->show();
            QVERIFY(QTest::qWaitForWindowExposed(window.get()));
            QString error;
            QVERIFY2(test::openAndWait(*window->session(), cubin, &error), qPrintable(error));

            const auto kernel = window->session()->variantTree()->kernel();
            QVERIFY(kernel);
            const QString reason = QString::fromStdString(kernel->editRefusal());
            QVERIFY2(reason.startsWith(arch + QStringLiteral(": no measured latency/yield/reuse evidence")),
                     qPrintable(reason));
            QVERIFY2(reason.contains(QStringLiteral("bench/blackwell/run_device.sh")), qPrintable(reason));
            QVERIFY(!reason.contains(QLatin1Char('\n')));

            // The banner above the listing says it, whole: word-wrapped to at least the height its text
            // needs at its width, in either font.
            auto* banner = window->listingPanel()->findChild<QLabel*>(QStringLiteral("listingNotices"));
            QVERIFY(banner);
            QTRY_VERIFY(banner->isVisible());
            QCOMPARE(banner->text(), reason);
            QVERIFY2(banner->height() >= banner->heightForWidth(banner->width()),
                     qPrintable(QStringLiteral("banner %1 px high, needs %2")
                                    .arg(banner->height())
                                    .arg(banner->heightForWidth(banner->width()))));

            ListingView* view = window->listingPanel()->view();
            QCOMPARE(view->editRefusal(), reason);
            const ListingModel* model = view->listingModel();
            int memoryRow = -1;
            for (int row = 0; row < model->rowCount() && memoryRow < 0; ++row)
                if (model->index(row, 0).data(ListingModel::IsMemoryRole).toBool()) memoryRow = row;
            QVERIFY(memoryRow >= 0);
            const std::optional<Position> memoryPosition = model->positionOfRow(memoryRow);
            QVERIFY(memoryPosition);
            const Position position = *memoryPosition;

            // A drag on a memory instruction does not start.
            view->scrollTo(model->index(memoryRow, 0));
            const QPoint at =
                view->visualRect(model->index(memoryRow, ListingModel::InstructionColumn)).center();
            QTest::mousePress(view->viewport(), Qt::LeftButton, {}, at);
            QTest::mouseMove(view->viewport(), at + QPoint(0, 3 * QApplication::startDragDistance()));
            QVERIFY(!view->isDragging());
            QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, at);

            // Alt+Down refuses; the controller finds no target and refuses moves and control edits with
            // the reason.
            view->setCurrentIndex(model->index(memoryRow, ListingModel::InstructionColumn));
            QVERIFY(!view->moveCurrent(+1));
            EditController* controller = window->editController();
            QVERIFY(controller->legalTargets(position).empty());
            const Position to = position + 1;
            const EditOutcome move = controller->apply(Edit::move(position, to));
            QVERIFY(!move.accepted);
            QVERIFY2(move.reason.contains(reason), qPrintable(move.reason));
            const EditOutcome yield =
                controller->apply(Edit::control(position, std::nullopt, uint8_t(0), std::nullopt));
            QVERIFY(!yield.accepted);
            QVERIFY2(yield.reason.contains(reason), qPrintable(yield.reason));
            // Nothing moved: the schedule is the original (identity), where a position is its InstrId.
            for (const StallChoice& choice : controller->stallChoices(position))
                QVERIFY(!choice.allowed ||
                        choice.stall ==
                            int(kernel->analysis().listing.instructions[position.value()].control.stall));
            QCOMPARE(int(window->session()->variantTree()->variants().size()), 1); // the original only
        }
    }
};

QTEST_MAIN(TestBlackwellReadOnly)
#include "test_blackwell_readonly.moc"
