// A panel that keeps to the workspace and the session parts: tests/check_layers.py says nothing of it.
#pragma once
#include "core/session/variant_tree.h"
#include "core/tune/tune_db.h"
