// A main that reaches past the workspace: tests/check_layers.py must name this line (test_layers_leak).
#include "core/rewrite/legality.h"
#include "core/session/workspace.h"
