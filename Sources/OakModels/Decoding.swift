import Foundation

// Decoding of the response types the server only encodes, so that clients can read them.

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
