import Foundation

// Decoding of the response types the server only encodes, so that clients can read them.

extension SyncChange: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decode(SyncEntity.self, forKey: .entity)
        op = try container.decode(SyncOperation.self, forKey: .op)
        key = try container.decode(String.self, forKey: .key)
        version = try container.decode(Int64.self, forKey: .version)
        guard op == .upsert, try !container.decodeNil(forKey: .record) else {
            record = nil
            return
        }
        let recordDecoder = try container.superDecoder(forKey: .record)
        switch entity {
        case .notes: record = .note(try Note(from: recordDecoder))
        case .species: record = .species(try Species(from: recordDecoder))
        case .taxa: record = .taxon(try Taxon(from: recordDecoder))
        case .sources: record = .source(try Source(from: recordDecoder))
        }
    }
}

extension PullResponse: Decodable {
    private enum Keys: String, CodingKey { case changes, cursor, hasMore }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(
            changes: try container.decode([SyncChange].self, forKey: .changes),
            cursor: try container.decode(String.self, forKey: .cursor),
            hasMore: try container.decode(Bool.self, forKey: .hasMore))
    }
}

extension AttributedSpeciesSource: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SpeciesSource.CodingKeys.self)
        self.init(
            record: try SpeciesSource(from: decoder),
            sourceName: try container.decode(String.self, forKey: .sourceName),
            sourceURL: try container.decodeIfPresent(String.self, forKey: .sourceURL))
    }
}

extension SpeciesFull: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            species: try Species(from: decoder),
            sources: try container.decode([AttributedSpeciesSource].self, forKey: .sources))
    }
}
