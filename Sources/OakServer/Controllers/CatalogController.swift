import Foundation
import Hummingbird
import OakModels
import OakStore
import OakStoreKit

/// `/api/v1/search`, `/api/v1/stats` and `/api/v1/export`: views across the whole compendium.
struct CatalogController {
    let repository: any CatalogRepository & EncodedRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.search, use: search)
        group.on(.stats, use: stats)
        group.on(.export, use: export)
    }

    @Sendable func search(_ request: Request, context: OakRequestContext) async throws -> Response {
        let (query, limit) = try Self.searchParameters(request.queryValues(of: .search))
        return .json(try await repository.searchDocument(query: query, limit: limit))
    }

    /// A search's text (`q`, required) and how many of each kind to find (`limit`); 400 for either amiss.
    static func searchParameters(_ parameters: QueryValues) throws -> (query: String, limit: Int) {
        guard let query = parameters.string("q"), !query.isBlank else { throw OakError.invalid("q", "is required") }
        return (query, try parameters.pageBounds().limit)
    }

    @Sendable func stats(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<CatalogStats> {
        JSONResponse(body: try await repository.stats())
    }

    /// The denormalized export with a strong ETag; `If-None-Match` with that ETag answers 304.
    @Sendable func export(_ request: Request, context: OakRequestContext) async throws -> Response {
        let snapshot = try await repository.export()
        let headers: HTTPFields = [.eTag: snapshot.etag, .cacheControl: "public, max-age=300"]
        if request.headers.ifNoneMatchMatches(snapshot.etag) {
            return Response(status: .notModified, headers: headers)
        }
        return .json(snapshot.body, headers: headers)
    }
}
