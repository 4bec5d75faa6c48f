import Foundation
import Hummingbird
import OakModels

/// `/api/v1/openapi.json`: the OpenAPI 3.1 contract of every route.
struct OpenAPIController {
    /// The bundled document.
    static let document: Data = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"), let data = try? Data(contentsOf: url) else {
            preconditionFailure("openapi.json is missing from the OakServer bundle")
        }
        return data
    }()

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.openAPIDocument, use: serve)
    }

    @Sendable func serve(_ request: Request, context: OakRequestContext) async throws -> Response {
        .json(ByteBuffer(bytes: Self.document))
    }
}
