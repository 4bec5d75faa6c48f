import Foundation
import OakModels

extension OakClient {
    /// `GET /api/v1/search`: species, taxa and sources matching `query`.
    public func search(query: String, limit: Int? = nil) async throws(OakClientError) -> CatalogSearchResult {
        try await call(.search, query: ["q": query, "limit": limit.map { String($0) }])
    }

    /// `POST /api/v1/species`.
    public func createSpecies(_ patch: SpeciesPatch) async throws(OakClientError) -> Species {
        try await call(.createSpecies, body: patch)
    }

    /// `PUT /api/v1/species/{name}`: absent fields stay, `null` clears.
    public func updateSpecies(named name: String, with patch: SpeciesPatch) async throws(OakClientError) -> Species {
        try await call(.updateSpecies, [name], body: patch)
    }

    /// `DELETE /api/v1/species/{name}`, with the species' source data.
    public func deleteSpecies(named name: String) async throws(OakClientError) {
        _ = try await send(.deleteSpecies, [name])
    }

    /// `POST /api/v1/taxa`.
    public func createTaxon(_ patch: TaxonPatch) async throws(OakClientError) -> Taxon {
        try await call(.createTaxon, body: patch)
    }

    /// `PUT /api/v1/taxa/{level}/{name}`.
    public func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws(OakClientError) -> Taxon {
        try await call(.updateTaxon, [level.rawValue, name], body: patch)
    }

    /// `DELETE /api/v1/taxa/{level}/{name}`.
    public func deleteTaxon(level: TaxonLevel, name: String) async throws(OakClientError) {
        _ = try await send(.deleteTaxon, [level.rawValue, name])
    }

    /// `POST /api/v1/sources`.
    public func createSource(_ patch: SourcePatch) async throws(OakClientError) -> Source {
        try await call(.createSource, body: patch)
    }

    /// `PUT /api/v1/sources/{id}`.
    public func updateSource(id: Int, with patch: SourcePatch) async throws(OakClientError) -> Source {
        try await call(.updateSource, [String(id)], body: patch)
    }

    /// `DELETE /api/v1/sources/{id}`.
    public func deleteSource(id: Int) async throws(OakClientError) {
        _ = try await send(.deleteSource, [String(id)])
    }

    /// `POST /api/v1/species/{name}/sources`: one source's data about a species (`source_id` in the patch).
    public func createSpeciesSource(of name: String, with patch: SpeciesSourcePatch) async throws(OakClientError) -> SpeciesSource {
        try await call(.createSpeciesSource, [name], body: patch)
    }

    /// `PUT /api/v1/species/{name}/sources/{sourceId}`.
    public func updateSpeciesSource(of name: String, sourceId: Int, with patch: SpeciesSourcePatch) async throws(OakClientError)
        -> SpeciesSource
    {
        try await call(.updateSpeciesSource, [name, String(sourceId)], body: patch)
    }

    /// `DELETE /api/v1/species/{name}/sources/{sourceId}`.
    public func deleteSpeciesSource(of name: String, sourceId: Int) async throws(OakClientError) {
        _ = try await send(.deleteSpeciesSource, [name, String(sourceId)])
    }

    /// `POST /api/v1/backup`: a consistent snapshot of the server's database (needs the `admin` ability).
    public func backup() async throws(OakClientError) -> BackupInfo {
        try await call(.backup)
    }
}
