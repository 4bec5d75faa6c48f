import HummingbirdCore
import Logging

/// At most `limit` connections open at once: past it the server stops accepting (clients wait in the
/// listen backlog) until one closes. Reaching the cap is logged once, at warning level, and so is the
/// return below it, so an operator sees when and for how long the server was full.
struct ConnectionCap: AvailableConnectionsDelegate {
    let limit: Int
    let logger: Logger
    private var open = 0

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    mutating func connectionOpened() {
        open += 1
        if open == limit {
            logger.warning(
                "Connection cap reached: not accepting new connections until one closes (raise it with --max-connections)",
                metadata: ["open": "\(open)", "max_connections": "\(limit)"])
        }
    }

    mutating func connectionClosed() {
        if open == limit {
            logger.notice("Below the connection cap again: accepting connections", metadata: ["max_connections": "\(limit)"])
        }
        open -= 1
    }

    func isAcceptingNewConnections() -> Bool {
        open < limit
    }
}
