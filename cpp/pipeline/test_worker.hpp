// Renamed stats_worker.hpp. Kept only for scheduler.cpp, which includes it by its old name
// until its include is changed; no code here.
#pragma once

#include "pipeline/stats_worker.hpp"
