import Foundation
import Hummingbird
import HummingbirdCore
import OakModels
import OakStore

/// The request context of every route: JSON coding configured for the v1 wire format.
public struct OakRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, from the socket.
    public let socketAddress: String?
    /// The request's id, echoed in `X-Request-ID`.
    public var requestID = ""
    /// The client's IP address: the socket's, or a trusted proxy's header.
    public var clientIP = "unknown"
    /// The data version the response cache read for this request, so the route reads it no second time
    /// (on PostgreSQL each read is a round trip).
    var dataVersion: DataVersion?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.socketAddress = source.channel.remoteAddress?.ipAddress
    }

    public var requestDecoder: JSONDecoder { JSONDecoder() }

    public var responseEncoder: JSONEncoder { WireJSON.encoder }
}
