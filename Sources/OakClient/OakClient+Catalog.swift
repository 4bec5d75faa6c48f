import Foundation
import OakModels

/// The answer of a conditional export.
public enum ExportResult: Sendable {
    /// The export document (`ExportFile`, the original apps' `quercus_data.json`) and its ETag.
    case modified(body: Data, etag: String?)
    /// The data has not changed since the ETag the caller presented.
    case notModified
}

extension OakClient {
    /// `GET /health`: whether the server is up.
    public func health() async throws(OakClientError) -> HealthStatus {
        try await call(.health)
    }

    /// `GET /api/v1/auth/verify`: the configured key's name and abilities, or nil when the server does not
    /// accept it. Sends the key although it is a read.
    public func verifyKey() async throws(OakClientError) -> VerifiedKey? {
        let response = try await send(.verifyKey, sendKey: true, accepting: [401])
        guard (200..<300).contains(response.status) else { return nil }
        do {
            return try JSONDecoder().decode(VerifiedKey.self, from: response.body)
        } catch {
            throw OakClientError.invalidResponse(status: response.status, underlying: error)
        }
    }

    /// `GET /api/v1/species`: one page of species matching `filter`.
    public func listSpecies(filter: SpeciesFilter = SpeciesFilter(), limit: Int? = nil, offset: Int? = nil) async throws(OakClientError) -> Page<Species> {
        let query: [String: String?] = [
            "subgenus": filter.subgenus, "section": filter.section, "subsection": filter.subsection, "complex": filter.complex,
            "hybrid": filter.isHybrid.map { String($0) }, "source_id": filter.sourceId.map { String($0) },
            "limit": limit.map { String($0) }, "offset": offset.map { String($0) },
        ]
        return try await call(.listSpecies, query: query)
    }

    /// `GET /api/v1/species/{name}`.
    public func species(named name: String) async throws(OakClientError) -> Species {
        try await call(.species, [name])
    }

    /// `GET /api/v1/species/{name}/full`: the species with all of its source data.
    public func speciesFull(named name: String) async throws(OakClientError) -> SpeciesFull {
        try await call(.speciesFull, [name])
    }

    /// `GET /api/v1/species/search?q=`: species matching a name, synonym or local name.
    public func searchSpecies(query: String, limit: Int? = nil) async throws(OakClientError) -> SpeciesSearchResult {
        try await call(.searchSpecies, query: ["q": query, "limit": limit.map { String($0) }])
    }

    /// `GET /api/v1/taxa`: one page of taxa, optionally of one level and below one parent.
    public func listTaxa(level: TaxonLevel? = nil, parent: String? = nil, limit: Int? = nil, offset: Int? = nil) async throws(OakClientError) -> Page<Taxon> {
        let query: [String: String?] = [
            "level": level?.rawValue, "parent": parent, "limit": limit.map { String($0) }, "offset": offset.map { String($0) },
        ]
        return try await call(.listTaxa, query: query)
    }

    /// `GET /api/v1/taxa/{level}/{name}`.
    public func taxon(level: TaxonLevel, name: String) async throws(OakClientError) -> Taxon {
        try await call(.taxon, [level.rawValue, name])
    }

    /// `GET /api/v1/sources`.
    public func listSources() async throws(OakClientError) -> [Source] {
        try await call(.listSources)
    }

    /// `GET /api/v1/sources/{id}`.
    public func source(id: Int) async throws(OakClientError) -> Source {
        try await call(.source, [String(id)])
    }

    /// `GET /api/v1/species/{name}/sources`: a species' data from every source.
    public func speciesSources(of name: String) async throws(OakClientError) -> [SpeciesSource] {
        try await call(.speciesSources, [name])
    }

    /// `GET /api/v1/species/{name}/sources/{id}`.
    public func speciesSource(of name: String, sourceId: Int) async throws(OakClientError) -> SpeciesSource {
        try await call(.speciesSource, [name, String(sourceId)])
    }

    /// `GET /api/v1/stats`.
    public func stats() async throws(OakClientError) -> CatalogStats {
        try await call(.stats)
    }

    /// `GET /api/v1/export`; with the ETag of a previous export, `.notModified` while the data is unchanged.
    public func export(ifNoneMatch etag: String? = nil) async throws(OakClientError) -> ExportResult {
        let headers = etag.map { ["If-None-Match": $0] } ?? [:]
        let response = try await send(.export, headers: headers, accepting: [304])
        if response.status == 304 { return .notModified }
        return .modified(body: response.body, etag: response.headers["etag"])
    }
}
