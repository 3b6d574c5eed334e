# The tests never touch the user's own cache: the default cache (llm_cache_path()) is a file in
# the test session's temporary directory.
withr::local_envvar(
  LLMV_CACHE = file.path(tempdir(), "llmvalidate-test-cache.sqlite"),
  .local_envir = teardown_env()
)
