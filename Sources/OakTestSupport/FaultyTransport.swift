import Foundation
import OakClient
import OakTestBasics

/// The network failed before a response arrived.
public struct NetworkFailure: Error {
    public let reason: String
}

/// A transport over the real one that can be offline and, with seeded probabilities, drops requests
/// before they are sent, drops responses after the server committed, answers 503 or 429 with
/// `Retry-After` itself, and delays requests.
public final class FaultyTransport: HTTPTransport, @unchecked Sendable {
    /// Probabilities, each in 0...1.
    public struct Faults: Sendable {
        public var dropRequest = 0.0
        public var dropResponse = 0.0
        public var serviceUnavailable = 0.0
        public var rateLimited = 0.0
        public var delay = 0.0

        public static let none = Faults()

        public init(dropRequest: Double = 0, dropResponse: Double = 0, serviceUnavailable: Double = 0, rateLimited: Double = 0, delay: Double = 0) {
            self.dropRequest = dropRequest
            self.dropResponse = dropResponse
            self.serviceUnavailable = serviceUnavailable
            self.rateLimited = rateLimited
            self.delay = delay
        }
    }

    private let lock = NSLock()
    private let base: any HTTPTransport
    private var random: SeededRandom
    private var _online = true
    private var _faults = Faults.none
    private var _onResponse: (@Sendable (TransportRequest) async -> Void)?

    public init(seed: UInt64, base: any HTTPTransport = makeDefaultTransport()) {
        self.base = base
        random = SeededRandom(seed: seed)
    }

    public var online: Bool {
        get { lock.withLock { _online } }
        set { lock.withLock { _online = newValue } }
    }

    public var faults: Faults {
        get { lock.withLock { _faults } }
        set { lock.withLock { _faults = newValue } }
    }

    /// Runs after the server answered and before the client sees the answer (a push "in flight").
    public var onResponse: (@Sendable (TransportRequest) async -> Void)? {
        get { lock.withLock { _onResponse } }
        set { lock.withLock { _onResponse = newValue } }
    }

    private func roll(_ probability: Double) -> Bool {
        lock.withLock { probability > 0 && Double.random(in: 0..<1, using: &random) < probability }
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let faults = faults
        guard online else { throw NetworkFailure(reason: "offline") }
        if roll(faults.delay) { try await Task.sleep(for: .milliseconds(lock.withLock { Int.random(in: 1...5, using: &random) })) }
        if roll(faults.dropRequest) { throw NetworkFailure(reason: "request dropped") }
        if roll(faults.serviceUnavailable) { return Self.failure(503, "SERVICE_UNAVAILABLE", retryAfter: nil) }
        if roll(faults.rateLimited) { return Self.failure(429, "RATE_LIMITED", retryAfter: "1") }
        let response = try await base.send(request)
        await onResponse?(request)
        if roll(faults.dropResponse) { throw NetworkFailure(reason: "response dropped") }
        return response
    }

    private static func failure(_ status: Int, _ code: String, retryAfter: String?) -> TransportResponse {
        let body = Data(#"{"error":{"code":"\#(code)","message":"injected"}}"#.utf8)
        return TransportResponse(status: status, headers: retryAfter.map { ["Retry-After": $0] } ?? [:], body: body)
    }
}
