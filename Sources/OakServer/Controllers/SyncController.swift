import Foundation
import Hummingbird
import OakModels
import OakStoreKit

/// `/api/v1/sync`: cursor pulls of every change (each page after the first read ahead, see `PullReadAhead`),
/// and batched pushes of note changes.
struct SyncController {
    let repository: any EncodedRepository
    let pages: PullReadAhead

    /// The default and largest page of a pull.
    static let defaultPullLimit = 1000
    static let maxPullLimit = 5000

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.pull, use: pull)
        group.on(.changes, use: pull)
        group.on(.push, use: push)
    }

    @Sendable func pull(_ request: Request, context: OakRequestContext) async throws -> Response {
        let query = request.queryValues(of: .pull)  // `changes`, the older name, reads the same
        let limit = try query.int("limit") ?? Self.defaultPullLimit
        guard limit >= 1 else { throw OakError.invalid("limit", "must be at least 1") }
        let entities = try SyncEntity.parseList(query.string("entities"))
        let page = try await pages.page(
            cursor: query.string("since"), limit: min(limit, Self.maxPullLimit), entities: entities, knownVersion: context.dataVersion)
        return .json(page.body)
    }

    @Sendable func push(_ request: Request, context: OakRequestContext) async throws -> Response {
        let batch = try await request.decodeJSON(PushRequest.self)
        return .json(try await repository.push(batch.changes, cursor: batch.cursor))
    }
}
