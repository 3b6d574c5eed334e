# Run by pkgbuild before it builds the package (DESCRIPTION: Config/build/bootstrap), so that
# remotes and pak can install the `rpkg` subdirectory of the repository: the engine's sources
# live once in ../cpp and are staged here (tools/stage-r-package.sh).
stage <- file.path("..", "tools", "stage-r-package.sh")
if (file.exists(stage)) {  # at every build: incremental, so an edit to ../cpp is never missed
  status <- system2("bash", stage)
  if (!identical(status, 0L)) stop("tools/stage-r-package.sh failed (status ", status, ")")
}
