// sassx [FILE|SESSION]: the SASS schedule explorer.
#include "widgets/main_window.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("sassx"));
    QApplication::setApplicationName(QStringLiteral("sassx"));
    QApplication::setApplicationVersion(QStringLiteral(SASSX_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("SASS schedule explorer for NVIDIA kernels"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("cubin, fatbin, executable, .cu, .ptx, Triton cache dir, or "
                                                "a session (*.sassx.json)"),
                                 QStringLiteral("[FILE|SESSION]"));
    parser.process(app);

    sassx::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openPath(parser.positionalArguments().front());
    else
        window.offerAutosave(); // a session that was never saved, from a run that did not end cleanly

    return app.exec();
}
