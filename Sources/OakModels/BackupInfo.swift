import Foundation

/// A backup file the server wrote (`POST /api/v1/backup`, `oak backup`).
public struct BackupInfo: Codable, Hashable, Sendable {
    public var filename: String
    public var size: Int
    public var timestamp: Date

    public init(filename: String, size: Int, timestamp: Date) {
        self.filename = filename
        self.size = size
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey { case filename, size, timestamp }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        filename = try container.decode(String.self, forKey: .filename)
        size = try container.decode(Int.self, forKey: .size)
        timestamp = try container.decodeTimestamp(forKey: .timestamp)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(filename, forKey: .filename)
        try container.encode(size, forKey: .size)
        try container.encode(WireTime.format(timestamp), forKey: .timestamp)
    }
}
