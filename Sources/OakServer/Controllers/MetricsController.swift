import Foundation
import Hummingbird
import OakModels

/// `/metrics`: Prometheus exposition.
struct MetricsController {
    let metrics: ServerMetrics

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.metrics, use: render)
    }

    @Sendable func render(_ request: Request, context: OakRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
    }
}
