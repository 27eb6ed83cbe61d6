#pragma once
// A main window for tests: it owns a fresh session that never autosaves (tests never touch the user's
// autosave file).
#include "core/session/session.h"
#include "core/session/session_store.h"
#include "widgets/main_window.h"

#include <memory>

namespace sassx::test {

inline std::unique_ptr<MainWindow> newWindow()
{
    auto* session = new Session;
    session->store()->setAutosaveInterval(0);
    auto window = std::make_unique<MainWindow>(session);
    session->setParent(window.get());
    return window;
}

} // namespace sassx::test
