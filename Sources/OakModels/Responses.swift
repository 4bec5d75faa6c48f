import Foundation

/// Pagination of the species and taxa lists; `hasMore` stays camelCase as the v1 API has it.
public struct Pagination: Codable, Hashable, Sendable {
    public var total: Int
    public var limit: Int
    public var offset: Int
    public var hasMore: Bool

    public init(total: Int, limit: Int, offset: Int) {
        self.total = total
        self.limit = limit
        self.offset = offset
        // Written so that no offset, however large, can overflow.
        self.hasMore = offset < total && total - offset > limit
    }

    /// The default page size.
    public static let defaultLimit = 50
    /// The largest page size; larger requests are clamped to it.
    public static let maxLimit = 1000
}

/// A page of a list: `{"data": [...], "pagination": {...}}`.
public struct Page<Item: Codable & Sendable>: Codable, Sendable {
    public var data: [Item]
    public var pagination: Pagination

    public init(data: [Item], pagination: Pagination) {
        self.data = data
        self.pagination = pagination
    }
}

/// A species with all of its source data embedded (`/species/{name}/full`).
public struct SpeciesFull: Encodable, Sendable {
    public var species: Species
    public var sources: [AttributedSpeciesSource]

    public init(species: Species, sources: [AttributedSpeciesSource]) {
        self.species = species
        self.sources = sources
    }

    enum CodingKeys: String, CodingKey { case sources }

    public func encode(to encoder: any Encoder) throws {
        try species.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sources, forKey: .sources)
    }
}

/// The species search answer: `{"data": [...], "query", "count"}`.
public struct SpeciesSearchResult: Codable, Sendable {
    public var data: [Species]
    public var query: String
    public var count: Int

    public init(data: [Species], query: String) {
        self.data = data
        self.query = query
        self.count = data.count
    }
}

/// The answer of `/api/v1/search`: matches among species, taxa and sources, and how many of each were returned.
public struct CatalogSearchResult: Codable, Sendable {
    public var query: String
    public var species: [Species]
    public var taxa: [Taxon]
    public var sources: [Source]
    public var counts: Counts

    /// The number of results of each kind, as the original API reported them.
    public struct Counts: Codable, Hashable, Sendable {
        public var species: Int
        public var taxa: Int
        public var sources: Int
        public var total: Int
    }

    public init(query: String, species: [Species], taxa: [Taxon], sources: [Source]) {
        self.query = query
        self.species = species
        self.taxa = taxa
        self.sources = sources
        self.counts = Counts(
            species: species.count, taxa: taxa.count, sources: sources.count, total: species.count + taxa.count + sources.count)
    }
}

/// Counts of what the database holds (`/api/v1/stats`). The first four keys are the original API's:
/// `species_count` counts species that are not hybrids; the others are this server's additions.
public struct CatalogStats: Codable, Hashable, Sendable {
    /// Species that are not hybrids.
    public var speciesCount: Int
    public var hybridCount: Int
    public var taxaCount: Int
    public var sourceCount: Int
    /// Every species, hybrids included.
    public var species: Int
    public var hybrids: Int
    public var taxa: Int
    public var sources: Int
    public var speciesSources: Int
    public var notes: Int
    public var speciesBySubgenus: [String: Int]
    public var speciesByConservationStatus: [String: Int]
    public var taxaByLevel: [String: Int]
    public var speciesSourcesBySource: [String: Int]

    public init(
        species: Int, hybrids: Int, taxa: Int, sources: Int, speciesSources: Int, notes: Int,
        speciesBySubgenus: [String: Int], speciesByConservationStatus: [String: Int], taxaByLevel: [String: Int],
        speciesSourcesBySource: [String: Int]
    ) {
        self.speciesCount = species - hybrids
        self.hybridCount = hybrids
        self.taxaCount = taxa
        self.sourceCount = sources
        self.species = species
        self.hybrids = hybrids
        self.taxa = taxa
        self.sources = sources
        self.speciesSources = speciesSources
        self.notes = notes
        self.speciesBySubgenus = speciesBySubgenus
        self.speciesByConservationStatus = speciesByConservationStatus
        self.taxaByLevel = taxaByLevel
        self.speciesSourcesBySource = speciesSourcesBySource
    }

    enum CodingKeys: String, CodingKey {
        case speciesCount = "species_count"
        case hybridCount = "hybrid_count"
        case taxaCount = "taxa_count"
        case sourceCount = "source_count"
        case species, hybrids, taxa, sources
        case speciesSources = "species_sources"
        case notes
        case speciesBySubgenus = "species_by_subgenus"
        case speciesByConservationStatus = "species_by_conservation_status"
        case taxaByLevel = "taxa_by_level"
        case speciesSourcesBySource = "species_sources_by_source"
    }
}

/// The answer of the health routes (`APIRoute.health`, `.healthReady` and their `/api/v1` twins): liveness
/// (`"ok"`, with the versions), readiness (`"ready"`, the database `"connected"`), or `"unavailable"` with a 503.
public struct HealthStatus: Codable, Hashable, Sendable {
    public var status: String
    /// The server's API version and the oldest client it supports (liveness only; absent from older servers).
    public var version: VersionInfo?
    /// Whether the database answers (readiness only).
    public var database: String?
    /// What went wrong, when the server is not ready.
    public var error: String?

    public init(status: String, version: VersionInfo? = nil, database: String? = nil, error: String? = nil) {
        self.status = status
        self.version = version
        self.database = database
        self.error = error
    }
}

/// The version of this software and of the v1 API it serves, as `/health` reports them.
public struct VersionInfo: Codable, Hashable, Sendable {
    /// The API's version.
    public var api: String
    /// The oldest client version that works with this API (the original Go CLI checks it).
    public var minClient: String

    public init(api: String, minClient: String) {
        self.api = api
        self.minClient = minClient
    }

    /// This build's versions.
    public static let current = VersionInfo(api: "1.1.0", minClient: "1.0.0")

    enum CodingKeys: String, CodingKey {
        case api
        case minClient = "min_client"
    }

    /// Whether dotted version `version` is older than `other` ("1.9.0" < "1.10.0"; missing parts count as 0).
    public static func isVersion(_ version: String, olderThan other: String) -> Bool {
        func parts(_ text: String) -> [Int] { text.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 } }
        let (left, right) = (parts(version), parts(other))
        for index in 0..<max(left.count, right.count) {
            let (a, b) = (index < left.count ? left[index] : 0, index < right.count ? right[index] : 0)
            if a != b { return a < b }
        }
        return false
    }
}
