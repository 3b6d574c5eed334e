# The project's fake provider server (tests/fake_server), started by the tests on 127.0.0.1.
# tools/test.d/r-package.sh passes the built executable in LLMV_FAKE_SERVER; without it these
# tests are skipped. Nothing here reaches beyond the loopback interface.

local_fake_server <- function(latency_ms = 0, env = parent.frame(), args = character()) {
  server_path <- Sys.getenv("LLMV_FAKE_SERVER")
  skip_if(!nzchar(server_path) || !file.exists(server_path), "LLMV_FAKE_SERVER is not set")
  skip_if_not_installed("processx")
  skip_if_not_installed("jsonlite")
  process <- processx::process$new(
    server_path, c("--port", "0", "--latency-ms", as.character(latency_ms), args),
    stdout = "|", stderr = "|"
  )
  withr::defer(process$kill(), envir = env)
  process$poll_io(10000)
  port <- suppressWarnings(as.integer(process$read_output_lines(1)))
  if (length(port) != 1 || is.na(port)) {
    stop("the fake provider server did not print its port")
  }
  list(process = process, port = port, base_url = sprintf("http://127.0.0.1:%d/v1", port),
       root_url = sprintf("http://127.0.0.1:%d", port))
}

# A minimal HTTP/1.1 exchange over a socket: the control endpoints need no HTTP package.
fake_control <- function(server, method, path, body = "") {
  connection <- socketConnection("127.0.0.1", server$port, blocking = TRUE, open = "r+b",
                                 timeout = 10)
  on.exit(close(connection))
  request <- paste0(
    method, " ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n",
    "Content-Type: application/json\r\nContent-Length: ", nchar(body, type = "bytes"),
    "\r\n\r\n", body
  )
  writeBin(charToRaw(request), connection)
  response <- readLines(connection, warn = FALSE)
  status <- as.integer(strsplit(response[1], " ", fixed = TRUE)[[1]][2])
  if (is.na(status) || status != 200) {
    stop("fake server control request failed: ", paste(response, collapse = "\n"))
  }
  jsonlite::fromJSON(response[length(response)], simplifyVector = TRUE)
}

# Requests the server received, by endpoint ("openai.chat", "openai.embeddings", "total").
fake_counters <- function(server) {
  counters <- fake_control(server, "GET", "/_control/counters")
  c(chat = counters[["openai.chat"]] %||% 0, embeddings = counters[["openai.embeddings"]] %||% 0,
    total = counters[["total"]] %||% 0)
}

fake_reset <- function(server) invisible(fake_control(server, "POST", "/_control/reset", "{}"))

# Scripted answers for the next requests to an endpoint, e.g. one HTTP 429.
fake_faults <- function(server, endpoint, faults) {
  body <- jsonlite::toJSON(list(endpoint = endpoint, faults = faults), auto_unbox = TRUE)
  invisible(fake_control(server, "POST", "/_control/faults", as.character(body)))
}

# The server's port changes from run to run; snapshots show a fixed one.
scrub_port <- function(lines) gsub("127\\.0\\.0\\.1:[0-9]+", "127.0.0.1:<port>", lines)

`%||%` <- function(x, y) if (is.null(x)) y else x

# A dry run prints its report; tests look at the value.
capture_dry_run <- function(expr) {
  report <- NULL
  utils::capture.output(report <- expr)
  report
}

# Every answer the server gave without a fault, in order: its endpoint, and the request and
# response bodies (JSON texts).
fake_served <- function(server) fake_control(server, "GET", "/_control/served")

# The texts of the simulation answers the server served on openai.chat.
fake_served_texts <- function(server) {
  served <- fake_served(server)
  served <- served[served$endpoint == "openai.chat", , drop = FALSE]
  contents <- vapply(served$response, function(body) {
    jsonlite::fromJSON(body, simplifyVector = FALSE)$choices[[1]]$message$content
  }, character(1), USE.NAMES = FALSE)
  unlist(lapply(contents, function(content) {
    json <- sub("(?s)^.*?```json\\s*(.*?)\\s*```.*$", "\\1", content, perl = TRUE)
    jsonlite::fromJSON(json, simplifyVector = FALSE)$passages
  }), use.names = FALSE)
}
