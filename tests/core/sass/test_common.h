#pragma once
// Helpers shared by tests that run on the sample cubins the build compiled.
#include <QDir>
#include <QStringList>

#include <cstdlib>

inline QStringList sampleCubins()
{
    QStringList out;
    QString dir = qEnvironmentVariable("SASSX_SAMPLES_DIR_OVERRIDE", SASSX_SAMPLES_DIR);
    QDir d(dir);
    for (const auto& f : d.entryList({"*.cubin"}, QDir::Files, QDir::Name))
        if (!f.startsWith("big_") && !f.startsWith("huge_")) out << d.filePath(f);
    return out;
}
