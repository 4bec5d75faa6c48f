import Foundation
import OakClient

#if canImport(Network)
import Network
#endif

/// Whether the server can be reached, and a stream of changes so the engine syncs when it comes back.
public protocol Connectivity: Sendable {
    var isOnline: Bool { get async }
    /// Sends the new state whenever it changes.
    func changes() -> AsyncStream<Bool>
}

/// The connectivity monitor for the current platform: NWPathMonitor on Apple platforms, health probes elsewhere.
public func makeDefaultConnectivity(client: OakClient) -> any Connectivity {
    #if canImport(Network)
    PathMonitorConnectivity()
    #else
    HealthProbeConnectivity(client: client)
    #endif
}

/// The last known reachability and the subscribers to its changes; shared by the monitors.
final class ReachabilityState: @unchecked Sendable {
    private let lock = NSLock()
    private var online = true
    private let broadcaster = Broadcaster<Bool>()

    var isOnline: Bool { lock.withLock { online } }

    func changes() -> AsyncStream<Bool> { broadcaster.stream() }

    /// Records a probe's answer and tells subscribers if it changed.
    func record(_ reachable: Bool) {
        let changed = lock.withLock {
            defer { online = reachable }
            return online != reachable
        }
        if changed { broadcaster.yield(reachable) }
    }

    func finish() { broadcaster.finish() }
}

/// Probes the server's `/health` periodically (Linux has no path monitor).
public final class HealthProbeConnectivity: Connectivity {
    private let state: ReachabilityState
    private let probing: Task<Void, Never>

    public init(client: OakClient, interval: Duration = .seconds(15), sleeper: any Sleeper = TaskSleeper()) {
        let state = ReachabilityState()
        self.state = state
        probing = Task {
            while !Task.isCancelled {
                state.record((try? await client.health()) != nil)
                do { try await sleeper.sleep(for: interval) } catch { return }
            }
        }
    }

    deinit {
        probing.cancel()
        state.finish()
    }

    public var isOnline: Bool { state.isOnline }

    public func changes() -> AsyncStream<Bool> { state.changes() }
}

#if canImport(Network)
/// Follows the device's network path with NWPathMonitor (which calls back on its own queue; the state is lock-protected).
public final class PathMonitorConnectivity: Connectivity, @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let state: ReachabilityState

    public init() {
        let state = ReachabilityState()
        self.state = state
        monitor.pathUpdateHandler = { path in state.record(path.status == .satisfied) }
        monitor.start(queue: DispatchQueue(label: "oak.connectivity"))
    }

    deinit {
        monitor.cancel()
        state.finish()
    }

    public var isOnline: Bool { state.isOnline }

    public func changes() -> AsyncStream<Bool> { state.changes() }
}
#endif
