import Foundation
import Hummingbird
import OakModels
import OakStore

/// `/api/v1/sources`: the references data is attributed to.
struct SourcesController {
    let repository: any SourceRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.listSources, use: list)
        group.on(.createSource, use: create)
        group.on(.source, use: get)
        group.on(.updateSource, use: update)
        group.on(.patchSource, use: update)
        group.on(.deleteSource, use: delete)
    }

    @Sendable func list(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<[Source]> {
        JSONResponse(body: try await repository.listSources())
    }

    @Sendable func get(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Source> {
        JSONResponse(body: try await repository.source(id: try context.pathInt("id")))
    }

    @Sendable func create(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Source> {
        let patch = try await request.decodeJSON(SourcePatch.self)
        return JSONResponse(status: .created, body: try await repository.createSource(patch))
    }

    @Sendable func update(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Source> {
        let id = try context.pathInt("id")
        let patch = try await request.decodeJSON(SourcePatch.self)
        return JSONResponse(body: try await repository.updateSource(id: id, with: patch))
    }

    @Sendable func delete(_ request: Request, context: OakRequestContext) async throws -> HTTPResponse.Status {
        try await repository.deleteSource(id: try context.pathInt("id"))
        return .noContent
    }
}
