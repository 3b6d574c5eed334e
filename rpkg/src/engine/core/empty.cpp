// Keeps an area library non-empty before its first source file lands.
