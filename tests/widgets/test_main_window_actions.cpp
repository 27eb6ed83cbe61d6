// The window's smaller promises, each in two font families: Variant ▸ Measure (Ctrl+M) is the Measure
// button's own action, so a disabled button is a disabled shortcut; the Export dialogs name the variant
// they write; no listing header is clipped (a column that gave way shows no title); the Stalls dock's
// reason reads as sentences.
#include "core/session/session.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/commands/edit_controller.h"
#include "widgets/listing_panel.h"
#include "widgets/listing_view.h"
#include "widgets/main_window.h"
#include "widgets/models/listing_model.h"
#include "widgets/stalls_panel.h"
#include "widgets/variants_panel.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QHeaderView>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace sassx;
using sassx::test::newWindow;

namespace {

// A copy of the sample with no launch spec beside it: nothing can be measured.
QString specLessCopy(const QTemporaryDir& dir, const QString& cubin)
{
    const QString copy = dir.filePath(QFileInfo(cubin).fileName());
    return QFile::copy(cubin, copy) ? copy : QString();
}

QAction* actionNamed(MainWindow& window, const QString& text)
{
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

} // namespace

class TestMainWindowActions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-main-window-actions"));
        QSettings().clear();
    }

    void init()
    {
        QFETCH(QFont, font);
        QApplication::setFont(font);
    }

    void measureShortcutFollowsTheButton_data() { test::addTwoFontRows(); }

    // Without a launch spec the Measure button is disabled, and so is Ctrl+M: pressing it measures
    // nothing and reports no failure; the Stalls dock says why in whole sentences.
    void measureShortcutFollowsTheButton()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        QTemporaryDir dir;
        const QString copy = specLessCopy(dir, cubin);
        QVERIFY(!copy.isEmpty());
        const auto window = newWindow();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(test::openAndWait(*window->session(), copy));
        QVERIFY(window->session()->launchSpecPath().isEmpty());
        window->variantsPanel()->selectVariants({0});
        QAction* measure = window->variantsPanel()->measureAction();
        QVERIFY(!measure->isEnabled());
        QVERIFY2(measure->toolTip().contains(QStringLiteral("launch spec")), qPrintable(measure->toolTip()));
        QCOMPARE(actionNamed(*window, QStringLiteral("&Measure")), measure);

        QSignalSpy started(window->session()->measureQueue(), &MeasureQueue::measureStarted);
        QSignalSpy failed(window->session()->measureQueue(), &MeasureQueue::measureFailed);
        QTest::keyClick(window.get(), Qt::Key_M, Qt::ControlModifier);
        window->variantsPanel()->measureSelected();
        QCoreApplication::processEvents();
        QCOMPARE(started.size(), 0);
        QCOMPARE(failed.size(), 0);

        const QString stalls = window->stallsPanel()->statusText();
        QVERIFY2(stalls.contains(QStringLiteral("No launch spec")), qPrintable(stalls));
        QVERIFY2(!stalls.contains(QStringLiteral("..")) && !stalls.contains(QStringLiteral(". (")),
                 qPrintable(stalls));
    }

    void exportDialogsNameTheVariant_data() { test::addTwoFontRows(); }

    // With variant v1 current, the Export dialogs say they write v1 and offer a file name with it.
    void exportDialogsNameTheVariant()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto window = newWindow();
        QVERIFY(test::openAndWait(*window->session(), cubin));
        auto kernel = window->session()->variantTree()->kernel();
        const auto moves = kernel->legalMoves(Schedule::identity(kernel->analysis()), false);
        QVERIFY(!moves.empty());
        QVERIFY(
            window->editController()->apply(Edit::move(moves.front().first, moves.front().second)).accepted);
        const VariantRecord* v = window->session()->variantTree()->currentVariant();
        QVERIFY(v && !v->isOriginal());
        const QString name = QString::fromStdString(v->name);

        for (const QString& text : {QStringLiteral("Tuned &Cubin…"), QStringLiteral("Diff as &HTML…")}) {
            QAction* action = actionNamed(*window, text);
            QVERIFY2(action, qPrintable(text));
            QString title, file;
            QTimer chooser;
            QObject::connect(&chooser, &QTimer::timeout, [&] {
                auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
                if (!dialog) return;
                title = dialog->windowTitle();
                file = dialog->selectedFiles().value(0);
                dialog->reject();
            });
            chooser.start(50);
            action->trigger();
            chooser.stop();
            QVERIFY2(title.contains(QStringLiteral("\"%1\"").arg(name)), qPrintable(title));
            QVERIFY2(QFileInfo(file).fileName().contains(QLatin1Char('.') + name + QLatin1Char('.')),
                     qPrintable(file));
        }
    }

    void noListingHeaderIsClipped_data() { test::addTwoFontRows(); }

    // Every titled column is at least as wide as its title and the style's margins; the columns that
    // gave way (no predicates, no samples) are untitled slivers rather than clipped words.
    void noListingHeaderIsClipped()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("sgemm_leakyrelu"));
        SASSX_REQUIRE_SAMPLE(cubin);
        const auto window = newWindow();
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(test::openAndWait(*window->session(), cubin));
        ListingView* view = window->listingPanel()->view();
        QHeaderView* header = view->horizontalHeader();
        const int margins = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
        QVERIFY(view->isColumnNarrowed(ListingModel::SamplesColumn));
        for (int c = 0; c < ListingModel::ColumnCount; ++c) {
            if (view->isColumnHidden(c)) continue;
            const QString title = view->model()->headerData(c, Qt::Horizontal).toString();
            if (view->isColumnNarrowed(c)) {
                QVERIFY2(title.isEmpty(), qPrintable(title));
                QVERIFY(!view->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty());
                continue;
            }
            QVERIFY2(header->fontMetrics().horizontalAdvance(title) + margins <= header->sectionSize(c),
                     qPrintable(QStringLiteral("%1: %2 px").arg(title).arg(header->sectionSize(c))));
        }
    }
};

QTEST_MAIN(TestMainWindowActions)
#include "test_main_window_actions.moc"
