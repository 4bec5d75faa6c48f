import Foundation
import NIOCore
import OakModels

/// The JSON of a `CatalogSearchResult` (what `/api/v1/search` answers), written by hand: its species as sync
/// pages write them (from `SpeciesRecordColumn`s), in the order they are added; its taxa and
/// sources, few and rarely any, through `JSONEncoder`. The species are not encoded through `JSONEncoder`
/// because the encoder would be most of the time of a search that finds many species (see BENCHMARKS.md,
/// "Server round 2", item 17).
public struct CatalogSearchDocument {
    @usableFromInline var species = JSONOutput(capacity: 4096)
    @usableFromInline var speciesCount = 0

    public init() {}

    /// Adds the species on the row `columns` is positioned on, read with `SpeciesRecordColumn.list`.
    @inlinable
    public mutating func addSpecies(_ columns: some ColumnReader) throws {
        if speciesCount > 0 { species.raw(",") }
        try species.speciesRecord(columns)
        speciesCount += 1
    }

    /// Adds a species' record written before (`JSONOutput.speciesRecord`).
    package mutating func addSpecies(record: [UInt8]) {
        if speciesCount > 0 { species.raw(",") }
        record.withUnsafeBufferPointer { species.append($0) }
        speciesCount += 1
    }

    /// The document of a search for `query`: the species added, then `taxa` and `sources`, each in the order given.
    package func finish(query: String, taxa: [Taxon], sources: [Source]) throws -> ByteBuffer {
        var json = JSONOutput(capacity: 128 + species.count)
        // Members in sorted order, as the encoder writes them.
        json.raw(#"{"counts":{"sources":"#)
        json.int(Int64(sources.count))
        json.raw(#","species":"#)
        json.int(Int64(speciesCount))
        json.raw(#","taxa":"#)
        json.int(Int64(taxa.count))
        json.raw(#","total":"#)
        json.int(Int64(sources.count + speciesCount + taxa.count))
        json.raw(#"},"query":"#)
        json.string(query)
        json.raw(#","sources":"#)
        try json.list(sources)
        json.raw(#","species":["#)
        json.append(species)
        json.raw(#"],"taxa":"#)
        try json.list(taxa)
        json.raw("}")
        return json.takeByteBuffer()
    }
}

extension JSONOutput {
    /// A list through `JSONEncoder`, unless it is empty.
    fileprivate mutating func list(_ values: [some Encodable]) throws {
        if values.isEmpty { raw("[]") } else { try encoded(values) }
    }
}
