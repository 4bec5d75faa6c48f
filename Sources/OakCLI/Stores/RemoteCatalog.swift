import Foundation
import OakClient
import OakModels
import OakStore

/// The compendium on a server, through `OakClient`: the same protocols as a local database, so every
/// command has one body for both modes. Errors arrive as `OakClientError`.
public struct RemoteCatalog: CatalogAccess {
    public let client: OakClient

    public init(client: OakClient) {
        self.client = client
    }

    public var location: String { "server \(client.configuration.baseURL.absoluteString)" }

    // MARK: Species

    public func listSpecies(filter: SpeciesFilter, limit: Int, offset: Int) async throws -> Page<Species> {
        try await client.listSpecies(filter: filter, limit: limit, offset: offset)
    }

    public func species(named name: String) async throws -> Species {
        try await client.species(named: name)
    }

    public func speciesFull(named name: String) async throws -> SpeciesFull {
        try await client.speciesFull(named: name)
    }

    public func searchSpecies(query: String, limit: Int) async throws -> [Species] {
        try await client.searchSpecies(query: query, limit: limit).data
    }

    public func createSpecies(_ patch: SpeciesPatch) async throws -> Species {
        try await client.createSpecies(patch)
    }

    public func updateSpecies(named name: String, with patch: SpeciesPatch) async throws -> Species {
        try await client.updateSpecies(named: name, with: patch)
    }

    public func deleteSpecies(named name: String) async throws {
        try await client.deleteSpecies(named: name)
    }

    // MARK: Taxa

    public func listTaxa(level: TaxonLevel?, parent: String?, limit: Int?, offset: Int) async throws -> Page<Taxon> {
        try await client.listTaxa(level: level, parent: parent, limit: limit, offset: offset)
    }

    public func taxon(level: TaxonLevel, name: String) async throws -> Taxon {
        try await client.taxon(level: level, name: name)
    }

    public func createTaxon(_ patch: TaxonPatch) async throws -> Taxon {
        try await client.createTaxon(patch)
    }

    public func updateTaxon(level: TaxonLevel, name: String, with patch: TaxonPatch) async throws -> Taxon {
        try await client.updateTaxon(level: level, name: name, with: patch)
    }

    public func deleteTaxon(level: TaxonLevel, name: String) async throws {
        try await client.deleteTaxon(level: level, name: name)
    }

    // MARK: Sources

    public func listSources() async throws -> [Source] {
        try await client.listSources()
    }

    public func source(id: Int) async throws -> Source {
        try await client.source(id: id)
    }

    public func createSource(_ patch: SourcePatch) async throws -> Source {
        try await client.createSource(patch)
    }

    public func updateSource(id: Int, with patch: SourcePatch) async throws -> Source {
        try await client.updateSource(id: id, with: patch)
    }

    public func deleteSource(id: Int) async throws {
        try await client.deleteSource(id: id)
    }

    // MARK: Species sources

    public func speciesSources(of name: String) async throws -> [SpeciesSource] {
        try await client.speciesSources(of: name)
    }

    public func speciesSource(of name: String, sourceId: Int) async throws -> SpeciesSource {
        try await client.speciesSource(of: name, sourceId: sourceId)
    }

    public func createSpeciesSource(of name: String, with patch: SpeciesSourcePatch) async throws -> SpeciesSource {
        try await client.createSpeciesSource(of: name, with: patch)
    }

    public func updateSpeciesSource(of name: String, sourceId: Int, with patch: SpeciesSourcePatch) async throws -> SpeciesSource {
        try await client.updateSpeciesSource(of: name, sourceId: sourceId, with: patch)
    }

    public func deleteSpeciesSource(of name: String, sourceId: Int) async throws {
        try await client.deleteSpeciesSource(of: name, sourceId: sourceId)
    }

    // MARK: Notes

    public func notes(species: String?, sourceId: Int) async throws -> [Note] {
        try await client.notes(species: species, sourceId: sourceId)
    }

    public func note(id: UUID) async throws -> Note {
        try await client.note(id: id)
    }

    public func createNote(_ input: NoteInput) async throws -> Note {
        var fields = NoteFields()
        input.fields.apply(to: &fields)
        return try await client.createNote(id: input.id, scientificName: input.scientificName ?? "", sourceId: input.sourceId, fields: fields)
    }

    public func updateNote(id: UUID, with input: NoteInput, expectedVersion: Int64?) async throws -> Note {
        var fields = try await client.note(id: id).fields
        input.fields.apply(to: &fields)
        return try await client.updateNote(id: id, fields: fields, expectedVersion: expectedVersion)
    }

    public func deleteNote(id: UUID, expectedVersion: Int64?) async throws {
        try await client.deleteNote(id: id, expectedVersion: expectedVersion)
    }

    // MARK: Across the compendium

    public func search(query: String, limit: Int) async throws -> CatalogSearchResult {
        try await client.search(query: query, limit: limit)
    }

    public func stats() async throws -> CatalogStats {
        try await client.stats()
    }

    public func exportDocument() async throws -> Data {
        switch try await client.export() {
        case .modified(let body, _): body
        case .notModified: throw OakError(.internalError, "The server answered 304 to an unconditional export")
        }
    }
}
