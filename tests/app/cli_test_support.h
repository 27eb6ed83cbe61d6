#pragma once
// Helpers for test_cli: run the built sassx-cli (path from the SASSX_CLI compile definition) and check
// the shape of its JSON output (required keys and their types, never whole outputs).
#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <initializer_list>
#include <utility>

struct CliRun
{
    QStringList args;
    int exitCode = -1;
    bool crashed = false;
    bool timedOut = false;
    QByteArray out, err;

    bool ok() const { return !crashed && !timedOut && exitCode == 0; }

    // stderr split into lines, the trailing newline dropped.
    QStringList errLines() const
    {
        QString e = QString::fromUtf8(err);
        if (e.endsWith('\n')) e.chop(1);
        return e.isEmpty() ? QStringList() : e.split('\n');
    }

    QStringList outLines() const
    {
        QString o = QString::fromUtf8(out);
        if (o.endsWith('\n')) o.chop(1);
        return o.isEmpty() ? QStringList() : o.split('\n');
    }

    // For failure messages: what ran and what it said.
    QString describe() const
    {
        QString status = timedOut  ? QStringLiteral("timed out")
                         : crashed ? QStringLiteral("crashed")
                                   : QStringLiteral("exit %1").arg(exitCode);
        return QStringLiteral("sassx-cli %1 -> %2\nstderr: %3\nstdout (first 400 bytes): %4")
            .arg(args.join(' '), status, QString::fromUtf8(err), QString::fromUtf8(out.left(400)));
    }
};

inline CliRun runCli(const QStringList& args, int timeoutMs = 120000)
{
    CliRun r;
    r.args = args;
    QProcess p;
    p.setProgram(QStringLiteral(SASSX_CLI));
    p.setArguments(args);
    p.start();
    if (!p.waitForStarted(10000)) {
        r.crashed = true;
        r.err = "cannot start " SASSX_CLI;
        return r;
    }
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        r.timedOut = true;
        p.kill();
        p.waitForFinished(5000);
    }
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline QJsonObject parseObject(const QByteArray& text, QString* error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *error = QStringLiteral("not valid JSON: %1 at offset %2").arg(pe.errorString()).arg(pe.offset);
        return {};
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("not a JSON object");
        return {};
    }
    error->clear();
    return doc.object();
}

inline QString typeName(QJsonValue::Type t)
{
    switch (t) {
    case QJsonValue::Null:
        return "null";
    case QJsonValue::Bool:
        return "bool";
    case QJsonValue::Double:
        return "number";
    case QJsonValue::String:
        return "string";
    case QJsonValue::Array:
        return "array";
    case QJsonValue::Object:
        return "object";
    default:
        return "undefined";
    }
}

// Empty when every key is there with its type; otherwise the first problem, named by `where`.
inline QString checkKeys(const QJsonObject& o, const QString& where,
                         std::initializer_list<std::pair<const char*, QJsonValue::Type>> keys)
{
    for (const auto& [key, type] : keys) {
        if (!o.contains(QLatin1String(key))) return QStringLiteral("%1: no key \"%2\"").arg(where, key);
        const QJsonValue::Type got = o.value(QLatin1String(key)).type();
        if (got != type)
            return QStringLiteral("%1: \"%2\" is a %3, expected a %4")
                .arg(where, key, typeName(got), typeName(type));
    }
    return {};
}

inline QByteArray readBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// One instruction's words with the control bits (bits 41..61 of the high word: stall, yield, barriers,
// wait mask, reuse; core/sass/control.h) masked out: what a move must carry from FROM to TO unchanged.
inline QString instructionWords(const QJsonObject& instruction)
{
    const QJsonArray raw = instruction.value("raw").toArray();
    if (raw.size() != 2) return {};
    bool okLo = false, okHi = false;
    const quint64 lo = raw[0].toString().toULongLong(&okLo, 16);
    const quint64 hi = raw[1].toString().toULongLong(&okHi, 16);
    if (!okLo || !okHi) return {};
    constexpr quint64 controlMask = 0x1FFFFFull << 41;
    return QStringLiteral("%1:%2").arg(lo, 16, 16, QChar('0')).arg(hi & ~controlMask, 16, 16, QChar('0'));
}
