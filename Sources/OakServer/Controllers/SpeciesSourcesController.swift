import Foundation
import Hummingbird
import OakModels
import OakStore

/// `/api/v1/species/{name}/sources`: a species' descriptive data per source.
struct SpeciesSourcesController {
    let repository: any SpeciesSourceRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.speciesSources, use: list)
        group.on(.createSpeciesSource, use: create)
        group.on(.speciesSource, use: get)
        group.on(.updateSpeciesSource, use: update)
        group.on(.patchSpeciesSource, use: update)
        group.on(.deleteSpeciesSource, use: delete)
    }

    @Sendable func list(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<[SpeciesSource]> {
        JSONResponse(body: try await repository.speciesSources(of: try context.pathParameter("name")))
    }

    @Sendable func get(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<SpeciesSource> {
        JSONResponse(
            body: try await repository.speciesSource(
                of: try context.pathParameter("name"), sourceId: try context.pathInt("sourceId")))
    }

    @Sendable func create(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<SpeciesSource> {
        let name = try context.pathParameter("name")
        let patch = try await request.decodeJSON(SpeciesSourcePatch.self)
        return JSONResponse(status: .created, body: try await repository.createSpeciesSource(of: name, with: patch))
    }

    @Sendable func update(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<SpeciesSource> {
        let name = try context.pathParameter("name")
        let sourceId = try context.pathInt("sourceId")
        let patch = try await request.decodeJSON(SpeciesSourcePatch.self)
        return JSONResponse(body: try await repository.updateSpeciesSource(of: name, sourceId: sourceId, with: patch))
    }

    @Sendable func delete(_ request: Request, context: OakRequestContext) async throws -> HTTPResponse.Status {
        try await repository.deleteSpeciesSource(of: try context.pathParameter("name"), sourceId: try context.pathInt("sourceId"))
        return .noContent
    }
}
