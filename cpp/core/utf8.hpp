// Checking and decoding the text encoding of the user's passages. Every request body is JSON,
// which must be UTF-8: a passage in another encoding (the original Financial PhraseBank files
// are Latin-1) fails on its own row with a clear error, or is decoded from Latin-1 when the
// user says so.
#pragma once

#include <cstddef>
#include <string>

namespace llmv {

// The byte offset of the first byte that does not start or continue a well-formed UTF-8
// sequence (overlong forms, surrogates and code points above U+10FFFF are not well formed),
// or std::string::npos when `text` is valid UTF-8.
std::size_t first_invalid_utf8(const std::string& text);

// Each byte is one ISO 8859-1 (Latin-1) character: bytes below 0x80 are kept, the others
// become two-byte UTF-8 sequences. Total: every byte string is valid Latin-1.
std::string latin1_to_utf8(const std::string& text);

// `text` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD, for
// showing a value in a message or an output row.
std::string utf8_replace_invalid(const std::string& text);

// True when `text` has no character but ASCII whitespace (or is empty).
bool is_blank(const std::string& text);

}  // namespace llmv
