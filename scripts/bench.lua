-- wrk reporter for scripts/bench: one JSON line with throughput, p50 and p99 (ms) and error counts.
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.3f, "p99_ms": %.3f, "socket_errors": %d, "http_errors": %d}\n',
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write + e.timeout, e.status))
end
