import Foundation
import Hummingbird
import OakModels
import OakStore

/// `/api/v1/taxa`: the taxonomy below the genus.
struct TaxaController {
    let repository: any TaxonRepository

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.listTaxa, use: list)
        group.on(.createTaxon, use: create)
        group.on(.listTaxaAtLevel, use: listLevel)
        group.on(.taxon, use: get)
        group.on(.updateTaxon, use: update)
        group.on(.patchTaxon, use: update)
        group.on(.deleteTaxon, use: delete)
    }

    @Sendable func list(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Page<Taxon>> {
        let query = request.queryValues(of: .listTaxa)
        return try await page(query, level: try query.string("level").map { try TaxonLevel.parse($0) })
    }

    @Sendable func listLevel(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Page<Taxon>> {
        try await page(request.queryValues(of: .listTaxaAtLevel), level: try TaxonLevel.parse(try context.pathParameter("level")))
    }

    /// Without `limit`, every taxon (as the original API answered and the web app expects).
    private func page(_ query: QueryValues, level: TaxonLevel?) async throws -> JSONResponse<Page<Taxon>> {
        let (limit, offset) = try query.pageBounds()
        let askedLimit = (query.string("limit") ?? "").isEmpty ? nil : limit
        return JSONResponse(
            body: try await repository.listTaxa(level: level, parent: query.string("parent"), limit: askedLimit, offset: offset))
    }

    @Sendable func get(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Taxon> {
        let (level, name) = try key(context)
        return JSONResponse(body: try await repository.taxon(level: level, name: name))
    }

    @Sendable func create(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Taxon> {
        let patch = try await request.decodeJSON(TaxonPatch.self)
        return JSONResponse(status: .created, body: try await repository.createTaxon(patch))
    }

    @Sendable func update(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<Taxon> {
        let (level, name) = try key(context)
        let patch = try await request.decodeJSON(TaxonPatch.self)
        return JSONResponse(body: try await repository.updateTaxon(level: level, name: name, with: patch))
    }

    @Sendable func delete(_ request: Request, context: OakRequestContext) async throws -> HTTPResponse.Status {
        let (level, name) = try key(context)
        try await repository.deleteTaxon(level: level, name: name)
        return .noContent
    }

    private func key(_ context: OakRequestContext) throws -> (TaxonLevel, String) {
        (try TaxonLevel.parse(try context.pathParameter("level")), try context.pathParameter("name"))
    }
}
