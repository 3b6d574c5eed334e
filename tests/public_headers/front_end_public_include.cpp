// Built like a front end (llmv_front_end): includes a public header and uses it. The control
// for front_end_private_include.cpp, which differs only in what it includes.
#include "llmvalidate/text.hpp"

int llmv_front_end_public_probe() { return 0; }
