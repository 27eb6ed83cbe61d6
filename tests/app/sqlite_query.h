#pragma once
// Reading a tune database in tests with SQLite itself (not through core/tune), so a test checks what any
// `sqlite3` user would see.
#include <QString>
#include <QStringList>

#include <sqlite3.h>

// Rows of a query on the database, each row's columns joined by '|'; one "error: ..." row when the query
// cannot be prepared.
inline QStringList query(const QString& db, const QString& sql)
{
    QStringList rows;
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &h, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close(h);
        return {"cannot open " + db};
    }
    sqlite3_busy_timeout(h, 10000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.toUtf8().constData(), -1, &st, nullptr) != SQLITE_OK) {
        rows << QStringLiteral("error: ") + sqlite3_errmsg(h);
    } else {
        while (sqlite3_step(st) == SQLITE_ROW) {
            QStringList cols;
            for (int c = 0; c < sqlite3_column_count(st); ++c)
                cols << QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, c)));
            rows << cols.join('|');
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rows;
}
