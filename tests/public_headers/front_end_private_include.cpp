// Built like a front end (llmv_front_end), it includes a header private to the engine. The
// ctest front_end_private_include_fails_to_build expects this to fail: were it to build, the
// CLI or the Stata plugin could reach past cpp/include into the engine's areas.
#include "core/text.hpp"

int llmv_front_end_private_probe() { return 0; }
