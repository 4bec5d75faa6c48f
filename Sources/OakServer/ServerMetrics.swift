import Foundation
import OakStore
import Prometheus

/// Prometheus metrics: request counts and latency by route and status, and database pool gauges.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let handleCache = LockedDictionary<RequestKey, (Counter, DurationHistogram)>()
    private let pool: @Sendable () -> PoolStatus?
    private let cachedBytes: @Sendable () -> Int
    private let readsAnsweredBeforeRouting: Counter

    static let latencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
    ]

    /// - Parameters:
    ///   - pool: reads the database pool's state at scrape time.
    ///   - cachedBytes: reads the size of the response cache at scrape time.
    public init(pool: @escaping @Sendable () -> PoolStatus?, cachedBytes: @escaping @Sendable () -> Int) {
        self.pool = pool
        self.cachedBytes = cachedBytes
        readsAnsweredBeforeRouting = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "oak", metricName: "response_cache_answered_before_routing", unitName: "total",
                helpText: "Reads answered on the connection before routing, from the response cache or from memory (also counted in oak_http_requests_total)."))
    }

    /// Counts a read answered by `CachedReads`.
    func recordAnsweredBeforeRouting() {
        readsAnsweredBeforeRouting.increment()
    }

    func record(method: String, route: String, status: Int, duration: Duration) {
        let (counter, histogram) = handles(for: RequestKey(method: method, route: route, status: status))
        counter.increment()
        histogram.record(duration)
    }

    /// Counts a pull page that was read ahead (`PullReadAhead`) when it is asked for: answered from the read, or
    /// read again because the data moved meanwhile.
    func recordPullReadAhead(used: Bool) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "oak", subsystem: "sync", metricName: "pull_pages_read_ahead", unitName: "total",
                helpText: "Pull pages read ahead and then asked for, by whether the read answered (used) or the data had moved (discarded)."),
            labels: [("result", used ? "used" : "discarded")]
        ).increment()
    }

    /// The store's running totals as last rendered, by metric: counters advance by what is new since.
    private let renderedTotals = LockedDictionary<String, Double>()

    /// Moves a counter up to a running total the store keeps.
    private func advance(_ key: String, _ descriptor: MetricNameDescriptor, labels: [(String, String)] = [], to total: Double) {
        let counter = registry.makeCounter(descriptor: descriptor, labels: labels)
        let delta = renderedTotals.withLock { totals in
            defer { totals[key] = max(totals[key] ?? 0, total) }
            return total - (totals[key] ?? 0)
        }
        if delta > 0 { counter.increment(by: delta) }
    }

    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    /// The metrics of one (method, route, status), made once and then looked up (this runs per request).
    private func handles(for key: RequestKey) -> (Counter, DurationHistogram) {
        if let found = handleCache.withLock({ $0[key] }) { return found }
        let labels = [("method", key.method), ("route", key.route), ("status", String(key.status))]
        let made = (
            registry.makeCounter(descriptor: Self.requests, labels: labels),
            registry.makeDurationHistogram(descriptor: Self.requestDuration, labels: labels, buckets: Self.latencyBuckets)
        )
        handleCache.withLock { $0[key] = made }
        return made
    }

    // Descriptors are not Sendable, so they are made where used (handles are made once per label set).
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "oak", subsystem: "http", metricName: "requests", unitName: "total", helpText: "HTTP requests answered.")
    }

    static var requestDuration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "oak", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from a request's arrival to its response.")
    }

    static func database(_ name: String, _ help: String, unit: String = "") -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "oak", subsystem: "db", metricName: name, unitName: unit, helpText: help)
    }

    /// The exposition text, with the pool gauges read now.
    func render() -> String {
        if let status = pool() {
            registry.makeGauge(descriptor: Self.database("reads_in_flight", "Database reads running now.")).set(Double(status.readsInFlight))
            registry.makeGauge(descriptor: Self.database("writes_in_flight", "Database writes running or waiting now.")).set(Double(status.writesInFlight))
            registry.makeGauge(descriptor: Self.database("max_readers", "Reader connections the pool may open.")).set(Double(status.maxReaders))
            if let waits = status.connectionWaits {
                advance(
                    "connection_waits", Self.database("connection_waits", "Database connections leased or given up on.", unit: "total"), to: Double(waits.count)
                )
                advance(
                    "connection_wait_seconds",
                    Self.database("connection_wait", "Time spent waiting for a database connection.", unit: "seconds_total"), to: waits.seconds)
            }
            for (kind, count) in status.failures {
                advance(
                    "failures/\(kind)",
                    Self.database("failures", "Database failures answered 503 or retried, by kind.", unit: "total"), labels: [("kind", kind)],
                    to: Double(count))
            }
            if let notifications = status.changeNotifications {
                registry.makeGauge(
                    descriptor: Self.database("change_notifications_listening", "1 while other instances' commits are heard (LISTEN), else 0.")
                ).set(Double(notifications.listening ? 1 : 0))
                advance(
                    "change_notifications",
                    Self.database("change_notifications", "Commits of other instances (and this one) heard.", unit: "total"),
                    to: Double(notifications.heard))
                if let head = notifications.headHeard {
                    registry.makeGauge(descriptor: Self.database("change_log_head_heard", "The highest change-log head a commit announced.")).set(
                        Double(head))
                }
            }
            if let fileBytes = status.fileBytes {
                registry.makeGauge(descriptor: Self.database("file", "Size of the database file and its write-ahead log.", unit: "bytes")).set(
                    Double(fileBytes))
            }
        }
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "oak", metricName: "response_cache", unitName: "bytes",
                helpText: "Bytes of response bodies kept by the read cache.")
        ).set(Double(cachedBytes()))
        return registry.emitToString()
    }
}

/// A dictionary behind a lock.
final class LockedDictionary<Key: Hashable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Key: Value] = [:]

    func withLock<Result>(_ body: (inout [Key: Value]) -> Result) -> Result {
        lock.withLock { body(&storage) }
    }
}
