import Foundation

/// How the server writes JSON: sorted keys, slashes unescaped (the encoder of every response).
public enum WireJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// The `userInfo` key that asks models for times to the millisecond (`syncEncoder`).
    public static let preciseTimes = CodingUserInfoKey(rawValue: "oak.preciseTimes")!

    /// The encoder of the sync protocol's answers: as `encoder`, with a note's `updatedAt` to the millisecond,
    /// the precision last write wins compares (the REST routes answer whole seconds).
    public static let syncEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.userInfo[preciseTimes] = true
        return encoder
    }()
}
