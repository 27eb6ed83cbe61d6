#pragma once
// A widget test in a real xcb window: main() starts Xvfb on a free display (-displayfd: the server picks
// one and writes its number), runs the test class on it, and stops it. Without Xvfb the test runs on the
// offscreen platform and its initTestCase skips (haveX false). Used by the screenshot tests.
#include <QApplication>
#include <QByteArray>
#include <QStandardPaths>
#include <QTest>

#include <csignal>
#include <string>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sassx::test {

// Returns Xvfb's pid and sets *display, or -1.
inline pid_t startXvfb(QByteArray* display)
{
    const QString exe = QStandardPaths::findExecutable(QStringLiteral("Xvfb"));
    if (exe.isEmpty()) return -1;
    int fds[2];
    if (pipe(fds) != 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const std::string fd = std::to_string(fds[1]);
        const std::string path = exe.toStdString();
        execl(path.c_str(), "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1600x1000x24", "-nolisten",
              "tcp", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    QByteArray number;
    pollfd p{fds[0], POLLIN, 0};
    while (!number.endsWith('\n') && poll(&p, 1, 10000) > 0) {
        char c;
        if (read(fds[0], &c, 1) != 1) break;
        number.append(c);
    }
    close(fds[0]);
    if (number.trimmed().isEmpty()) {
        kill(pid, SIGTERM);
        waitpid(pid, nullptr, 0);
        return -1;
    }
    *display = ":" + number.trimmed();
    return pid;
}

// Runs `Test` (a QObject with a public `bool haveX`) on Xvfb when it can be started.
template <typename Test> int runOnXvfb(int argc, char** argv)
{
    QByteArray display;
    const pid_t xvfb = startXvfb(&display);
    if (xvfb > 0) {
        qputenv("DISPLAY", display);
        qputenv("QT_QPA_PLATFORM", "xcb");
    } else {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    int rc = 0;
    {
        QApplication app(argc, argv);
        Test test;
        test.haveX = xvfb > 0;
        rc = QTest::qExec(&test, argc, argv);
    }
    if (xvfb > 0) {
        kill(xvfb, SIGTERM);
        waitpid(xvfb, nullptr, 0);
    }
    return rc;
}

} // namespace sassx::test
