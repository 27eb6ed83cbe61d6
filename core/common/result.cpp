#include "core/common/result.h"
