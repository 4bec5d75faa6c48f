import Foundation
import Hummingbird
import OakModels
import OakStore
import OakStoreKit

/// `/api/v1/species`: list, search, get, full, create, update, delete.
struct SpeciesController {
    let repository: any SpeciesRepository & EncodedRepository
    /// Species records held in memory, for `GET /species/{name}`.
    let records: SpeciesRecords

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.listSpecies, use: list)
        group.on(.createSpecies, use: create)
        group.on(.searchSpecies, use: search)
        group.on(.species, use: get)
        group.on(.speciesFull, use: full)
        group.on(.updateSpecies, use: update)
        group.on(.patchSpecies, use: update)
        group.on(.deleteSpecies, use: delete)
    }

    @Sendable func list(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Page<Species>> {
        let query = request.queryValues(of: .listSpecies)
        let (limit, offset) = try query.pageBounds()
        let subgenus = try query.string("subgenus").map { text in
            guard let known = Species.subgenera.first(where: { $0.caseInsensitiveCompare(text) == .orderedSame }) else {
                throw OakError.invalid("subgenus", "must be one of: \(Species.subgenera.joined(separator: ", "))")
            }
            return known
        }
        let filter = SpeciesFilter(
            subgenus: subgenus, section: query.string("section"), subsection: query.string("subsection"),
            complex: query.string("complex"), isHybrid: try query.bool("hybrid") ?? query.bool("is_hybrid"),
            sourceId: try query.int("source_id") ?? query.int("sourceId"))
        return JSONResponse(body: try await repository.listSpecies(filter: filter, limit: limit, offset: offset))
    }

    @Sendable func search(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<SpeciesSearchResult> {
        let parameters = request.queryValues(of: .searchSpecies)
        guard let query = parameters.string("q"), !query.isBlank else { throw OakError.invalid("q", "is required") }
        let (limit, _) = try parameters.pageBounds()
        return JSONResponse(body: SpeciesSearchResult(data: try await repository.searchSpecies(query: query, limit: limit), query: query))
    }

    @Sendable func get(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await records.response(named: try context.pathParameter("name"), knownVersion: context.dataVersion)
    }

    @Sendable func full(_ request: Request, context: OakRequestContext) async throws -> Response {
        .json(try await repository.encodedSpeciesFull(named: try context.pathParameter("name")))
    }

    @Sendable func create(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Species> {
        let patch = try await request.decodeJSON(SpeciesPatch.self)
        return JSONResponse(status: .created, body: try await repository.createSpecies(patch))
    }

    @Sendable func update(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Species> {
        let name = try context.pathParameter("name")
        let patch = try await request.decodeJSON(SpeciesPatch.self)
        return JSONResponse(body: try await repository.updateSpecies(named: name, with: patch))
    }

    @Sendable func delete(_ request: Request, context: OakRequestContext) async throws -> HTTPResponse.Status {
        try await repository.deleteSpecies(named: try context.pathParameter("name"))
        return .noContent
    }
}
